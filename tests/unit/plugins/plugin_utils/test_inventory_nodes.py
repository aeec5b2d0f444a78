# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.nodes import node_of
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._inventory_nodes import hosts_of

WORKER = {"node-role.kubernetes.io/worker": ""}
CONTROL_PLANE = {"node-role.kubernetes.io/control-plane": ""}


def node(name, labels, addresses=(("InternalIP", "10.0.0.1"),)):
    return node_of({"kind": "Node", "metadata": {"name": name, "labels": labels},
                    "status": {"capacity": {"memory": "64Gi"}, "allocatable": {"memory": "60Gi", "cpu": "15"},
                               "nodeInfo": {"architecture": "amd64"},
                               "addresses": [{"type": k, "address": v} for k, v in addresses]}}, name)


def test_groups_follow_the_sites_selectors_and_an_empty_infra_selector_means_the_control_plane():
    nodes = [node("cp1", CONTROL_PLANE), node("w1", WORKER), node("gpu1", {"pool": "gpu"})]
    hosts = {h["name"]: h["groups"] for h in hosts_of(nodes, address="InternalIP", infra_selector={},
                                                      workload_selector=WORKER)}
    assert hosts == {"cp1": ["infra_nodes"], "w1": ["workload_nodes"], "gpu1": []}
    hosts = {h["name"]: h["groups"] for h in hosts_of(nodes, address="InternalIP", infra_selector={"pool": "gpu"},
                                                      workload_selector={"pool": "gpu"})}
    assert hosts["gpu1"] == ["infra_nodes", "workload_nodes"] and hosts["cp1"] == []


def test_host_vars_are_the_facts_the_site_reads_and_the_chosen_address():
    nodes = [node("w1", WORKER, (("InternalIP", "10.0.0.1"), ("ExternalIP", "203.0.113.1"))), node("w2", WORKER)]
    first, second = hosts_of(nodes, address="ExternalIP", infra_selector={}, workload_selector=WORKER)
    assert first["vars"]["ansible_host"] == "203.0.113.1" and "ansible_host" not in second["vars"]
    assert first["vars"]["node_memory"] == "64Gi" and first["vars"]["node_architecture"] == "amd64"
    assert first["vars"]["node_allocatable"] == {"memory": "60Gi", "cpu": "15"}
    assert first["vars"]["node_addresses"] == {"InternalIP": "10.0.0.1", "ExternalIP": "203.0.113.1"}
    assert first["vars"]["node_labels"] == WORKER and first["vars"]["node_taints"] == []
