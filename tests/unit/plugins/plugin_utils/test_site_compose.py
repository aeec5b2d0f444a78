# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_values as site_values
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_compose import compose, for_removal, merge


def check(**provided):
    return site_values.normalize({"site_platform_version": "1.33", **provided})


def test_the_spec_gives_what_unset_flat_settings_would():
    result = check(site_hyperconverged_spec={"higherWorkloadDensity": {"memoryOvercommitPercentage": 200},
                                             "workloads": {"nodePlacement": {"nodeSelector": {"vm": "yes"}}}})
    hyperconverged, prereqs = compose(result, [])
    assert prereqs["swap"]["overcommit_percent"] == 200
    assert prereqs["swap"]["node_selector"] == {"vm": "yes"}
    assert hyperconverged["spec"]["workloads"] == {"nodePlacement": {"nodeSelector": {"vm": "yes"}}}
    assert "infra" not in hyperconverged["spec"]  # not given anywhere: HCO's default placement


def test_empty_nics_leave_their_sections_out():
    prereqs = compose(check(site_vm_bridge_nic="", site_sriov_nic=" ", site_migration_nic=""), [])[1]
    assert set(prereqs) == {"platform", "version", "hco_namespace", "nodes", "hyperconverged", "swap"}
    prereqs = compose(check(site_sriov_nic="ens1f0"), [])[1]
    assert prereqs["sriov"]["policies"][0]["nicSelector"] == {"pfNames": ["ens1f0"]}  # no vendor: any


def test_flat_placement_merges_under_the_spec():
    result = check(site_infra_node_selector={"infra": "yes"}, site_hyperconverged_spec={"infra": {"nodePlacement": {
        "tolerations": [{"key": "infra", "operator": "Exists"}]}}})
    spec = compose(result, [])[0]["spec"]
    assert spec["infra"]["nodePlacement"] == {"nodeSelector": {"infra": "yes"},
                                              "tolerations": [{"key": "infra", "operator": "Exists"}]}


def test_merge_is_recursive_and_leaves_its_inputs():
    base = {"a": {"b": 1, "c": 2}}
    assert merge(base, {"a": {"c": 3}, "d": 4}) == {"a": {"b": 1, "c": 3}, "d": 4}
    assert base == {"a": {"b": 1, "c": 2}}


def test_a_removal_keeps_the_vm_bridge_and_says_why():
    settings = check(site_vm_bridge_nic="eno2", site_vm_networks=[{"name": "n", "namespace": "vms", "vlan": 0}],
                     site_migration_nic="eno3", site_migration_range="10.9.0.0/24")
    spec = compose(settings, [])[1]
    removal, kept = for_removal(spec)
    assert "bridges" not in removal["networking"] and removal["networking"]["migration_network"]
    assert spec["networking"]["bridges"]   # the plan itself is left as it was
    assert len(kept) == 1 and kept[0].startswith("the VM bridge br1 ")
    assert for_removal(compose(check(site_vm_bridge_nic="eno2"), [])[1])[0].get("networking") is None
