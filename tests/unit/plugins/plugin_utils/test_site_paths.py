# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_paths import in_user_words, section, sections_of, user_path

NODES = [{"name": "infra1"}, {"name": "worker3"}]


@pytest.mark.parametrize(("plan_path", "variable"), [
    ("networking.bridges[0].networks[1].vlan", "site_vm_networks[1].vlan"),
    ("networking.bridges[0].vlans[0]", "site_vm_vlans[0]"),
    ("networking.bridges[0].ports[0]", "site_vm_bridge_nic"),
    ("networking.bridges[0].node_selector.-bad/x", "site_workload_node_selector.-bad/x"),
    ("networking.bridges[0].name", "site_vm_bridge"),
    ("networking.migration_network.range", "site_migration_range"),
    ("sriov.policies[0].nicSelector.pfNames[0]", "site_sriov_nic"),
    ("sriov.policies[0].numVfs", "site_sriov_num_vfs"),
    ("sriov.networks[0].networkNamespace", "site_sriov_network_namespace"),
    ("storage.provisioner.storage_pools[0].path", "site_hpp_pools[0].path"),
    ("swap.node_selector", "site_workload_node_selector"),
    ("nodes[1].memory", "hostvars[worker3].node_memory"),
    ("swap.nodes[0].labels.a", "hostvars[infra1].node_labels.a"),
    ("nodes[1]", "hostvars[worker3]"),
    ("spec.liveMigrationConfig.parallelMigrationsPerCluster",
     "site_hyperconverged_spec.liveMigrationConfig.parallelMigrationsPerCluster"),
    ("version", "site_platform_version"),
    ("swap.version", "site_platform_version"),
    ("sriov.hyperconverged.spec.x", "site_hyperconverged_spec.x"),
    ("versionless", "versionless (in the plan composed from the site settings)"),
])
def test_each_plan_path_is_named_by_the_variable_it_comes_from(plan_path, variable):
    assert user_path(plan_path, NODES) == variable


def test_one_selector_refused_in_three_sections_is_one_problem():
    errors = [("swap.node_selector.-x", "is not a valid label key"),
              ("networking.bridges[0].node_selector.-x", "is not a valid label key"),
              ("sriov.policies[0].nodeSelector.-x", "is not a valid label key")]
    assert in_user_words(errors, NODES) == ["site_workload_node_selector.-x: is not a valid label key"]


def test_the_sections_a_setting_feeds():
    assert sections_of({"site_vm_vlans"}) == {"networking.bridges"}
    assert sections_of({"site_workload_node_selector"}) == {"networking.bridges", "sriov", "swap"}
    assert section("networking.bridges[0].networks[1].vlan") == "networking.bridges"
    assert section("storage.provisioner.storage_pools[0]") == "storage"
