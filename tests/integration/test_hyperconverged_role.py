# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hyperconverged role and k8s_apply through real ansible-playbook runs against the test API server."""

from __future__ import annotations

import base64
import json
import pathlib
import re
import textwrap

import pytest
import yaml
from interpreters import other_interpreter
from test_k8s_apply import server_writes
from test_render_playbook import run_playbook

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def control_plane(empty_control_plane):
    """A server of this file's own. The role installs the cluster-scoped operands (CDI, NetworkAddonsConfig,
    PriorityClass) under apply sets named after each test's namespace. On a shared server they would be another
    apply set's members when the site playbook's tests apply the same objects, and k8s_apply refuses to take
    those over silently."""
    return empty_control_plane


def role_playbook(tmp_path: pathlib.Path, control_plane, namespace: str, extra: str = "",
                  spec_patch: str = "") -> pathlib.Path:
    hyperconverged = yaml.safe_load((ROOT / "examples" / "hyperconverged.yml").read_text())
    hyperconverged["metadata"]["namespace"] = namespace
    if spec_patch:
        hyperconverged["spec"].update(yaml.safe_load(spec_patch))
    playbook = tmp_path / "site.yml"
    playbook.write_text(textwrap.dedent(f"""\
        - hosts: localhost
          connection: local
          gather_facts: false
          vars:
            hyperconverged_object: {json.dumps(hyperconverged)}
            hyperconverged_kubeconfig: {control_plane.kubeconfig}
            hyperconverged_apply_set: {namespace}
            {extra}
          roles:
            - virtinfra.hyperconverged.hyperconverged
          post_tasks:
            - name: Show the result
              ansible.builtin.debug:
                msg: "RESULT={{{{ hyperconverged_result | to_json }}}}"
        """))
    return playbook


def result_of(stdout: str) -> dict:
    match = re.search(r'"RESULT=(.*)"\n', stdout)
    assert match, stdout
    return json.loads(match.group(1).encode().decode("unicode_escape"))


def recap_changed(stdout: str) -> int:
    recap = re.search(r"localhost\s+: ok=\d+\s+changed=(\d+)", stdout)
    assert recap, stdout
    return int(recap.group(1))


def test_standalone_check_diff_predicts_the_run_and_the_rerun_changes_nothing(tmp_path, control_plane):
    namespace = "role-standalone"
    playbook = role_playbook(tmp_path, control_plane, namespace)
    # In a namespace that does not exist yet nothing can be dry-run (see test_k8s_apply for deferred objects);
    # with the namespace present, every object's prediction comes from the server.
    control_plane.kubectl_run("create", "namespace", namespace)
    mark = control_plane.audit_offset()
    check = run_playbook(playbook, "--check", "--diff")
    assert check.returncode == 0, check.stdout + check.stderr
    assert server_writes(control_plane, mark) == []
    predicted = result_of(check.stdout)
    assert predicted["mode"] == "standalone"
    assert "kubevirt.io/v1 KubeVirt" in check.stdout  # the diff headers are shown

    real = run_playbook(playbook, "--diff")
    assert real.returncode == 0, real.stdout + real.stderr
    applied = result_of(real.stdout)
    assert [(o["kind"], o["action"], o["changes"]) for o in applied["objects"]] == \
        [(o["kind"], o["action"], o["changes"]) for o in predicted["objects"]]
    assert {o["action"] for o in applied["objects"]} == {"created", "updated"}  # the namespace gets our labels
    kinds = {w["objectRef"]["resource"] for w in server_writes(control_plane, mark)}
    assert {"kubevirts", "cdis", "networkaddonsconfigs", "namespaces"} <= kinds and "hyperconvergeds" not in kinds

    mark = control_plane.audit_offset()
    again = run_playbook(playbook)
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert server_writes(control_plane, mark) == []
    # Used alone, the role says what it did as its last task (hyperconverged_summary defaults to true).
    own_summary = again.stdout.split("TASK [virtinfra.hyperconverged.hyperconverged : Summary]", 1)[1]
    assert '"mode: standalone (kubernetes)"' in own_summary and '"changed objects: []"' in own_summary


