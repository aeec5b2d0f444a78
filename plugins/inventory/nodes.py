# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: nodes
short_description: The cluster's Nodes as the site's inventory
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Lists the Node objects of a Kubernetes or OpenShift cluster (one paged read, as C(kubectl get nodes) reads them)
    and makes each a host named after the Node, in the groups the site playbook prepares - C(kubevirt_nodes) with
    C(infra_nodes) and C(workload_nodes) - with the facts the site plans from (C(node_labels), C(node_taints),
    C(node_memory), C(node_architecture)), so nobody types them.
  - Connects as M(virtinfra.hyperconverged.k8s_apply) does, with the same options and C(K8S_AUTH_*) variables (an AWX
    Kubernetes credential on an inventory source injects them), a kubeconfig, or in a pod its service account.
  - The file must be named C(nodes.yml) or end in C(.nodes.yml) (or C(.yaml)), and its O(plugin) must be
    C(virtinfra.hyperconverged.nodes).
extends_documentation_fragment:
  - constructed
  - inventory_cache
options:
  plugin:
    description: The name of this plugin.
    type: str
    required: true
    choices: [virtinfra.hyperconverged.nodes]
  kubeconfig:
    description: Path of a kubeconfig (several separated by V(:), merged as kubectl merges them).
    type: str
    env:
      - name: K8S_AUTH_KUBECONFIG
  context:
    description: Kubeconfig context (default its current context).
    type: str
    env:
      - name: K8S_AUTH_CONTEXT
  host:
    description: API server URL, overriding the kubeconfig.
    type: str
    env:
      - name: K8S_AUTH_HOST
  api_key:
    description: Bearer token, overriding the kubeconfig.
    type: str
    env:
      - name: K8S_AUTH_API_KEY
  validate_certs:
    description:
      - Verify the API server certificate (default the kubeconfig's choice, then true).
      - A boolean, typed as the modules type it (Ansible's argument-spec rules), so a value the modules refuse, such
        as V(ture), is refused naming where it was set, never read as false.
    type: raw
    aliases: [verify_ssl]
    env:
      - name: K8S_AUTH_VERIFY_SSL
  ca_cert:
    description: CA bundle to verify the API server with.
    type: path
    env:
      - name: K8S_AUTH_SSL_CA_CERT
  client_cert:
    description: Client certificate, overriding the kubeconfig.
    type: path
    aliases: [cert_file]
    env:
      - name: K8S_AUTH_CERT_FILE
  client_key:
    description: Key of O(client_cert).
    type: path
    aliases: [key_file]
    env:
      - name: K8S_AUTH_KEY_FILE
  proxy:
    description: Proxy URL, as M(virtinfra.hyperconverged.k8s_apply)'s C(proxy) (C(HTTPS_PROXY) and C(NO_PROXY) apply too).
    type: str
    env:
      - name: K8S_AUTH_PROXY
  no_proxy:
    description: Hosts, domains and CIDRs reached without a proxy, by Go's rules.
    type: str
    env:
      - name: K8S_AUTH_NO_PROXY
  impersonate_user:
    description: User to act as.
    type: str
    env:
      - name: K8S_AUTH_IMPERSONATE_USER
  impersonate_groups:
    description: Groups to act as, with O(impersonate_user) (a list, or a string split at commas as the modules split it).
    type: raw
    env:
      - name: K8S_AUTH_IMPERSONATE_GROUPS
  request_timeout:
    description: Seconds for one HTTP request (an integer, typed as the modules type it).
    type: raw
    default: 30
  retries:
    description: Retries of a request that failed with 409, 429, 5xx or a connection error, as
      M(virtinfra.hyperconverged.k8s_apply) retries them (an integer, typed as the modules type it).
    type: raw
    default: 5
  label_selector:
    description: Only the Nodes this label selector selects (as C(kubectl get nodes -l)).
    type: str
  address:
    description: The Node address each host's C(ansible_host) is set to; a Node without one has no C(ansible_host).
    type: str
    default: InternalIP
    choices: [InternalIP, ExternalIP, Hostname]
  infra_node_selector:
    description:
      - The labels of the infrastructure nodes, as the site's C(site_infra_node_selector); its Nodes make
        C(infra_nodes). Empty (the site's default) - the control-plane Nodes.
    type: dict
    default: {}
  cluster:
    description:
      - In a fleet (see the P(virtinfra.hyperconverged.fleet#inventory) inventory), the name of the cluster these
        Nodes belong to. Each host also goes into that cluster's nodes group (C(<cluster>_nodes), a C(-) becoming
        C(_)) and gets C(fleet_cluster), so the site plans each cluster from its own Nodes; one inventory source per
        cluster (a kubeconfig context or an AWX Kubernetes credential each) lists the whole fleet's nodes.
      - A Node name is a host name, so two clusters with a Node of the same name cannot share one inventory.
    type: str
  workload_node_selector:
    description: The labels of the nodes that run VMs, as the site's C(site_workload_node_selector); its Nodes make
      C(workload_nodes).
    type: dict
    default: {node-role.kubernetes.io/worker: ""}
notes:
  - C(kubevirt_nodes) holds C(infra_nodes) and C(workload_nodes) as children; a Node in neither is in C(ungrouped)
    unless O(groups) or O(keyed_groups) place it.
  - Hostvars are C(node_labels), C(node_taints), C(node_memory) (the capacity), C(node_architecture),
    C(node_allocatable) and C(node_capacity) (mappings of quantities), C(node_provider) (the Node's
    C(spec.providerID), where set) and C(node_addresses). O(compose), O(groups) and O(keyed_groups) read them.
"""

EXAMPLES = r"""
# inventory/east.nodes.yml: in a fleet, cluster east's Nodes into east_nodes (one such file per cluster)
plugin: virtinfra.hyperconverged.nodes
kubeconfig: ~/.kube/fleet
context: east
cluster: east

---
# inventory/cluster.nodes.yml: the site's nodes from the cluster AWX's Kubernetes credential reaches
plugin: virtinfra.hyperconverged.nodes
workload_node_selector:
  node-role.kubernetes.io/worker: ""
keyed_groups:
  - key: node_architecture
    prefix: arch
compose:
  # SSH to the node's ExternalIP where it has one
  ansible_host: node_addresses.ExternalIP | default(node_addresses.InternalIP)

---
# A kubeconfig file and a context, and only one pool's Nodes
plugin: virtinfra.hyperconverged.nodes
kubeconfig: ~/.kube/site-a
context: admin@site-a
label_selector: pool=vm
"""

import os
import typing as t

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import nodes as live_nodes
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.kubeconfig import KubeconfigError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import (
    AUTH_ARGUMENT_SPEC,
    OptionsRefused,
    connect,
    typed,
)
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._fleet_inventory import nodes_group
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._inventory_nodes import GROUPS, hosts_of

CONNECTION_OPTIONS = ("kubeconfig", "context", "host", "api_key", "validate_certs", "ca_cert", "client_cert",
                      "client_key", "proxy", "no_proxy", "impersonate_user", "impersonate_groups", "request_timeout",
                      "retries")


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):
    NAME = "virtinfra.hyperconverged.nodes"

    def verify_file(self, path: str) -> bool:
        name = os.path.basename(path)
        return super().verify_file(path) and (name in ("nodes.yml", "nodes.yaml")
                                              or name.endswith((".nodes.yml", ".nodes.yaml")))

    def parse(self, inventory: t.Any, loader: t.Any, path: str, cache: bool = True) -> None:
        # As amazon.aws's aws_ec2: the cache holds the API's answer (the Nodes' items) and what asked for it; hosts,
        # groups, ansible_host and composed variables are built from it on every run, so changing any option that
        # shapes them changes the next result with the cache on.
        super().parse(inventory, loader, path, cache)
        written = self._read_config_data(path) or {}
        key = self.get_cache_key(path)
        use_cache = bool(self.get_option("cache"))
        params = self._connection_params(path, written)
        query = {"selector": self.get_option("label_selector") or "",
                 "server": [params.get(name) for name in ("kubeconfig", "context", "host", "impersonate_user")]}
        cached = self._cache.get(key) if use_cache and cache else None
        if isinstance(cached, dict) and cached.get("query") == query and isinstance(cached.get("items"), list):
            items = cached["items"]
        else:
            items = self._read(path, params)
            if use_cache:
                self._cache[key] = {"query": query, "items": items}
        try:
            found = live_nodes.of_items(items)
        except live_nodes.NodesError as exc:
            raise AnsibleParserError(f"{path}: cannot read the cluster's Nodes: {exc}") from None
        self._populate(hosts_of(found, address=self.get_option("address"),
                                infra_selector=self.get_option("infra_node_selector") or {},
                                workload_selector=self.get_option("workload_node_selector") or {}))

    def _connection_params(self, path: str, written: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
        """The connection options, typed as the modules type them; a bad value is named where it was set: the file
        (``written``, its options as given), else the K8S_AUTH_* variable its env entry read."""
        given, origins = {}, {}
        for name in CONNECTION_OPTIONS:
            given[name] = self.get_option(name)
            spec = AUTH_ARGUMENT_SPEC[name]
            variables = spec["fallback"][1] if "fallback" in spec else []
            in_file = any(option in written for option in (name, *spec.get("aliases", ())))
            variable = next((var for var in variables if os.environ.get(var)), None)
            origins[name] = variable if variable and not in_file else f"{path}: {name}"
        try:
            # The environment was read by the options themselves (their env entries), and is named as it was.
            return typed(given, {}, origins)
        except OptionsRefused as exc:
            raise AnsibleParserError(f"{path}: cannot list the cluster's Nodes: {exc}") from None

    def _read(self, path: str, params: dict[str, t.Any]) -> list[dict[str, t.Any]]:
        try:
            return live_nodes.answer(connect(params), self.get_option("label_selector"))
        except (KubeError, KubeconfigError) as exc:
            raise AnsibleParserError(f"{path}: cannot list the cluster's Nodes: {exc}") from None

    def _populate(self, hosts: list[dict[str, t.Any]]) -> None:
        for group in GROUPS:
            self.inventory.add_group(group)
        for child in GROUPS[1:]:
            self.inventory.add_child(GROUPS[0], child)
        strict = self.get_option("strict")
        cluster = self.get_option("cluster")
        cluster_group = nodes_group(cluster) if cluster else None
        if cluster_group:
            self.inventory.add_group(cluster_group)
        for host in hosts:
            name = host["name"]
            self.inventory.add_host(name)
            for group in host["groups"]:
                self.inventory.add_child(group, name)
            if cluster_group:
                self.inventory.add_child(cluster_group, name)
                self.inventory.set_variable(name, "fleet_cluster", cluster)
            for variable, value in host["vars"].items():
                self.inventory.set_variable(name, variable, value)
            variables = self.inventory.get_host(name).get_vars()
            self._set_composite_vars(self.get_option("compose"), variables, name, strict=strict)
            self._add_host_to_composed_groups(self.get_option("groups"), variables, name, strict=strict)
            self._add_host_to_keyed_groups(self.get_option("keyed_groups"), variables, name, strict=strict)
