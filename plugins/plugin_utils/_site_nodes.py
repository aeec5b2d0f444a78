# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nodes the plan is computed for: the inventory's hosts and their ``node_*`` facts, or, where the cluster's
Nodes are known (apply mode, a snapshot), those Nodes, each difference from the inventory named with both values;
the problems of the facts are named ``hostvars[HOST].VARIABLE``.

A fact that is missing is never read as zero: a node that runs VMs needs ``node_memory`` when memory is overcommitted
(its swap is sized from it), and a ``node_*`` variable that is close to one the site reads is taken for a typo (a
host's ``node_memroy`` would otherwise fall back to its group's ``node_memory`` without a word). PRIVATE; no Ansible
imports.
"""

from __future__ import annotations

import dataclasses
import difflib
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.golang import GoSyntaxError, quantity_value
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.node_memory import same_machine
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.nodes import Node
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import node_list, selector_matches

FACTS = ("node_memory", "node_labels", "node_taints", "node_provider", "node_iommu", "node_architecture")
# What the nodes inventory sets besides: known names, never taken for a typo of one of FACTS.
INVENTORY_FACTS = ("node_allocatable", "node_capacity", "node_addresses")


def holds_template(value: t.Any) -> bool:
    """Whether a variable's value holds Jinja anywhere (a string with ``{{``, ``{%`` or ``{#``)."""
    if isinstance(value, str):
        return "{{" in value or "{%" in value or "{#" in value
    if isinstance(value, t.Mapping):
        return any(holds_template(key) or holds_template(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(holds_template(item) for item in value)
    return False


@dataclasses.dataclass(frozen=True)
class Host:
    name: str
    # The host's node_* variables (its own and its groups'): the values of FACTS templated, the others' None.
    facts: t.Mapping[str, t.Any]


def _typos(host: Host) -> list[str]:
    problems = []
    for name in sorted(host.facts):
        if name in FACTS or name in INVENTORY_FACTS:
            continue
        close = difflib.get_close_matches(name, FACTS, n=1, cutoff=0.8)
        if close:  # other node_* names (node_exporter_version) belong to other roles
            problems.append(f"hostvars[{host.name}].{name}: not a node fact the site reads (did you mean "
                            f"{close[0]}?)")
    return problems


def _memory(host: Host) -> tuple[str | None, list[str]]:
    memory = host.facts.get("node_memory")
    if memory is None or (isinstance(memory, str) and not memory.strip()):
        return None, []
    try:
        quantity_value(memory)
    except (GoSyntaxError, ArithmeticError):
        return None, [(f"hostvars[{host.name}].node_memory: {memory!r} is not a Kubernetes quantity (as "
                       f"`kubectl get node {host.name} -o jsonpath={{.status.capacity.memory}}` prints it, e.g. "
                       "263856120Ki or 256Gi)")]
    return str(memory), []


def nodes_of(hosts: t.Sequence[Host], *, overcommit_percent: int, workload_selector: t.Mapping[str, str],
             live: t.Sequence[Node] | None = None, prefer: str = "cluster",
             source: str = "the cluster") -> tuple[list[dict[str, t.Any]], list[str], list[str]]:
    """(the nodes for the plan, the problems of their facts, the warnings): the inventory's hosts, or with ``live``
    the Nodes ``source`` gives, the inventory's facts compared with them (``prefer``: which wins)."""
    inventory, problems = _inventory_nodes(hosts, overcommit_percent=overcommit_percent,
                                           workload_selector=workload_selector, required=live is None)
    if live is None:
        return inventory, problems, []
    nodes, warnings = _with_live(inventory, {host.name: host for host in hosts}, live, prefer, source)
    return nodes, problems, warnings


def _inventory_nodes(hosts: t.Sequence[Host], *, overcommit_percent: int, workload_selector: t.Mapping[str, str],
                     required: bool) -> tuple[list[dict[str, t.Any]], list[str]]:
    """The hosts as nodes, and the problems of their facts (``required``: node_memory where swap is sized from it,
    as no Node gives it)."""
    nodes, problems = [], []
    for host in hosts:
        problems += _typos(host)
        labels = host.facts.get("node_labels") or {}
        if not isinstance(labels, dict):
            problems.append(f"hostvars[{host.name}].node_labels: must be a mapping of label keys to values, as "
                            "`kubectl get node -o yaml` lists them under metadata.labels")
            labels = {}
        node: dict[str, t.Any] = {"name": host.name, "labels": labels, "taints": host.facts.get("node_taints") or []}
        memory, bad = _memory(host)
        problems += bad
        if memory is not None:
            node["memory"] = memory
        elif required and not bad and overcommit_percent > 100 and selector_matches(workload_selector, labels):
            problems.append(f"hostvars[{host.name}].node_memory: required: {host.name} runs VMs (its node_labels "
                            f"match site_workload_node_selector) and memory is overcommitted to "
                            f"{overcommit_percent} %, so its swap is sized from its memory (e.g. node_memory: 256Gi)")
        if host.facts.get("node_provider"):  # a virtual platform changes what SR-IOV can select there
            node["provider"] = str(host.facts["node_provider"])
        iommu = host.facts.get("node_iommu")
        if isinstance(iommu, bool):   # known off: SR-IOV with vfio-pci reboots the node (a warning names it)
            node["iommu"] = iommu
        elif iommu is not None:
            problems.append(f"hostvars[{host.name}].node_iommu: must be true or false, got {iommu!r}")
        if host.facts.get("node_architecture"):
            node["architecture"] = str(host.facts["node_architecture"])
        nodes.append(node)
    return nodes, problems


def _differences(given: t.Mapping[str, t.Any], live: Node) -> list[tuple[str, t.Any, t.Any]]:
    """(fact, the inventory's value, the Node's) for each fact the inventory gives that the Node contradicts: a label
    it lacks or holds with another value, other taints, memory of another machine (node_memory.same_machine),
    another architecture or provider."""
    found: list[tuple[str, t.Any, t.Any]] = []
    labels = given.get("labels") or {}
    wrong = {key: value for key, value in labels.items() if live.labels.get(key) != str(value)}
    if wrong:
        found.append(("node_labels", wrong, {key: live.labels.get(key) for key in wrong}))
    if "node_taints" in given.get("given", ()):
        def taint_set(taints: t.Iterable[t.Mapping[str, t.Any]]) -> set[tuple[str, str, str]]:
            return {(str(x.get("key") or ""), str(x.get("value") or ""), str(x.get("effect") or "")) for x in taints}
        if taint_set(given.get("taints") or []) != taint_set(live.taints):
            found.append(("node_taints", given.get("taints") or [], [dict(taint) for taint in live.taints]))
    memory = given.get("memory")
    if memory is not None and live.memory is not None and not same_machine(memory, live.memory):
        found.append(("node_memory", memory, live.memory))
    for fact, key, value in (("node_architecture", "architecture", live.architecture),
                             ("node_provider", "provider", live.provider)):
        if given.get(key) and value and given[key] != value:
            found.append((fact, given[key], value))
    return found


def _with_live(inventory: list[dict[str, t.Any]], hosts: t.Mapping[str, Host], live: t.Sequence[Node], prefer: str,
               source: str) -> tuple[list[dict[str, t.Any]], list[str]]:
    """The Nodes as the plan's nodes, with what only the inventory knows (node_iommu) and, with ``prefer:
    inventory``, the inventory's values where they differ; a warning for each host whose facts differ, for the
    hosts no Node has and for the Nodes no host has."""
    given = {node["name"]: {**node, "given": set(hosts[node["name"]].facts) if node["name"] in hosts else set()}
             for node in inventory}
    by_name = {node.name: node for node in live}
    warnings = []
    nodes = []
    for node in live:
        planned = node.planned()
        facts = given.get(node.name)
        if facts is not None:
            differences = _differences(facts, node)
            if differences:
                winner = ("the inventory's (site_node_facts: inventory)" if prefer == "inventory"
                          else "the Node's (site_node_facts: inventory would keep the inventory's)")
                said = "; ".join(f"{fact} is {mine!r} in the inventory, {theirs!r} on the Node" for fact, mine, theirs
                                 in differences)
                warnings.append(f"hostvars[{node.name}]: {said} ({source}): planned with {winner}")
                if prefer == "inventory":
                    planned.update(_inventory_values(facts, differences, planned))
            if "iommu" in facts:
                planned["iommu"] = facts["iommu"]
        nodes.append(planned)
    missing = sorted(name for name in given if name not in by_name)
    if missing:
        # A typo of a host name is close to a Node no host names.
        unnamed = [node.name for node in live if node.name not in given]
        close = {name: difflib.get_close_matches(name, unnamed, n=1, cutoff=0.8) for name in missing}
        named = [f"{name} (did you mean {close[name][0]}?)" if close[name] else name for name in missing]
        warnings.append(f"hostvars: {node_list(named)} in kubevirt_nodes but no Node of that name in {source}: not "
                        "planned for (the host roles still run there)")
    extra = [node.name for node in live if node.name not in given]
    if extra and given:
        warnings.append(f"Nodes {node_list(extra)} in {source} but not in kubevirt_nodes: planned from the Nodes (the "
                        "host roles - preflight, swap, local storage - do not run there)")
    return nodes, warnings


def _inventory_values(facts: t.Mapping[str, t.Any], differences: t.Sequence[tuple[str, t.Any, t.Any]],
                      planned: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """The planned node's values the inventory overrides (site_node_facts: inventory)."""
    keys = {"node_labels": "labels", "node_taints": "taints", "node_memory": "memory",
            "node_architecture": "architecture", "node_provider": "provider"}
    values: dict[str, t.Any] = {}
    for fact, _mine, _theirs in differences:
        key = keys[fact]
        values[key] = {**planned["labels"], **facts["labels"]} if key == "labels" else facts[key]
    return values
