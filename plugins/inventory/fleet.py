# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: fleet
short_description: Several clusters as one inventory, each configured by the site playbook from itself
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Makes each cluster of a fleet a host of C(kubevirt_clusters), where the site playbook plans, applies or renders
    it (locally, one fork per cluster), and the cluster's nodes hosts of its own nodes group (C(<cluster>_nodes),
    a C(-) becoming C(_)) and of C(kubevirt_nodes), where the host roles run.
  - A cluster is a folder of O(clusters_dir), named after the cluster, holding any of C(cluster.yml) (the
    cluster's variables, such as its C(site_*) settings), C(nodes.yml) (C(hosts) - each node with its C(node_*)
    facts - and C(vars) for every node) and C(kubeconfig) (its credential, as C(site_kubeconfig)); or a context of
    O(kubeconfig) (as C(site_kubeconfig) and C(site_context)); a folder and a context of the same name are one
    cluster. Adding a cluster is adding a folder or a context.
  - Settings every cluster shares go once in the inventory's C(group_vars/kubevirt_clusters.yml); a cluster's own
    C(cluster.yml) overrides them.
  - Every problem of every folder is reported at once, each named by its file.
  - The file must be named C(fleet.yml) or end in C(.fleet.yml) (or C(.yaml)).
options:
  plugin:
    description: The name of this plugin.
    type: str
    required: true
    choices: [virtinfra.hyperconverged.fleet]
  clusters_dir:
    description:
      - The folder that holds a folder per cluster, relative to this file (not to the directory Ansible runs in). Not
        read when it does not exist and O(kubeconfig) is set.
      - Keep it outside a directory given to C(-i), whose every file Ansible reads as an inventory (C(../clusters)
        beside an C(inventory/) directory).
    type: str
    default: clusters
  kubeconfig:
    description: A kubeconfig whose contexts are clusters of the fleet (several files separated by V(:) are merged
      as kubectl merges them), relative to this file.
    type: str
  contexts:
    description: The contexts of O(kubeconfig) that are clusters (default every context).
    type: list
    elements: str
    default: []
notes:
  - C(kubevirt_clusters) gets C(fleet_source) (this file). Each cluster host gets C(ansible_connection=local),
    C(fleet_cluster) (its name), C(fleet_nodes_group), C(fleet_nodes) (its nodes' names) and C(fleet_clusters)
    (every cluster's name); each node C(fleet_cluster). The site playbook reads them to plan a cluster from its own
    nodes and to know whether a run holds the whole fleet (a sliced AWX job or C(--limit) does not).
  - The nodes of a cluster can come from the cluster instead, with one P(virtinfra.hyperconverged.nodes#inventory) inventory
    source per cluster (its O(virtinfra.hyperconverged.nodes#inventory:cluster) option).
seealso:
  - plugin: virtinfra.hyperconverged.nodes
    plugin_type: inventory
"""

EXAMPLES = r"""
# inventory/fleet.yml, beside inventory/group_vars/kubevirt_clusters.yml; a folder per cluster in clusters/
plugin: virtinfra.hyperconverged.fleet
clusters_dir: ../clusters

---
# Every context of a kubeconfig is a cluster; a folder of the same name adds its settings and nodes
plugin: virtinfra.hyperconverged.fleet
kubeconfig: ~/.kube/fleet
contexts: [east, west]
"""

import os
import typing as t

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import Refused
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.kubeconfig import KubeconfigError, contexts
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _fleet_inventory as fleet_inventory


class InventoryModule(BaseInventoryPlugin):
    NAME = "virtinfra.hyperconverged.fleet"
    # Its data are the fleet's own files, as trusted as a YAML inventory (a cluster.yml may hold a template).
    trusted_by_default = True

    def verify_file(self, path: str) -> bool:
        name = os.path.basename(path)
        return super().verify_file(path) and (name in ("fleet.yml", "fleet.yaml")
                                              or name.endswith((".fleet.yml", ".fleet.yaml")))

    def parse(self, inventory: t.Any, loader: t.Any, path: str, cache: bool = True) -> None:
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        base = os.path.dirname(os.path.abspath(path))
        directory = os.path.join(base, os.path.expanduser(self.get_option("clusters_dir")))
        kubeconfig = self.get_option("kubeconfig")
        folders: list[fleet_inventory.Cluster] = []
        problems: list[str] = []
        if os.path.isdir(directory) or not kubeconfig:
            folders, problems = fleet_inventory.from_folders(directory, self._load)
        from_contexts: list[fleet_inventory.Cluster] = []
        if kubeconfig:
            spec = os.pathsep.join(os.path.join(base, os.path.expanduser(part)) for part in kubeconfig.split(os.pathsep))
            try:
                from_contexts, found = fleet_inventory.from_contexts(spec, self.get_option("contexts"), contexts(spec))
                problems += found
            except KubeconfigError as exc:
                problems.append(f"kubeconfig: {exc}")
        fleet = fleet_inventory.fleet(folders, from_contexts, problems)
        if fleet.problems:
            raise AnsibleParserError(f"{path}: {len(fleet.problems)} problem(s) in the fleet, no cluster listed: "
                                     + "; ".join(fleet.problems))
        self.inventory.add_group(fleet_inventory.CLUSTERS_GROUP)
        # A group with a variable is kept by an AWX slice that holds none of its hosts (Inventory.get_script_data
        # drops a group with neither hosts nor variables): the site then knows it runs a fleet, not one cluster.
        self.inventory.set_variable(fleet_inventory.CLUSTERS_GROUP, "fleet_source", os.path.abspath(path))
        self.inventory.add_group(fleet_inventory.NODES_GROUP)
        for host in fleet_inventory.hosts(fleet):
            for group in host["groups"]:
                self.inventory.add_group(group)
            self.inventory.add_host(host["name"], group=host["groups"][0])
            for group in host["groups"][1:]:
                self.inventory.add_child(group, host["name"])
            for variable, value in host["vars"].items():
                self.inventory.set_variable(host["name"], variable, value)

    def _load(self, path: str) -> t.Any:
        try:
            return self.loader.load_from_file(path)
        except AnsibleParserError as exc:  # named with its file, with every other problem
            raise Refused(f"{path}: not valid YAML ({exc.message.splitlines()[0]})") from None
