# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A large site's Nodes for kwok: three tainted control-plane nodes, then two pools by label - general workers and
VM workers (``pool: vm``), a quarter of these tainted for VMs only - with mixed memory sizes, as a 500-node cluster
reports them. Shared by the scale tests and bench/nodes.py."""

from __future__ import annotations

import typing as t

try:
    from harness.control_plane import fake_node
except ImportError:   # run from bench/ with tests/ on sys.path as "harness"'s parent
    from control_plane import fake_node  # type: ignore[no-redef,import-not-found]

CONTROL_PLANE = {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": ""}
WORKER = {"node-role.kubernetes.io/worker": ""}
VM_POOL = {"pool": "vm"}
VM_TAINT = {"key": "dedicated", "value": "vm", "effect": "NoSchedule"}
MEMORY = ("256Gi", "384Gi", "512Gi", "263856120Ki")


def pools(count: int) -> list[dict[str, t.Any]]:
    """``count`` Nodes (at least 3): the control plane, then the general pool and the VM pool, half each."""
    nodes = [fake_node(f"cp{i}", labels=CONTROL_PLANE, memory="64Gi", address=f"10.0.0.{i + 1}",
                       taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}])
             for i in range(3)]
    for i in range(count - 3):
        vm = i % 2 == 1
        labels = {**WORKER, **(VM_POOL if vm else {"pool": "general"})}
        taints = [VM_TAINT] if vm and i % 8 == 1 else []
        nodes.append(fake_node(f"{'vm' if vm else 'gen'}-{i:04d}", labels=labels, taints=taints,
                               memory=MEMORY[i % len(MEMORY)], address=f"10.{1 + i // 250}.{i % 250}.1"))
    return nodes
