# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from types import SimpleNamespace

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.virtinfra.hyperconverged.plugins.action import node_prereqs
from ansible_collections.virtinfra.hyperconverged.plugins.filter.hco_preset import hco_preset
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render as render_operands
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render as render_prereqs
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_values as site_values
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._prereqs_result import prereqs_result
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import ARGUMENT_SPEC, MANAGED_BY, render_kwargs, render_result
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_compose import compose, for_removal, merge
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_plan import site_plan

WORKER = {"node-role.kubernetes.io/worker": ""}
NODES = [{"name": "worker1", "labels": WORKER, "memory": "64Gi", "taints": []}]


def problems_of(**provided):
    settings = site_values.normalize({"site_platform_version": "1.33", **provided})
    assert settings.errors == ()
    hyperconverged, spec = compose(settings, NODES)
    return list(site_plan(site_values.effective(settings), hyperconverged, spec, spec, NODES).problems)


def test_a_good_plan_has_no_problem():
    assert problems_of(site_vm_bridge_nic="eno2", site_vm_vlans="100",
                       site_vm_networks=[{"name": "net", "namespace": "vms", "vlan": 100}]) == []


def test_every_bad_network_is_named_by_the_users_variable_at_once():
    problems = problems_of(site_vm_bridge_nic="eno2", site_vm_vlans="100-200", site_vm_networks=[
        {"namespce": "vms", "vlan": "100"}, {"name": "b", "namespace": "Bad_NS", "vlan": 5000}])
    assert problems == [
        "site_vm_networks[0].namespce: unknown key; did you mean namespace?",
        "site_vm_networks[0].name: required: the network's name, as VMs refer to it",
        "site_vm_networks[0].namespace: required: the namespace of the VMs that use this network",
        "site_vm_networks[0].vlan: must be a VLAN ID (a whole number), got text '100': write it without quotes",
        "site_vm_networks[1].namespace: 'Bad_NS' is not a namespace name (a lower-case DNS label)",
        "site_vm_networks[1].vlan: must be within 0-4094, got 5000"]


def test_the_hyperconverged_spec_is_checked_in_the_same_pass():
    problems = problems_of(site_hyperconverged_spec={"liveMigrationConfig": {"parallelMigrationsPerClustr": 5}})
    assert problems and problems[0].startswith("site_hyperconverged_spec.liveMigrationConfig.parallelMigrationsPerClustr")


def test_a_section_fed_by_a_refused_setting_is_left_out():
    settings = site_values.normalize({"site_platform_version": "1.33", "site_vm_bridge_nic": "eno2",
                                      "site_vm_networks": [{"name": "n", "namespace": "vms", "vlan": 100}]})
    hyperconverged, spec = compose(settings, NODES)
    values = site_values.effective(settings)
    # site_vm_vlans refused (planned empty): VLAN 100 is then not trunked, which is not news to the user.
    assert site_plan(values, hyperconverged, spec, spec, NODES).problems[0].startswith("site_vm_networks[0].vlan: VLAN")
    assert site_plan(values, hyperconverged, spec, spec, NODES, refused={"site_vm_vlans"}).problems == ()
    assert site_plan(values, hyperconverged, spec, spec, NODES, refused={"site_platform_version"}).problems == ()


# The plan against the modules and the filter the site called before it made the plan itself: for the same inputs,
# the same results (the site's integration test also reruns the role computing its own render, changing nothing).

def module_args(argument_spec: dict, /, **given) -> dict:
    """A module's arguments as Ansible validates them against its argument spec (defaults filled in)."""
    result = ArgumentSpecValidator(argument_spec).validate(given)
    assert not result.error_messages, result.error_messages
    return result.validated_parameters


def plan_of(nodes=tuple(NODES), **provided):
    settings = site_values.normalize({"site_platform_version": "1.33", **provided})
    assert settings.errors == ()
    hyperconverged, spec = compose(settings, list(nodes))
    values = site_values.effective(settings)
    removal = for_removal(spec)[0] if values["state"] == "absent" else spec
    return SimpleNamespace(values=values, hyperconverged=hyperconverged, spec=spec, removal=removal,
                           plan=site_plan(values, hyperconverged, spec, removal, list(nodes)))


