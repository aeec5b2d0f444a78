# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site from a cluster where no operator runs: the operators stage installs them from local release files
(air-gapped layout), then the operands are written; a second run changes nothing; removal takes the operators last.

The release files are written by the test in the shape of upstream's (Namespace, RBAC, the operator Deployment);
the CRDs are the real ones the harness installs. The operators' Deployments are rolled out by the real
kube-controller-manager and kube-scheduler onto kwok's nodes; virt-operator, which cannot run here, is stood in for by
FakeVirtOperator (the KubeVirt CR's status), and kubernetes-nmstate's operator by FakeNMStateOperator (the NMState's).
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import typing as t

from test_hyperconverged_role import recap_changed
from test_k8s_apply import server_writes
from test_operators import FakeNMStateOperator, FakeVirtOperator, connect, get, write_release
from test_site import site

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.applyset import PART_OF_LABEL, applyset_id
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import catalog

VERSIONS = {"migration": "v0.1.0", "filerestore": "v0.1.0"}


def release(op: catalog.Operator, version: str) -> list[dict]:
    name = op.deployment or f"{op.key}-operator"
    labels = {"name": name}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": op.namespace}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": op.namespace}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": op.namespace},
         "spec": {"selector": {"matchLabels": labels},
                  "template": {"metadata": {"labels": labels},
                               "spec": {"serviceAccountName": name,
                                        "containers": [{"name": name, "image": f"quay.io/x/{name}:{version}"}]}}}},
    ]


def release_dir(root: pathlib.Path) -> pathlib.Path:
    versions = {**catalog.PINS["1.20"], **VERSIONS}
    for key in ("kubevirt", "cdi", "cnao", "migration", "filerestore", "nmstate"):
        op = catalog.BY_KEY[key]
        files = op.files or ("operator.yaml",)
        # Every object in the first file, the others empty (upstream splits them; the order is what counts).
        write_release(root, key, versions[key], files[0], release(op, versions[key]))
        for other in files[1:]:
            (root / key / versions[key] / other).write_text("", encoding="utf-8")
    return root


def operator_settings(root: pathlib.Path) -> dict:
    # The example inventory without SR-IOV and hostpath-provisioner pools: their operators are a Helm chart
    # (SR-IOV) and need cert-manager (hostpath-provisioner), neither of which this server has.
    return {"site_operators_source": "manifests", "site_operators_manifests_dir": str(root),
            "site_operators_versions": VERSIONS, "site_sriov_nic": "", "site_hpp_pools": []}


@contextlib.contextmanager
def operators_stood_in(plane) -> t.Iterator[None]:
    """virt-operator and kubernetes-nmstate's operator, which cannot run here, stood in for (test_operators)."""
    stand_ins = [FakeVirtOperator(connect(plane), None), FakeNMStateOperator(connect(plane))]
    for stand_in in stand_ins:
        stand_in.start()
    try:
        yield
    finally:
        for stand_in in stand_ins:
            stand_in.stop.set()
            stand_in.join()


def site_with_operators(plane, root: pathlib.Path, *extra: str):
    with operators_stood_in(plane):
        return site(plane, "-e", json.dumps(operator_settings(root)), *extra)


def test_from_no_operator_to_the_operands_then_nothing_then_removed(empty_cluster, tmp_path):
    plane = empty_cluster
    root = release_dir(tmp_path)
    # Check mode: the plan of what a real run installs, nothing written, and the later stages said to wait.
    mark = plane.audit_offset()
    check = site_with_operators(plane, root, "--check", "--diff")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "[operators] KubeVirt (virt-operator): install v1.9.0 (check mode: nothing is written)" in check.stdout
    assert "the node prerequisites and KubeVirt are checked once the operators run" in check.stdout
    assert server_writes(plane, mark) == []
    start = plane.audit_offset()
    first = site_with_operators(plane, root)
    assert first.returncode == 0, first.stdout + first.stderr
    conn = connect(plane)
    # virt-operator with its operands, the others where their files put them; progress was printed.
    assert get(conn, "/apis/apps/v1/namespaces/kubevirt-hyperconverged/deployments/virt-operator") is not None
    assert get(conn, "/apis/apps/v1/namespaces/cdi/deployments/cdi-operator") is not None
    assert get(conn, "/apis/kubevirt.io/v1/namespaces/kubevirt-hyperconverged/kubevirts") is not None
    assert "[operators] KubeVirt (virt-operator): install v1.9.0" in first.stdout
    assert "operators: KubeVirt (virt-operator): install v1.9.0; CDI (cdi-operator): install v1.66.0" in first.stdout
    # kubernetes-nmstate serves the policies only once an NMState exists: the operators stage wrote it, in the
    # operator's apply set, and waited for it before the prerequisites wrote the bridge's policy.
    nmstate = get(conn, "/apis/nmstate.io/v1/nmstates/nmstate")
    assert nmstate is not None
    assert nmstate["metadata"]["labels"][PART_OF_LABEL] == applyset_id("virtinfra-operator-nmstate", "nmstate")
    writes = [(e["objectRef"]["resource"], e["objectRef"].get("name")) for e in server_writes(plane, start)
              if e["verb"] in ("create", "patch") and (e.get("objectRef") or {}).get("apiGroup") == "nmstate.io"]
    policies = [i for i, (resource, _name) in enumerate(writes) if resource == "nodenetworkconfigurationpolicies"]
    assert policies and writes.index(("nmstates", "nmstate")) < policies[0], writes

    mark = plane.audit_offset()
    again = site_with_operators(plane, root)
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert "KubeVirt (virt-operator): v1.9.0 (as running)" in again.stdout
    assert server_writes(plane, mark) == []

    removed = site_with_operators(plane, root, "-e", "site_state=absent")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert get(conn, "/apis/apps/v1/namespaces/kubevirt-hyperconverged/deployments/virt-operator") is None
    assert get(conn, "/apis/apps/v1/namespaces/cdi/deployments/cdi-operator") is None
    assert removed.stdout.index("Remove KubeVirt first") < removed.stdout.index("Remove the operators last")


def test_in_apply_mode_the_operators_stage_names_the_sites_settings(empty_cluster, tmp_path):
    # The operators role's problems name its own variables unless told the caller's words: the site passes its
    # settings' names, so a refused checksum names site_operators_checksums, the setting the user wrote.
    plane = empty_cluster
    root = release_dir(tmp_path)
    key = f"kubevirt/{catalog.BY_KEY['kubevirt'].files[0]}"
    settings = {**operator_settings(root), "site_operators_checksums": {key: "sha256:" + "0" * 64}}
    mark = plane.audit_offset()
    done = site(plane, "-e", json.dumps(settings))
    assert done.returncode != 0
    assert f"as site_operators_checksums['{key}'] says; nothing was applied" in done.stdout, done.stdout[-3000:]
    assert " operators_checksums[" not in done.stdout
    assert server_writes(plane, mark) == []
