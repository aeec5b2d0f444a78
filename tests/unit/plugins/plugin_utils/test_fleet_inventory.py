# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet inventory's clusters from folders and kubeconfig contexts, and every mistake in them named at once."""

from __future__ import annotations

import json

import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import Refused
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.kubeconfig import contexts
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _fleet_inventory as fleet_inventory


def load(path):
    with open(path, encoding="utf-8") as stream:
        text = stream.read()
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise Refused(f"{path}: not valid YAML ({exc})") from None


def folder(root, name, **files):
    path = root / name
    path.mkdir(parents=True)
    for file_name, text in files.items():
        (path / file_name.replace("_", ".", 1) if file_name != "kubeconfig" else path / file_name).write_text(text)
    return path


def kubeconfig(path, names):
    path.write_text(json.dumps({
        "clusters": [{"name": n, "cluster": {"server": f"https://{n}.example.com:6443"}} for n in names],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": n, "context": {"cluster": n, "user": "u"}} for n in names]}))
    return str(path)


def test_a_folder_per_cluster_with_its_settings_nodes_and_credential(tmp_path):
    folder(tmp_path, "east", cluster_yml="site_release: '1.16'\n",
           nodes_yml="hosts:\n  east-w1: {node_memory: 263856120Ki}\nvars: {ansible_user: core}\n",
           kubeconfig="{}")
    folder(tmp_path, "west", cluster_yml="site_platform: openshift\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text("not a cluster")
    clusters, problems = fleet_inventory.from_folders(str(tmp_path), load)
    assert problems == []
    fleet = fleet_inventory.fleet(clusters, [], problems)
    hosts = {host["name"]: host for host in fleet_inventory.hosts(fleet)}
    assert sorted(hosts) == ["east", "east-w1", "west"]
    assert hosts["east"]["groups"] == ["kubevirt_clusters"]
    assert hosts["east"]["vars"] == {
        "site_kubeconfig": str(tmp_path / "east" / "kubeconfig"), "site_release": "1.16",
        "ansible_connection": "local", "fleet_cluster": "east", "fleet_nodes_group": "east_nodes",
        "fleet_nodes": ["east-w1"], "fleet_clusters": ["east", "west"]}
    assert hosts["east-w1"] == {"name": "east-w1", "groups": ["east_nodes", "kubevirt_nodes"],
                                "vars": {"ansible_user": "core", "node_memory": "263856120Ki",
                                         "fleet_cluster": "east"}}


def test_every_mistake_of_every_folder_is_named_at_once(tmp_path):
    folder(tmp_path, "East_1", cluster_yml="{}\n")
    folder(tmp_path, "empty")
    folder(tmp_path, "bad", cluster_yml="- a list\n", nodes_yml="hosts: {w1: {}}\nhostz: {}\n")
    folder(tmp_path, "broken", cluster_yml="a: [\n")
    folder(tmp_path, "b", nodes_yml="hosts: {w1: {}}\n", cluster_yml="fleet_cluster: x\n")
    clusters, problems = fleet_inventory.from_folders(str(tmp_path), load)
    fleet = fleet_inventory.fleet(clusters, [], problems)
    said = "\n".join(fleet.problems)
    assert f"{tmp_path}/East_1/: 'East_1' cannot name a cluster" in said and "e.g. 'east-1'" in said
    assert f"{tmp_path}/empty/: holds none of cluster.yml, nodes.yml, kubeconfig" in said
    assert f"{tmp_path}/bad/cluster.yml: must be a mapping of variable names to values, got list" in said
    assert f"{tmp_path}/bad/nodes.yml: hostz: not known here" in said
    assert f"{tmp_path}/broken/cluster.yml: not valid YAML" in said
    assert f"{tmp_path}/b/: fleet_cluster: set by the fleet inventory, not by a cluster" in said
    assert "node w1 is also a node of cluster b" in said
    assert len(fleet.problems) == 7, fleet.problems


def test_a_kubeconfig_context_is_a_cluster_and_a_folder_of_its_name_adds_to_it(tmp_path):
    path = kubeconfig(tmp_path / "fleet.kubeconfig", ["east", "west", "Prod_A"])
    known = contexts(path)
    assert known == ["Prod_A", "east", "west"]
    from_contexts, problems = fleet_inventory.from_contexts(path, ["east", "west", "north"], known)
    assert problems == [f"contexts: 'north' is not a context of {path} (it has: Prod_A, east, west)"]
    _all, refused = fleet_inventory.from_contexts(path, [], known)
    assert refused[0].startswith(f"context Prod_A of {path}: 'Prod_A' cannot name a cluster")
    folder(tmp_path / "clusters", "east", cluster_yml="site_release: '1.18'\n")
    folders, _problems = fleet_inventory.from_folders(str(tmp_path / "clusters"), load)
    fleet = fleet_inventory.fleet(folders, from_contexts, [])
    east = next(cluster for cluster in fleet.clusters if cluster.name == "east")
    assert east.variables == {"site_kubeconfig": path, "site_context": "east", "site_release": "1.18"}
    assert east.source == f"{tmp_path}/clusters/east/ and context east of {path}"
    assert [cluster.name for cluster in fleet.clusters] == ["east", "west"]
