# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_values as site_values
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_compose import compose
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_plan import plan_problems

WORKER = {"node-role.kubernetes.io/worker": ""}
NODES = [{"name": "worker1", "labels": WORKER, "memory": "64Gi", "taints": []}]


def problems_of(**provided):
    settings = site_values.normalize({"site_platform_version": "1.33", **provided})
    assert settings.errors == ()
    hyperconverged, spec = compose(settings, NODES)
    return plan_problems(site_values.effective(settings), hyperconverged, spec, NODES)


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
    assert plan_problems(values, hyperconverged, spec, NODES)[0].startswith("site_vm_networks[0].vlan: VLAN 100")
    assert plan_problems(values, hyperconverged, spec, NODES, refused={"site_vm_vlans"}) == []
    assert plan_problems(values, hyperconverged, spec, NODES, refused={"site_platform_version"}) == []
