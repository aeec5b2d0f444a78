# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HCO alerts a cluster would raise are named by the plan, before any write, from what the alerts read on the
real API server: a KubeDescheduler without KubeVirt's profile (the descheduler operator's real CRD) and a second
wasp-agent DaemonSet in the namespace HCO's rule counts. Once both are right, no alert line. A check run writes
nothing (the plan's reads are reads). Its own API server: the objects it makes are nobody else's."""

from __future__ import annotations

import json
import re
import sys
import typing as t

import pytest
import yaml
from conftest import _running_control_plane
from test_k8s_apply import server_writes
from test_render_playbook import ROOT, run_playbook

# HCO 1.20's own code, run on an empty HyperConverged for three control-plane nodes and three workers
# (tests/harness/hco-golden): the operands as HCO builds them.
GOLDEN = ROOT / "tests" / "golden" / "1.20" / "001-empty-spec-kubernetes-ha.yaml"

DESCHEDULER: dict[str, t.Any] = {
    "apiVersion": "operator.openshift.io/v1", "kind": "KubeDescheduler",
    "metadata": {"name": "cluster", "namespace": "openshift-kube-descheduler-operator"},
    "spec": {"managementState": "Managed", "deschedulingIntervalSeconds": 3600,
             "profiles": ["AffinityAndTaints", "LifecycleAndUtilization"]}}
WASP = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "wasp-agent", "namespace": "wasp"},
        "spec": {"selector": {"matchLabels": {"name": "wasp"}}, "template": {
            "metadata": {"labels": {"name": "wasp"}},
            "spec": {"containers": [{"name": "wasp-agent", "image": "quay.io/openshift-virtualization/wasp-agent:v4.17"}]}}}}


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    with _running_control_plane(tmp_path_factory) as started:
        yield started


def site(plane, *extra: str):
    return run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(ROOT / "examples" / "inventory" / "hosts.yml"),
                        "-i", "localhost,", "--limit", "localhost", "-e", f"ansible_python_interpreter={sys.executable}",
                        "-e", f"site_kubeconfig={plane.kubeconfig}", "-e", "site_platform_version=1.34", *extra)


def predicted(plane) -> tuple[str, str]:
    run = site(plane, "-e", "site_mode=hco", "--check")
    line = re.search(r'"HCO alerts predicted: ([^"]*)"', run.stdout)
    assert line, run.stdout[-5000:]
    return line.group(1), run.stdout


def test_the_alerts_a_cluster_would_raise_are_named_before_any_write_and_none_once_it_is_right(plane):
    items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "openshift-kube-descheduler-operator"}},
             {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "wasp"}}, DESCHEDULER, WASP]
    plane.kubectl_run("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    mark = plane.audit_offset()
    said, _stdout = predicted(plane)
    assert ("HCOMisconfiguredDescheduler: KubeDescheduler openshift-kube-descheduler-operator/cluster has none of the "
            "profiles HCO 1.20 takes for KubeVirt") in said
    assert "it has AffinityAndTaints, LifecycleAndUtilization" in said
    assert "DuplicateWaspAgentDSDetected: DaemonSet wasp/wasp-agent (created by kubectl" in said
    assert server_writes(plane, mark) == []
    # What the alerts read was read once, in the plan's read of the cluster, with the rest of it.
    reads = [e["requestURI"] for e in plane.audit_events(mark, "admin")]
    assert sum("kubedeschedulers/cluster" in uri for uri in reads) == 1
    assert sum("daemonsets?fieldSelector=metadata.name%3Dwasp-agent" in uri for uri in reads) == 1, reads

    fixed = {"spec": {"profiles": ["AffinityAndTaints", "KubeVirtRelieveAndMigrate"]}}
    plane.kubectl_run("patch", "kubedescheduler", "cluster", "-n", "openshift-kube-descheduler-operator",
                      "--type=merge", "-p", json.dumps(fixed))
    plane.kubectl_run("delete", "daemonset", "wasp-agent", "-n", "wasp")
    said, _stdout = predicted(plane)
    assert said == "none"


def test_site_descheduler_sets_only_its_field_never_takes_another_managers_and_never_deletes_it(plane):
    descheduler = ("kubedescheduler", "cluster", "-n", "openshift-kube-descheduler-operator")
    plane.kubectl_run("create", "namespace", "openshift-kube-descheduler-operator", check=False)
    plane.kubectl_run("delete", *descheduler, "--ignore-not-found")
    # 1.14's rule is a field of its own: set beside a person's profiles, which stay theirs.
    plane.kubectl_run("create", "-f", "-", input=json.dumps(DESCHEDULER))
    mark = plane.audit_offset()
    run = site(plane, "-e", "site_descheduler=true", "-e", "site_release=1.14", "-e", "site_release_mismatch=use-setting")
    assert run.returncode == 0, run.stdout[-5000:]
    assert ("descheduler: KubeDescheduler openshift-kube-descheduler-operator/cluster: "
            "spec.profileCustomizations.devEnableEvictionsInBackground: true (HCO 1.14's rule): changed") in run.stdout
    live = json.loads(plane.kubectl_run("get", *descheduler, "-o", "json", "--show-managed-fields").stdout)
    assert live["spec"]["profileCustomizations"] == {"devEnableEvictionsInBackground": True}
    assert live["spec"]["profiles"] == DESCHEDULER["spec"]["profiles"]
    ours = [e for e in live["metadata"]["managedFields"] if e["manager"] == "virtinfra.hyperconverged"]
    assert [sorted(e["fieldsV1"]["f:spec"]) for e in ours] == [["f:profileCustomizations"]]
    assert [e for e in server_writes(plane, mark) if e["objectRef"].get("resource") == "kubedeschedulers"]
    # From 1.17 the rule is a profile, in a list the person set: refused before any write, the owner named.
    mark = plane.audit_offset()
    refused = site(plane, "-e", "site_descheduler=true", "-e", "site_release=1.20")
    assert refused.returncode != 0
    assert "spec.profiles (AffinityAndTaints, LifecycleAndUtilization) is set by kubectl-create" in refused.stdout
    assert server_writes(plane, mark) == []
    # Missing, it is created with the profile; a rerun writes nothing; a removal leaves it.
    plane.kubectl_run("delete", *descheduler)
    created = site(plane, "-e", "site_descheduler=true", "-e", "site_release=1.20")
    assert created.returncode == 0, created.stdout[-5000:]
    live = json.loads(plane.kubectl_run("get", *descheduler, "-o", "json").stdout)
    assert live["spec"]["profiles"] == ["KubeVirtRelieveAndMigrate"]
    mark = plane.audit_offset()
    again = site(plane, "-e", "site_descheduler=true", "-e", "site_release=1.20")
    assert "already has KubeVirtRelieveAndMigrate (HCO 1.20's rule): nothing to write" in again.stdout
    assert server_writes(plane, mark) == []


def test_render_mode_writes_the_kubedescheduler_the_release_wants_with_the_instances(tmp_path):
    out = tmp_path / "tree"
    run = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(ROOT / "examples" / "inventory" / "hosts.yml"),
                       "-e", f"site_render_dir={out}", "-e", "site_descheduler=true", "-e", "site_release=1.16",
                       "-e", "site_render_layout=stages")
    assert run.returncode == 0, run.stdout[-4000:]
    written = out / "02-instances" / "kubedescheduler-openshift-kube-descheduler-operator-cluster.yaml"
    assert yaml.safe_load(written.read_text())["spec"] == {"profiles": ["DevKubeVirtRelieveAndMigrate"]}


def test_standalone_mode_is_refused_before_any_write_where_hco_runs_and_owns_the_operands(plane, tmp_path):
    # No HCO runs here: the test writes the status.versions entry HCO writes once it has reconciled (as in
    # test_site_release_from_cluster.py).
    hyperconverged = {"apiVersion": "hco.kubevirt.io/v1", "kind": "HyperConverged",
                      "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
                      "spec": {}}
    plane.kubectl_run("create", "namespace", "kubevirt-hyperconverged", check=False)
    plane.kubectl_run("create", "-f", "-", input=json.dumps(hyperconverged))
    plane.kubectl_run("patch", "hyperconverged", "kubevirt-hyperconverged", "-n", "kubevirt-hyperconverged",
                      "--subresource=status", "--type=merge",
                      "-p", json.dumps({"status": {"versions": [{"name": "operator", "version": "1.20.0"}]}}))
    mark = plane.audit_offset()
    refused = site(plane, "-e", "site_mode=standalone")
    assert refused.returncode != 0
    assert ("site_mode: standalone writes the operands itself, but HCO runs on this cluster (HyperConverged "
            "kubevirt-hyperconverged/kubevirt-hyperconverged status.versions says 1.20.0)") in refused.stdout
    assert server_writes(plane, mark) == []


def test_operands_changed_outside_hco_are_named_before_any_write_with_who_changed_them(plane, tmp_path):
    """No HCO runs here: the test writes the HyperConverged and the operands HCO 1.20's own code built for it (its
    custom resources and PriorityClass, under HCO's field manager), as HCO would have. Unchanged, no line; once a
    person patches the KubeVirt, the plan names the field and who set it, before any write."""
    golden = yaml.safe_load(GOLDEN.read_text())
    operands = [{**operand, "metadata": {key: value for key, value in operand["metadata"].items()
                                         if key != "ownerReferences"}}
                for operand in golden["expect"]["operands"] if operand["kind"] not in ("Deployment", "DaemonSet")]
    plane.kubectl_run("create", "namespace", "kubevirt-hyperconverged", check=False)
    listed = tmp_path / "built.json"
    listed.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [golden["input"], *operands]}))
    # An earlier test's site run wrote the cluster-scoped ones: HCO takes them over.
    plane.kubectl_run("apply", "--server-side", "--force-conflicts", "--field-manager=hyperconverged-cluster-operator",
                      "-f", str(listed))
    try:
        mark = plane.audit_offset()
        said, stdout = predicted(plane)
        assert "KubeVirtCRModified" not in said, said
        assert "operands changed outside HCO, read before any write (HCO reverts them): 0" in stdout
        assert server_writes(plane, mark) == []

        edit = {"spec": {"configuration": {"developerConfiguration": {"cpuAllocationRatio": 7}}}}
        plane.kubectl_run("patch", "kubevirt", "kubevirt-kubevirt-hyperconverged", "-n", "kubevirt-hyperconverged",
                          "--type=merge", "-p", json.dumps(edit))
        mark = plane.audit_offset()
        said, stdout = predicted(plane)
        assert ("KubeVirtCRModified: KubeVirt kubevirt-hyperconverged/kubevirt-kubevirt-hyperconverged: "
                "spec.configuration.developerConfiguration.cpuAllocationRatio (set by kubectl-patch) differs from "
                "what HCO builds") in said, said
        assert ("operands changed outside HCO, read before any write (HCO reverts them): 1 - HCO puts back: KubeVirt "
                "kubevirt-hyperconverged/kubevirt-kubevirt-hyperconverged: "
                "spec.configuration.developerConfiguration.cpuAllocationRatio (set by kubectl-patch)") in stdout
        assert server_writes(plane, mark) == []
    finally:
        plane.kubectl_run("delete", "-f", str(listed), "--wait=false", check=False)
