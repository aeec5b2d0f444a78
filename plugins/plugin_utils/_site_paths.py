# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A problem the prerequisites or the engine find in the plan, named by the variable the user wrote.

The site composes the node-prerequisites spec from the flat settings and the inventory's hosts (_site_compose), so
each field of that spec comes from one variable: ``networking.bridges[0].networks[1].vlan`` is
``site_vm_networks[1].vlan``, ``nodes[4].memory`` is ``hostvars[worker3].node_memory``. One table maps them; the
first prefix that matches wins. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import re
import typing as t

# (prefix of the spec path, the variable it comes from). Longest prefixes first.
PLAN_PATHS: tuple[tuple[str, str], ...] = (
    ("networking.bridges[0].networks", "site_vm_networks"),
    ("networking.bridges[0].vlans", "site_vm_vlans"),
    ("networking.bridges[0].ports[0]", "site_vm_bridge_nic"),
    ("networking.bridges[0].ports", "site_vm_bridge_nic"),
    ("networking.bridges[0].node_selector", "site_workload_node_selector"),
    ("networking.bridges[0].name", "site_vm_bridge"),
    ("networking.bridges[0]", "site_vm_bridge_nic"),
    ("networking.migration_network.nic", "site_migration_nic"),
    ("networking.migration_network.range", "site_migration_range"),
    ("networking.migration_network", "site_migration_range"),
    ("networking.node_networks", "site_node_networks"),
    ("sriov.policies[0].nicSelector.pfNames[0]", "site_sriov_nic"),
    ("sriov.policies[0].nicSelector.pfNames", "site_sriov_nic"),
    ("sriov.policies[0].nicSelector.vendor", "site_sriov_vendor"),
    ("sriov.policies[0].numVfs", "site_sriov_num_vfs"),
    ("sriov.policies[0].resourceName", "site_sriov_resource"),
    ("sriov.policies[0].nodeSelector", "site_workload_node_selector"),
    ("sriov.policies[0]", "site_sriov_nic"),
    ("sriov.networks[0].networkNamespace", "site_sriov_network_namespace"),
    ("sriov.networks[0].resourceName", "site_sriov_resource"),
    ("sriov", "site_sriov_nic"),
    ("storage.provisioner.storage_pools", "site_hpp_pools"),
    ("storage.hyperconverged.spec", "site_hyperconverged_spec"),
    ("storage", "site_hpp_pools"),
    ("swap.overcommit_percent", "site_overcommit_percent"),
    ("swap.node_selector", "site_workload_node_selector"),
    ("swap.encrypt", "site_swap_encrypt"),
    ("swap.pool", "site_swap_pool"),
    ("swap", "site_overcommit_percent"),
    ("hyperconverged.spec", "site_hyperconverged_spec"),
    ("spec", "site_hyperconverged_spec"),
    ("platform", "site_platform"),
    ("version", "site_platform_version"),
    ("hco_namespace", "site_hco_namespace"),
)
_COMPILED = tuple((re.compile(re.escape(prefix) + r"(?=$|[.\[])"), name) for prefix, name in PLAN_PATHS)
_SHARED = re.compile(r"^(?:swap|networking|sriov|storage|olm)\.((?:platform|version|hco_namespace|hyperconverged)\b.*)\Z")
_NODE = re.compile(r"^(?:\w+\.)?nodes\[(\d+)\](?:\.(\w+))?(.*)\Z")   # a section's nodes are the site's too
NODE_FACTS = {"memory": "node_memory", "labels": "node_labels", "taints": "node_taints", "provider": "node_provider",
              "iommu": "node_iommu"}


def user_path(plan_path: str, nodes: t.Sequence[t.Mapping[str, t.Any]]) -> str:
    """The variable (and the part of it) a path of the composed plan comes from; the plan's own path where no
    variable gives it (so nothing is hidden)."""
    shared = _SHARED.match(plan_path)
    if shared:   # a section's copy of a key all sections share
        return user_path(shared.group(1), nodes)
    node = _NODE.match(plan_path)
    if node:
        index, fact, rest = int(node.group(1)), node.group(2), node.group(3)
        host = nodes[index]["name"] if index < len(nodes) else f"nodes[{index}]"
        return f"hostvars[{host}]" + (f".{NODE_FACTS.get(fact, fact)}{rest}" if fact else "")
    for pattern, name in _COMPILED:
        match = pattern.match(plan_path)
        if match:
            return name + plan_path[match.end():]
    return f"{plan_path} (in the plan composed from the site settings)"


def section(plan_path: str) -> str:
    """The part of the plan a path belongs to: a top-level section, or one of networking's (the bridge, the
    migration network)."""
    parts = re.split(r"[.\[]", plan_path, maxsplit=2)
    return ".".join(parts[:2]) if parts[0] == "networking" and len(parts) > 1 else parts[0]


def sections_of(names: t.Collection[str]) -> set[str]:
    """The sections the settings ``names`` feed."""
    return {section(prefix) for prefix, name in PLAN_PATHS if name in names}


def in_user_words(errors: t.Iterable[tuple[str, str]], nodes: t.Sequence[t.Mapping[str, t.Any]]) -> list[str]:
    """Each (plan path, message) as ``variable: message``; the same message about the same variable once (one
    selector feeds swap, the bridge and SR-IOV: one bad key is one problem)."""
    seen: dict[str, None] = {}
    for plan_path, message in errors:
        seen.setdefault(f"{user_path(plan_path, nodes)}: {message}", None)
    return list(seen)