@pytest.mark.parametrize("mode", ["auto", "standalone", "hco"])
def test_the_plan_is_what_node_prereqs_the_preset_filter_and_hco_render_return(mode):
    planned = plan_of(site_vm_bridge_nic="eno2", site_vm_vlans="100", site_mode=mode, site_preset="kkp",
                      site_overcommit_percent=150, site_vm_networks=[{"name": "net", "namespace": "vms", "vlan": 100}])
    values, hyperconverged, spec, plan = planned.values, planned.hyperconverged, planned.spec, planned.plan
    assert plan.problems == ()
    prereq_args = module_args(node_prereqs.ActionModule.ARGUMENT_SPEC, spec=spec, state="present",
                              create_namespaces=True)
    assert plan.prereqs == prereqs_result(render_prereqs(spec), spec, "present", prereq_args["create_namespaces"])
    assert plan.hyperconverged == merge(hyperconverged, plan.prereqs["hyperconverged"])
    assert plan.hyperconverged["spec"]["higherWorkloadDensity"] == {"memoryOvercommitPercentage": 150}
    expanded = hco_preset(plan.hyperconverged, "kkp", release=values["release"],
                          cluster={"platform": values["platform"], "namespace": values["hco_namespace"]})
    assert plan.expanded == expanded and expanded["objects"]
    args = module_args(ARGUMENT_SPEC, hyperconverged=expanded["hyperconverged"], release=values["release"],
                       strict=values["strict"], cluster={"platform": values["platform"],
                                                         "namespace": values["hco_namespace"], "nodes": NODES},
                       **({"managed_by": "virtinfra.hyperconverged"} if mode != "hco" else {}))
    assert plan.render == render_result(render_operands(**render_kwargs(args)), args["managed_by"])
    managers = {o["metadata"].get("labels", {}).get(MANAGED_BY) for o in plan.render["operands"]}
    assert ("virtinfra.hyperconverged" in managers) == (mode != "hco")


def test_a_removal_plans_what_it_deletes_from_the_removal_spec():
    planned = plan_of(site_state="absent", site_vm_bridge_nic="eno2", site_vm_vlans="100",
                      site_vm_networks=[{"name": "net", "namespace": "vms", "vlan": 100}])
    spec, removal, plan = planned.spec, planned.removal, planned.plan
    assert removal != spec   # the VM bridge is kept (nmstate never reverts a deleted policy)
    assert plan.prereqs == prereqs_result(render_prereqs(removal, "absent"), removal, "absent", True)
    assert plan.prereqs["objects"] == []


def test_an_unknown_field_is_a_problem_with_site_strict_and_a_warning_without():
    typo = {"featureGates": {"downwardMetrics": True}, "defaultCPUModle": "host-model"}
    strict = plan_of(site_hyperconverged_spec=typo).plan
    assert strict.render is None and strict.problems
    assert all(problem.startswith("site_hyperconverged_spec.defaultCPUModle") for problem in strict.problems)
    relaxed = plan_of(site_hyperconverged_spec=typo, site_strict=False).plan
    assert relaxed.problems == () and relaxed.render["pruned_fields"] == ["spec.defaultCPUModle"]
    assert any("defaultCPUModle" in warning for warning in relaxed.warnings)


def test_the_prerequisites_warnings_come_with_the_plan():
    # The VM bridge goes where VMs run (site_workload_node_selector): not on an infra node.
    nodes = [*NODES, {"name": "infra1", "labels": {"node-role.kubernetes.io/infra": ""}, "memory": "32Gi", "taints": []}]
    plan = plan_of(nodes, site_vm_bridge_nic="eno2", site_vm_vlans="100",
                   site_vm_networks=[{"name": "net", "namespace": "vms", "vlan": 100}]).plan
    # Then the render's: standalone mode names the injector Deployment it leaves out.
    assert plan.problems == () and plan.warnings == (*plan.prereqs["warnings"], *plan.render["hco_warnings"])
    assert plan.prereqs["warnings"] and [w.split(" is not")[0] for w in plan.render["hco_warnings"]] == [
        "standalone mode: Deployment virt-network-resources-injector"]