def test_hco_mode_writes_only_the_hyperconverged_and_reports_operand_drift(tmp_path, control_plane):
    namespace = "role-hco"
    control_plane.kubectl_run("create", "namespace", namespace)
    control_plane.kubectl_run("create", "deployment", "hyperconverged-cluster-operator", "-n", namespace,
                              "--image=quay.io/kubevirt/hyperconverged-cluster-operator:1.20.0")
    control_plane.kubectl_run("label", "deployment", "-n", namespace, "hyperconverged-cluster-operator",
                              "name=hyperconverged-cluster-operator")
    try:
        # What HCO built earlier, with one value someone changed by hand. The cluster-scoped operands (CDI,
        # NetworkAddonsConfig, PriorityClass) belong to the apply set of an earlier test's installation on this
        # server: this one takes them over on purpose.
        rendered = run_playbook(role_playbook(tmp_path, control_plane, namespace,
                                              extra="hyperconverged_mode: standalone\n"
                                                    "            hyperconverged_adopt: true"), "--check")
        assert rendered.returncode == 0, rendered.stdout
        kubevirt = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt",
                    "metadata": {"name": "kubevirt-kubevirt-hyperconverged", "namespace": namespace},
                    "spec": {"configuration": {"developerConfiguration": {"memoryOvercommit": 110}}}}
        (tmp_path / "kv.yaml").write_text(yaml.safe_dump(kubevirt))
        control_plane.kubectl_run("apply", "--server-side", "--field-manager=hco-operator", "-f",
                                  str(tmp_path / "kv.yaml"))

        playbook = role_playbook(tmp_path, control_plane, namespace)
        mark = control_plane.audit_offset()
        run = run_playbook(playbook)
        assert run.returncode == 0, run.stdout + run.stderr
        result = result_of(run.stdout)
        assert result["mode"] == "hco"
        # The HyperConverged, after its apply set's parent (a ConfigMap in its namespace), under the set's lock.
        assert [(w["objectRef"]["resource"], w["verb"]) for w in server_writes(control_plane, mark)] == [
            ("leases", "create"), ("configmaps", "patch"), ("hyperconvergeds", "patch"), ("leases", "delete")]
        assert {w["objectRef"].get("namespace") for w in server_writes(control_plane, mark)} == {namespace}
        drift = {o["kind"]: o for o in result["operand_drift"]}
        assert drift["KubeVirt"]["action"] == "drifted"
        overcommit = next(f for f in drift["KubeVirt"]["drift"]["fields"]
                          if f["path"] == "spec.configuration.developerConfiguration.memoryOvercommit")
        assert (overcommit["before"], overcommit["after"], overcommit["managers"]) == (110, 150, ["hco-operator"])
        # Namespaced operands HCO has not built yet are reported missing (cluster-scoped ones may exist already).
        assert drift["Deployment"]["action"] == "missing"

        mark = control_plane.audit_offset()
        again = run_playbook(playbook)
        assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
        assert server_writes(control_plane, mark) == []
    finally:
        control_plane.kubectl_run("delete", "deployment", "-n", namespace, "hyperconverged-cluster-operator")
        control_plane.kubectl_run("delete", "hyperconverged", "-n", namespace, "--all")


def test_invalid_spec_fails_with_field_paths_and_writes_nothing(tmp_path, control_plane):
    playbook = role_playbook(tmp_path, control_plane, "role-invalid",
                             spec_patch="{liveMigrationConfig: {bandwidthPerMigration: lots}, "
                                        "higherWorkloadDensity: {memoryOvercommitPercentage: 5}}")
    mark = control_plane.audit_offset()
    run = run_playbook(playbook)
    assert run.returncode != 0
    assert "spec.higherWorkloadDensity.memoryOvercommitPercentage" in run.stdout
    assert "spec.liveMigrationConfig.bandwidthPerMigration" in run.stdout
    assert server_writes(control_plane, mark) == []


