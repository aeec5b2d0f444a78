# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""520 simulated nodes (two pools by label, taints, mixed memory; more than a page of 500): the nodes inventory lists
them page by page, and the site plans from them and runs against them in apply mode, its second run writing nothing.
bench/nodes.py times it."""

from __future__ import annotations

import json
import os
import pathlib
import re
import sys

import yaml
from conftest import LARGE
from harness import children
from test_hyperconverged_role import recap_changed
from test_k8s_apply import server_writes
from test_render_playbook import COLLECTIONS, ROOT, run_playbook

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.names import COLLECTION

SELECTORS = {"workload_node_selector": {"pool": "vm"}, "infra_node_selector": {"pool": "general"}}


def inventory(tmp_path: pathlib.Path, cluster) -> pathlib.Path:
    directory = tmp_path / "inventory"
    (directory / "group_vars").mkdir(parents=True, exist_ok=True)
    (directory / "cluster.nodes.yml").write_text(yaml.safe_dump({
        "plugin": "virtinfra.hyperconverged.nodes", "kubeconfig": str(cluster.kubeconfig), **SELECTORS}))
    (directory / "group_vars" / "all.yml").write_text(yaml.safe_dump({
        "site_kubeconfig": str(cluster.kubeconfig), "site_platform_version": "1.34", "site_overcommit_percent": 150,
        **{f"site_{name}": value for name, value in SELECTORS.items()}}))
    return directory


def test_the_inventory_lists_more_nodes_than_a_page_in_their_pools(large_cluster, tmp_path):
    source = inventory(tmp_path, large_cluster) / "cluster.nodes.yml"
    mark = large_cluster.audit_offset()
    done = children.run([str(pathlib.Path(sys.executable).with_name("ansible-inventory")), "-i", str(source),
                         "--list"], env={**os.environ, "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}, timeout=300)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    reported = json.loads(large_cluster.kubectl_run("get", "nodes", "-o", "json").stdout)["items"]
    assert len(listed["_meta"]["hostvars"]) == len(reported) == LARGE
    # The real server paged the plugin's answer (its user agent; kubectl's read above pages too): a first page of
    # 500, then the rest by its continue token.
    pages = [e["requestURI"] for e in large_cluster.audit_events(mark, "admin")
             if e["verb"] == "list" and e["objectRef"]["resource"] == "nodes"
             and e.get("userAgent", "").startswith(COLLECTION)]
    assert len(pages) == 2 and "limit=500" in pages[0] and "continue=" in pages[1], pages
    vm = sorted(n["metadata"]["name"] for n in reported if n["metadata"]["labels"].get("pool") == "vm")
    general = sorted(n["metadata"]["name"] for n in reported if n["metadata"]["labels"].get("pool") == "general")
    assert sorted(listed["workload_nodes"]["hosts"]) == vm and sorted(listed["infra_nodes"]["hosts"]) == general


def test_the_site_plans_from_more_nodes_than_a_page_and_its_second_run_writes_nothing(large_cluster, tmp_path):
    source = inventory(tmp_path, large_cluster)
    site = (ROOT / "playbooks" / "site.yml", "-i", str(source), "--limit", "localhost")
    written = large_cluster.audit_offset()
    first = run_playbook(*site)
    assert first.returncode == 0, first.stdout[-6000:] + first.stderr[-3000:]
    # The premise of the second run's "nothing": the first one wrote the site's objects.
    assert recap_changed(first.stdout) > 0 and len(server_writes(large_cluster, written)) >= 10
    assert "nodes: planned from the cluster" in first.stdout
    # Every VM node's swap is sized from its own memory, which the Nodes report: the pool's four sizes.
    reported = json.loads(large_cluster.kubectl_run("get", "nodes", "-l", "pool=vm", "-o", "json").stdout)["items"]
    swap = re.search(r'"swap plan: ([^"]*)"', first.stdout)
    assert swap and f"; {len(reported)} node(s): " in swap.group(1), swap
    assert len(re.findall(r"\d+ MiB on ", swap.group(1))) == len({n["status"]["capacity"]["memory"] for n in reported})
    mark = large_cluster.audit_offset()
    again = run_playbook(*site)
    assert again.returncode == 0, again.stdout[-6000:]
    assert recap_changed(again.stdout) == 0
    assert server_writes(large_cluster, mark) == []
