# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_nodes import Host, nodes_of

WORKER = {"node-role.kubernetes.io/worker": ""}


def plan(*hosts, overcommit=150):
    return nodes_of(hosts, overcommit_percent=overcommit, workload_selector=WORKER)


def test_a_vm_node_without_memory_is_an_error_when_memory_is_overcommitted():
    nodes, problems = plan(Host("worker3", {"node_labels": WORKER}), Host("infra1", {"node_labels": {"infra": ""}}))
    assert len(problems) == 1 and problems[0].startswith("hostvars[worker3].node_memory: required")
    assert "memory" not in nodes[0]   # never read as zero
    assert plan(Host("worker3", {"node_labels": WORKER}), overcommit=100)[1] == []


def test_a_typo_of_a_node_fact_gets_a_suggestion_and_other_roles_variables_pass():
    facts = {"node_labels": WORKER, "node_memory": "64Gi", "node_memroy": "128Gi", "node_exporter_version": "1.8"}
    problems = plan(Host("worker3", facts))[1]
    assert problems == ["hostvars[worker3].node_memroy: not a node fact the site reads (did you mean node_memory?)"]


def test_wrong_fact_types_are_named():
    problems = plan(Host("w1", {"node_labels": ["worker"], "node_memory": "64 GB"}))[1]
    assert problems[0].startswith("hostvars[w1].node_labels: must be a mapping")
    assert problems[1].startswith("hostvars[w1].node_memory: '64 GB' is not a Kubernetes quantity")


def test_the_nodes_carry_what_the_inventory_says():
    nodes, problems = plan(Host("w1", {"node_labels": WORKER, "node_memory": "256Gi", "node_provider": "openstack",
                                       "node_taints": [{"key": "k", "effect": "NoSchedule"}]}))
    assert problems == []
    assert nodes == [{"name": "w1", "labels": WORKER, "memory": "256Gi", "provider": "openstack",
                      "taints": [{"key": "k", "effect": "NoSchedule"}]}]


def test_iommu_is_passed_only_when_the_inventory_says():
    nodes, problems = plan(Host("w1", {"node_labels": WORKER, "node_memory": "1Gi", "node_iommu": False}),
                           Host("w2", {"node_labels": WORKER, "node_memory": "1Gi"}),
                           Host("w3", {"node_labels": WORKER, "node_memory": "1Gi", "node_iommu": "off"}))
    assert nodes[0]["iommu"] is False and "iommu" not in nodes[1]
    assert problems == ["hostvars[w3].node_iommu: must be true or false, got 'off'"]