@pytest.mark.parametrize("path", ["in-process", "module"])
def test_secret_values_never_reach_the_output(tmp_path, control_plane, path):
    # The Secret was created with client-side kubectl apply first: its last-applied annotation holds the old value.
    old = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds", "namespace": "default"},
           "stringData": {"password": "hunter1-old-secret"}}
    control_plane.kubectl_run("apply", "-f", "-", input=json.dumps(old))
    playbook = tmp_path / "secret.yml"
    playbook.write_text(textwrap.dedent(f"""\
        - hosts: localhost
          connection: local
          gather_facts: false
          tasks:
            - name: Apply a secret
              virtinfra.hyperconverged.k8s_apply:
                kubeconfig: {control_plane.kubeconfig}
                apply_set: secrets
                adopt: true
                objects:
                  - apiVersion: v1
                    kind: Secret
                    metadata: {{name: creds, namespace: default}}
                    stringData: {{password: hunter2-very-secret}}
              register: applied

            - name: Show the registered result
              ansible.builtin.debug:
                var: applied
        """))
    # On a local connection the call runs in Ansible's worker; with another interpreter, as a module process.
    interpreter = str(other_interpreter(tmp_path / "venv")) if path == "module" else None
    run = run_playbook(playbook, "--diff", "-vvv", interpreter=interpreter)
    assert run.returncode == 0, run.stdout
    output = run.stdout + run.stderr
    assert ("AnsiballZ_k8s_apply.py" in output) == (path == "module")
    for secret in ("hunter2-very-secret", "hunter1-old-secret"):
        assert secret not in output
        assert base64.b64encode(secret.encode()).decode() not in output
    assert control_plane.admin_token not in output
    assert "<redacted>" in run.stdout


def test_kkp_preset_in_standalone_mode(tmp_path, control_plane):
    namespace = "role-kkp"
    control_plane.kubectl_run("create", "namespace", namespace)
    # The cluster-scoped operands belong to an earlier test's installation on this server: taken over on purpose.
    playbook = role_playbook(tmp_path, control_plane, namespace,
                             extra="hyperconverged_mode: standalone\n            hyperconverged_preset: kkp\n"
                                   "            hyperconverged_preset_local_storage: true\n"
                                   "            hyperconverged_adopt: true")
    run = run_playbook(playbook, "--diff")
    assert run.returncode == 0, run.stdout + run.stderr
    result = result_of(run.stdout)
    assert "KubeVirt feature gate ExperimentalIgnitionSupport" in result["preset"]["jsonpatch"]
    # The test server has no KubeVirt, so instancetype.kubevirt.io is not served: the role says so.
    assert "instancetype.kubevirt.io/v1beta1 is not served yet" in run.stdout
    assert "prometheus-operator's CRDs" in run.stdout  # ServiceMonitor is not installed on the test server
    live = yaml.safe_load(control_plane.kubectl_run("get", "kubevirt", "-n", namespace, "-o", "yaml").stdout)
    kubevirt = live["items"][0]["spec"] if "items" in live else live["spec"]
    gates = set(kubevirt["configuration"]["developerConfiguration"]["featureGates"])
    assert {"ExperimentalIgnitionSupport", "DataVolumes", "LiveMigration", "CPUManager", "CPUNodeDiscovery",
            "Sidecar", "Snapshot", "HotplugVolumes"} <= gates
    assert (kubevirt["monitorNamespace"], kubevirt["monitorAccount"]) == ("monitoring", "prometheus-k8s")
    mark = control_plane.audit_offset()
    again = run_playbook(playbook)
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert server_writes(control_plane, mark) == []
