# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_report import Run, report

APPLY = {"apply": True, "state": "present", "mode": "auto", "mode_reason": "a credential is set: site_kubeconfig",
         "drift": "revert", "operators_source": "none", "output": "/r", "removal_kept": []}
OPERANDS = ({"kind": "KubeVirt", "metadata": {"name": "kv", "namespace": "kubevirt-hyperconverged"}},
            {"kind": "CDI", "metadata": {"name": "cdi"}})
PREREQS = {"swap": {"mechanism": "kubelet-limited-swap",
                    "nodes": [{"name": "worker1", "swap_mib": 131072}, {"name": "worker3", "swap_mib": 65536}]},
           "warnings": ["networking: bridges[0]: a warning"]}


def entry(kind, name, action):
    return {"kind": kind, "name": name, "namespace": None, "action": action, "drift": {"count": 0, "fields": []}}


def applied(*objects, total=3, writes=0):
    return {"objects": list(objects), "drift_total": 0, "requests": {"total": total, "writes": writes}}


def test_a_no_op_apply_says_nothing_changed_counts_every_call_and_names_the_operands():
    results = {"site_settings": {"requests": {"total": 1, "writes": 0}, "warnings": ["hostvars[w1]: a difference"]},
               "site_cluster": {"requests": {"total": 10, "writes": 0}},
               "prerequisites_applied": applied(entry("Namespace", "vms", "unchanged")),
               "prerequisites_deleted": {"skipped": True},
               "hyperconverged_standalone": applied(entry("KubeVirt", "kv", "unchanged"), total=15)}
    out = report(Run(config={**APPLY, "nodes_from": "the cluster"}, results=results, run_mode="standalone",
                     prereqs=PREREQS, operands=OPERANDS,
                     kubevirt={"mode": "standalone", "operands": list(OPERANDS), "warnings": ["hco: a warning"]}))
    assert out == [
        "apply mode (standalone): 0 prerequisite and 0 KubeVirt object(s) changed - a credential is set: site_kubeconfig",
        "node prerequisites: wrote nothing",
        "KubeVirt: wrote nothing",
        "drift: none",
        "release profile: 1.20 (HCO 1.20.0), from site_release",
        "operators: not managed by the site (site_operators_source none)",
        "nodes: planned from the cluster",
        "swap plan: kubelet-limited-swap; worker1: 131072 MiB, worker3: 65536 MiB",
        "HCO alerts predicted: none",
        "operands changed outside HCO: not looked for (only apply mode in hco mode reads HCO's operands)",
        "warnings: hostvars[w1]: a difference; networking: bridges[0]: a warning; hco: a warning",
        "API requests: 29 (0 writes) in 4 cluster call(s)",
        "operands: KubeVirt kv in kubevirt-hyperconverged, CDI cdi (cluster-scoped)",
    ]


def test_changes_are_counted_per_stage_and_check_mode_says_would():
    results = {"prerequisites_applied": applied(entry("Namespace", "vms", "created"), entry("X", "x", "unchanged")),
               "hyperconverged_applied": applied(entry("HyperConverged", "hc", "updated"), writes=1),
               "hyperconverged_operand_drift": {"objects": [], "requests": {"total": 4, "writes": 0}}}
    out = report(Run(config={**APPLY, "mode": "hco"}, check_mode=True, results=results, run_mode="hco",
                     operands=OPERANDS))
    assert out[0].startswith("apply mode (hco): 1 prerequisite and 1 KubeVirt object(s) would change - ")
    assert out[1] == "node prerequisites: would write 1 object(s): created Namespace vms"
    assert "API requests: 10 (1 writes) in 3 cluster call(s)" in out
    assert out[-1].startswith("operands (built by HCO): KubeVirt kv")


