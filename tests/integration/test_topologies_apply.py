# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every example topology applied by the site to a cluster of its own, then rerun without a write (the compact
OpenShift cluster is in test_topologies.py). Each cluster runs the real controllers and has the topology's machines as
kwok Nodes, registered as the inventory describes them: the site plans from the live Nodes, which must agree with the
inventory (no difference named). A file of its own, so that pytest-xdist runs it beside that one."""

from __future__ import annotations

import json
import os
import pathlib
import sys

import pytest
from conftest import _running_control_plane
from harness import children
from harness.control_plane import fake_node
from test_hyperconverged_role import recap_changed
from test_k8s_apply import server_writes
from test_render_playbook import COLLECTIONS, ROOT, run_playbook
from test_topologies import TOPOLOGIES


@pytest.mark.parametrize("inventory", ["single-node-openshift.yml", "two-node-arbiter.yml", "dedicated-pools.yml",
                                       "kkp.yml"])
def test_every_topology_converges_against_the_api_server_and_reruns_without_a_write(inventory, tmp_path_factory):
    """Each on a cluster of its own (built and started for it), with the topology's nodes."""
    with _running_control_plane(tmp_path_factory, controllers=True, nodes=nodes_of(TOPOLOGIES / inventory)) as plane:
        def site():
            return run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(TOPOLOGIES / inventory),
                                "-i", "localhost,", "--limit", "localhost",
                                "-e", f"ansible_python_interpreter={sys.executable}",
                                "-e", f"site_kubeconfig={plane.kubeconfig}")
        first = site()
        assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
        assert "apply mode (" in first.stdout and "0 prerequisite and 0" not in first.stdout
        assert "nodes: planned from the cluster" in first.stdout
        assert "in the inventory," not in first.stdout + first.stderr   # no fact differs from its Node
        mark = plane.audit_offset()
        again = site()
        assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout[-4000:]
        assert server_writes(plane, mark) == []


def nodes_of(inventory: pathlib.Path) -> list[dict]:
    """The inventory's kubevirt_nodes as a kubelet would register them: the labels, taints and memory its node_*
    facts give (read with ansible-inventory, as the site reads them: group and host variables merged)."""
    done = children.run([str(pathlib.Path(sys.executable).with_name("ansible-inventory")), "-i", str(inventory),
                         "--list", "--export"], env={**os.environ, "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)},
                        timeout=120)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)

    def hosts(group: str) -> list[str]:
        entry = listed.get(group) or {}
        return [*entry.get("hosts", []), *[h for child in entry.get("children", []) for h in hosts(child)]]

    nodes = []
    for index, name in enumerate(dict.fromkeys(hosts("kubevirt_nodes"))):
        facts = {**_group_vars(listed, name), **listed["_meta"]["hostvars"].get(name, {})}
        nodes.append(fake_node(name, labels=facts.get("node_labels") or {}, taints=facts.get("node_taints") or [],
                               memory=facts.get("node_memory") or "64Gi", address=f"192.0.2.{100 + index}"))
    return nodes


def _group_vars(listed: dict, host: str) -> dict:
    """With --export, group variables stay on their groups: the host's, outermost group first."""
    found: dict = {}

    def walk(group: str, trail: list[str]) -> None:
        entry = listed.get(group) or {}
        if host in entry.get("hosts", []):
            for name in [*trail, group]:
                found.update((listed.get(name) or {}).get("vars") or {})
        for child in entry.get("children", []):
            walk(child, [*trail, group])

    walk("all", [])
    return found
