# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nodes inventory's hosts: each Node as a host with its groups and the facts the site plans from. Plain data
(what the inventory cache stores). PRIVATE; no Ansible imports."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.nodes import Node
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import is_control_plane, selector_matches

# The site playbook's groups: it prepares kubevirt_nodes; infra_nodes and workload_nodes are its children.
GROUPS = ("kubevirt_nodes", "infra_nodes", "workload_nodes")


def host_vars(node: Node, address: str) -> dict[str, t.Any]:
    """The host's variables: the node_* facts the site reads, named as the site reads them."""
    facts: dict[str, t.Any] = {
        "node_labels": dict(node.labels), "node_taints": [dict(taint) for taint in node.taints],
        "node_architecture": node.architecture, "node_allocatable": dict(node.allocatable),
        "node_capacity": dict(node.capacity), "node_addresses": {},
    }
    for type_, value in node.addresses:
        facts["node_addresses"].setdefault(type_, value)
    if node.memory is not None:
        facts["node_memory"] = node.memory
    if node.provider:
        facts["node_provider"] = node.provider
    if node.address(address):
        facts["ansible_host"] = node.address(address)
    return facts


def groups_of(node: Node, infra_selector: t.Mapping[str, str], workload_selector: t.Mapping[str, str]) -> list[str]:
    """infra_nodes by the infra selector (empty: the control-plane Nodes), workload_nodes by the workload selector."""
    labels = node.labels
    groups = []
    if selector_matches(infra_selector, labels) if infra_selector else is_control_plane({"labels": labels}):
        groups.append("infra_nodes")
    if selector_matches(workload_selector, labels):
        groups.append("workload_nodes")
    return groups


def hosts_of(nodes: t.Iterable[Node], *, address: str, infra_selector: t.Mapping[str, str],
             workload_selector: t.Mapping[str, str]) -> list[dict[str, t.Any]]:
    return [{"name": node.name, "groups": groups_of(node, infra_selector, workload_selector),
             "vars": host_vars(node, address)} for node in nodes]