def test_a_check_run_waiting_for_its_operators_says_what_is_not_served_yet():
    config = {**APPLY, "operators_source": "manifests"}
    out = report(Run(config=config, check_mode=True, unchecked=True, missing=("kubevirt.io/v1/KubeVirt",),
                     results={"operators_result": {"plan": ["KubeVirt (virt-operator): install v1.9.0"],
                                                   "approved": [], "requests": {"total": 2, "writes": 0}}}))
    assert out[1] == ("check mode: the operators are not installed by a check run, so the kinds they serve cannot be "
                      "dry-run yet (kubevirt.io/v1/KubeVirt); the node prerequisites and KubeVirt are checked once "
                      "the operators run")
    assert "node prerequisites: not started, nothing written" in out
    assert "operators: KubeVirt (virt-operator): install v1.9.0" in out


def test_the_operators_line_says_why_there_is_no_plan():
    manifests = {**APPLY, "operators_source": "manifests"}
    assert "operators: not reached" in report(Run(config=manifests))
    stopped = Run(config=manifests, results={"operators_result": {"failed": True}})
    assert "operators: the run stopped before them" in report(stopped)
    assert "operators: not run in render mode" in report(Run(config={**manifests, "apply": False}))
    approved = {"plan": ["CDI: v1.65 -> v1.66"], "approved": ["install-abc"]}
    assert "operators: CDI: v1.65 -> v1.66; approved InstallPlan install-abc" in report(
        Run(config=manifests, results={"operators_result": approved}))


def test_a_removal_counts_what_was_deleted_and_goes_kubevirt_first():
    results = {"hyperconverged_deleted": applied(entry("KubeVirt", "kv", "deleted"), entry("CDI", "cdi", "kept")),
               "hyperconverged_preset_deleted": applied(entry("VirtualMachineClusterPreference", "p", "deleted")),
               "prerequisites_deleted": applied(entry("Namespace", "vms", "deleted"))}
    config = {**APPLY, "state": "absent", "removal_kept": ["networking kept: br1"]}
    out = report(Run(config=config, results=results, run_mode="standalone"))
    assert out[0] == ("removal (standalone): 2 KubeVirt and 1 prerequisite object(s) deleted; the nodes are left as "
                      "they are - a credential is set: site_kubeconfig")
    assert out[1] == "KubeVirt: wrote 2 object(s): deleted VirtualMachineClusterPreference p, deleted KubeVirt kv"
    assert out[2].startswith("node prerequisites: ")
    assert "warnings: networking kept: br1" in out


def test_render_mode_counts_files_and_makes_no_request():
    config = {**APPLY, "apply": False, "mode_reason": "site_action is render"}
    written = {"files": ["a.yaml", "b.yaml", "c.yaml"], "written": ["a.yaml"], "removed": []}
    out = report(Run(config=config, written=written, operands=OPERANDS, prereqs={}))
    assert out[0] == "render mode: 3 manifests in /r, 1 written, 0 removed - site_action is render"
    assert out[1] == "release profile: 1.20 (HCO 1.20.0), from site_release"   # no stage lines
    assert out[2] == "operators: not managed by the site (site_operators_source none)"
    assert "swap plan: none; no node" in out and "API requests: none (render mode)" in out
    assert out[-1] == "operands: KubeVirt kv in kubevirt-hyperconverged, CDI cdi (cluster-scoped)"


@pytest.mark.parametrize(("written", "said"), [("1.18", "release profile: 1.18 (HCO 1.18.1), from site_release"),
                                               ("v1.15.2", "release profile: 1.15 (HCO 1.15.2), from site_release"),
                                               ("1.21", "release profile: 1.21 (unknown)")])
def test_the_summary_names_the_release_profile_that_computed_the_operands(written, said):
    assert said in report(Run(config={**APPLY, "release": written}))


def test_after_a_failure_it_says_where_the_run_stopped():
    results = {"prerequisites_applied": {"failed": True, "msg": "refused", "written": [
        {"kind": "Namespace", "name": "vms", "namespace": None, "action": "created"}]}}
    out = report(Run(config=APPLY, results=results, failure="Apply the objects: refused"))
    assert "node prerequisites: FAILED, wrote 1 object(s): created Namespace vms" in out
    assert "the run stopped at node prerequisites: Apply the objects: refused" in out


