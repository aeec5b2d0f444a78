# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The inventory's hosts as the nodes the plan is computed for, and the problems of their ``node_*`` facts, each
named ``hostvars[HOST].VARIABLE``.

A fact that is missing is never read as zero: a node that runs VMs needs ``node_memory`` when memory is overcommitted
(its swap is sized from it), and a ``node_*`` variable that is close to one the site reads is taken for a typo (a
host's ``node_memroy`` would otherwise fall back to its group's ``node_memory`` without a word). PRIVATE; no Ansible
imports.
"""

from __future__ import annotations

import dataclasses
import difflib
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.golang import quantity_value
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import selector_matches

FACTS = ("node_memory", "node_labels", "node_taints", "node_provider", "node_iommu")


@dataclasses.dataclass(frozen=True)
class Host:
    name: str
    facts: t.Mapping[str, t.Any]  # the host's node_* variables (its own and its groups'), templated


def _typos(host: Host) -> list[str]:
    problems = []
    for name in sorted(host.facts):
        if name in FACTS:
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
    except (ValueError, ArithmeticError, TypeError):
        return None, [(f"hostvars[{host.name}].node_memory: {memory!r} is not a Kubernetes quantity (as "
                       f"`kubectl get node {host.name} -o jsonpath={{.status.capacity.memory}}` prints it, e.g. "
                       "263856120Ki or 256Gi)")]
    return str(memory), []


def nodes_of(hosts: t.Sequence[Host], *, overcommit_percent: int,
             workload_selector: t.Mapping[str, str]) -> tuple[list[dict[str, t.Any]], list[str]]:
    """(the nodes for the plan, the problems of their facts)."""
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
        elif not bad and overcommit_percent > 100 and selector_matches(workload_selector, labels):
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
        nodes.append(node)
    return nodes, problems
