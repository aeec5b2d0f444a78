# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.nodes import node_of
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_nodes import Host, nodes_of

WORKER = {"node-role.kubernetes.io/worker": ""}


def plan(*hosts, overcommit=150):
    nodes, problems, warnings = nodes_of(hosts, overcommit_percent=overcommit, workload_selector=WORKER)
    assert warnings == []   # nothing to compare with
    return nodes, problems


def node(name, labels=None, memory="263856120Ki", taints=(), arch="amd64", provider=""):
    """A Node as the API server returns it (written here from the Node schema, not from the code under test)."""
    return node_of({"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
                    "spec": {"taints": list(taints), **({"providerID": provider} if provider else {})},
                    "status": {"capacity": {"memory": memory, "cpu": "64"}, "allocatable": {"memory": "250Gi"},
                               "nodeInfo": {"architecture": arch},
                               "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}]}}, name)


def live(hosts, nodes, prefer="cluster", overcommit=150):
    return nodes_of(hosts, overcommit_percent=overcommit, workload_selector=WORKER, live=nodes, prefer=prefer,
                    source="the cluster")


def test_the_live_nodes_are_planned_and_node_memory_is_optional():
    nodes, problems, warnings = live([Host("w1", {"node_labels": WORKER})], [node("w1", WORKER)])
    assert problems == [] and warnings == []
    assert nodes == [{"name": "w1", "labels": {"kubernetes.io/hostname": "w1", **WORKER}, "taints": [],
                      "memory": "263856120Ki", "architecture": "amd64"}]


def test_each_difference_names_both_values_and_the_cluster_wins_by_default():
    hosts = [Host("w1", {"node_labels": {**WORKER, "pool": "a"}, "node_memory": "512Gi",
                         "node_taints": [{"key": "k", "effect": "NoSchedule"}]})]
    nodes, problems, warnings = live(hosts, [node("w1", {**WORKER, "pool": "b"})])
    assert problems == [] and len(warnings) == 1
    assert "node_labels is {'pool': 'a'} in the inventory, {'pool': 'b'} on the Node" in warnings[0]
    assert "node_memory is '512Gi' in the inventory, '263856120Ki' on the Node" in warnings[0]
    assert "node_taints is [{'key': 'k', 'effect': 'NoSchedule'}] in the inventory, [] on the Node" in warnings[0]
    assert warnings[0].startswith("hostvars[w1]: ") and "planned with the Node's" in warnings[0]
    assert nodes[0]["labels"]["pool"] == "b" and nodes[0]["memory"] == "263856120Ki" and nodes[0]["taints"] == []


def test_the_inventory_wins_with_site_node_facts_inventory_and_still_warns():
    hosts = [Host("w1", {"node_labels": {**WORKER, "pool": "a"}, "node_memory": "512Gi"})]
    nodes, _problems, warnings = live(hosts, [node("w1", {**WORKER, "pool": "b", "zone": "z1"})], prefer="inventory")
    assert len(warnings) == 1 and "planned with the inventory's (site_node_facts: inventory)" in warnings[0]
    assert nodes[0]["labels"]["pool"] == "a" and nodes[0]["labels"]["zone"] == "z1"   # the Node's others stay
    assert nodes[0]["memory"] == "512Gi"


def test_a_machine_sold_with_the_inventorys_size_is_no_difference_and_is_planned_from_the_node():
    # 256 GiB installed, 263856120Ki reported by the kubelet (the kernel's MemTotal): the same machine.
    for prefer in ("cluster", "inventory"):
        nodes, _problems, warnings = live([Host("w1", {"node_labels": WORKER, "node_memory": "256Gi"})],
                                          [node("w1", WORKER, memory="263856120Ki")], prefer=prefer)
        assert warnings == [] and nodes[0]["memory"] == "263856120Ki", prefer


def test_equal_quantities_in_other_units_are_no_difference():
    _nodes, _problems, warnings = live([Host("w1", {"node_labels": WORKER, "node_memory": "256Gi"})],
                                       [node("w1", WORKER, memory="268435456Ki")])
    assert warnings == []


def test_hosts_without_a_node_and_nodes_without_a_host_are_named():
    hosts = [Host("worker1", {"node_labels": WORKER}), Host("wokrer2", {"node_labels": WORKER})]
    nodes, _problems, warnings = live(hosts, [node("worker1", WORKER), node("worker2", WORKER), node("cp1")])
    assert [n["name"] for n in nodes] == ["worker1", "worker2", "cp1"]
    assert warnings[0].startswith("hostvars: wokrer2 (did you mean worker2?) in kubevirt_nodes but no Node")
    assert warnings[1].startswith("Nodes worker2, cp1 in the cluster but not in kubevirt_nodes")
    # Only a Node no host names is suggested: worker1 has its host.
    assert live([Host("worker1", {}), Host("worker11", {})], [node("worker1")])[2][0].startswith(
        "hostvars: worker11 in kubevirt_nodes")


def test_iommu_comes_from_the_inventory_with_live_nodes():
    nodes, _problems, _warnings = live([Host("w1", {"node_labels": WORKER, "node_iommu": False})], [node("w1", WORKER)])
    assert nodes[0]["iommu"] is False


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