def test_the_swap_plan_of_many_nodes_is_one_line_by_size():
    nodes = [{"name": f"vm-{i:03d}", "swap_mib": 65536 if i % 3 else 131072} for i in range(500)]
    swap = {"mechanism": "kubelet-limited-swap", "nodes": nodes}
    out = report(Run(config={**APPLY, "apply": False}, prereqs={"swap": swap}))
    line = next(item for item in out if item.startswith("swap plan: "))
    assert line == ("swap plan: kubelet-limited-swap; 500 node(s): 65536 MiB on vm-001, vm-002, vm-004 and 330 more; "
                    "131072 MiB on vm-000, vm-003, vm-006 and 164 more")


def test_render_mode_says_which_mode_it_rendered_for_and_why():
    config = {**APPLY, "apply": False, "mode": "auto", "render_mode": "hco",
              "render_mode_reason": "site_mode auto and site_operators_source olm: the site installs HCO"}
    out = report(Run(config=config, operands=OPERANDS, written={"files": ["a.yaml"], "written": [], "removed": []}))
    assert "rendered for hco mode: site_mode auto and site_operators_source olm: the site installs HCO" in out
    assert out[-1].startswith("operands (built by HCO): ")


def test_a_warning_the_plan_and_a_later_stage_both_carry_is_said_once():
    # The plan computes the prerequisites and the render, so it holds their warnings; the stages report them again.
    results = {"site_settings": {"warnings": ["networking: bridges[0]: a warning", "hco: a warning"]}}
    out = report(Run(config={"apply": False}, results=results, prereqs=PREREQS, operands=OPERANDS,
                     kubevirt={"warnings": ["hco: a warning", "hco: another"]}))
    assert [line for line in out if line.startswith("warnings:")] == [
        "warnings: networking: bridges[0]: a warning; hco: a warning; hco: another"]


def test_operands_changed_outside_hco_are_named_field_by_field_with_who_set_them():
    drifted = {**entry("KubeVirt", "kubevirt-kubevirt-hyperconverged", "drifted"), "namespace": "kubevirt-hyperconverged",
               "drift": {"count": 2, "fields": [
                   {"path": "spec.configuration.developerConfiguration.featureGates", "op": "change",
                    "managers": ["kubectl-edit"]},
                   {"path": "spec.workloadUpdateStrategy.batchEvictionSize", "op": "change", "managers": []}]}}
    planned = {"operands_edited": [drifted]}
    out = report(Run(config={**APPLY, "mode": "hco"}, run_mode="hco", operands=OPERANDS,
                     results={"site_settings": planned}, kubevirt={"mode": "hco"}))
    [line] = [line for line in out if line.startswith("operands changed outside HCO")]
    assert line == (
        "operands changed outside HCO, read before any write (HCO reverts them): 1 - HCO puts back: "
        "KubeVirt kubevirt-hyperconverged/kubevirt-kubevirt-hyperconverged: "
        "spec.configuration.developerConfiguration.featureGates (set by kubectl-edit), "
        "spec.workloadUpdateStrategy.batchEvictionSize")
    healthy = report(Run(config={**APPLY, "mode": "hco"}, run_mode="hco", operands=OPERANDS,
                         results={"site_settings": {"operands_edited": []}}, kubevirt={"mode": "hco"}))
    assert "operands changed outside HCO, read before any write (HCO reverts them): 0" in healthy


def test_a_cluster_rendered_alone_names_where_its_argo_cd_health_checks_went():
    written = {"dest": "/srv/gitops/virt/argocd", "files": ["configmap-argocd-argocd-cm.yaml"],
               "written": ["configmap-argocd-argocd-cm.yaml"], "unchanged": [], "removed": []}
    config = {"apply": False, "render_mode": "standalone", "render_mode_reason": "site_mode is standalone"}
    out = report(Run(config=config, results={"site_argocd_written": written}, operands=OPERANDS))
    assert ("Argo CD health checks (argocd-cm keys to merge into Argo CD's cluster): "
            "/srv/gitops/virt/argocd/configmap-argocd-argocd-cm.yaml, 1 written") in out
    # In a fleet the task is skipped (the fleet's root has them): no line.
    skipped = report(Run(config=config, results={"site_argocd_written": {"skipped": True}}, operands=OPERANDS))
    assert not [line for line in skipped if line.startswith("Argo CD health checks")]
