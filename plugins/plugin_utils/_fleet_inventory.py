# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet inventory's clusters: one per folder of the clusters directory and one per kubeconfig context, each as
a host of ``kubevirt_clusters`` (the site plans and configures it there) with its own variables, and its nodes as
hosts of its own nodes group. Every problem of every folder is named at once. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import os
import re
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import Refused
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.names import DNS1123_LABEL

CLUSTERS_GROUP = "kubevirt_clusters"
NODES_GROUP = "kubevirt_nodes"
# What a cluster's folder may hold: its variables, its nodes and their facts, its credential.
CLUSTER_FILE = "cluster.yml"
NODES_FILE = "nodes.yml"
KUBECONFIG_FILE = "kubeconfig"
# The variables the fleet gives each cluster's host and nodes (the site reads them; no site_* setting).
FLEET_VARIABLES = ("fleet_cluster", "fleet_nodes_group", "fleet_nodes", "fleet_clusters")

# Reads a YAML file; raises Refused naming it when it is not YAML.
Load = t.Callable[[str], t.Any]


@dataclasses.dataclass(frozen=True)
class Cluster:
    name: str
    # Where it was defined, as problems name it (a folder, a kubeconfig's context).
    source: str
    variables: t.Mapping[str, t.Any]
    nodes: tuple[tuple[str, t.Mapping[str, t.Any]], ...] = ()


@dataclasses.dataclass(frozen=True)
class Fleet:
    clusters: tuple[Cluster, ...]
    problems: tuple[str, ...]


def nodes_group(cluster: str) -> str:
    """The group of a cluster's nodes (a group name is a Python identifier: no '-')."""
    return re.sub(r"\W", "_", cluster) + "_nodes"


def _name_problem(name: str, where: str) -> str | None:
    if DNS1123_LABEL.match(name) and len(name) <= 63:
        return None
    suggestion = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:63] or "a-name"
    return (f"{where}: {name!r} cannot name a cluster: it names the cluster's folder of the render and its Argo CD "
            f"Application, so it must be a DNS label (lower case, digits, '-'), e.g. {suggestion!r}")


def _mapping(value: t.Any, where: str, problems: list[str]) -> dict[str, t.Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"{where}: must be a mapping of variable names to values, got {type(value).__name__}")
        return {}
    return dict(value)


def _read(load: Load, path: str, problems: list[str]) -> t.Any:
    try:
        return load(path)
    except Refused as exc:
        problems.append(str(exc))
        return None


def _folder(path: str, name: str, load: Load) -> tuple[Cluster | None, list[str]]:
    where = f"{path}/"
    problems: list[str] = []
    bad_name = _name_problem(name, where)
    if bad_name:
        return None, [bad_name]
    variables: dict[str, t.Any] = {}
    if os.path.isfile(os.path.join(path, KUBECONFIG_FILE)):
        variables["site_kubeconfig"] = os.path.join(path, KUBECONFIG_FILE)
    cluster_file = os.path.join(path, CLUSTER_FILE)
    if os.path.isfile(cluster_file):
        variables.update(_mapping(_read(load, cluster_file, problems), cluster_file, problems))
    nodes: list[tuple[str, dict[str, t.Any]]] = []
    nodes_file = os.path.join(path, NODES_FILE)
    if os.path.isfile(nodes_file):
        written = _mapping(_read(load, nodes_file, problems), nodes_file, problems)
        unknown = sorted(set(written) - {"hosts", "vars"})
        if unknown:
            problems.append(f"{nodes_file}: {', '.join(unknown)}: not known here (hosts: the nodes and their node_* "
                            "facts; vars: variables every node of the cluster gets, such as ansible_user)")
        shared = _mapping(written.get("vars"), f"{nodes_file}: vars", problems)
        hosts = _mapping(written.get("hosts"), f"{nodes_file}: hosts", problems)
        for host, host_vars in hosts.items():
            nodes.append((str(host), {**shared, **_mapping(host_vars, f"{nodes_file}: hosts.{host}", problems)}))
    if not os.path.isfile(cluster_file) and not nodes and "site_kubeconfig" not in variables:
        problems.append(f"{where}: holds none of {CLUSTER_FILE}, {NODES_FILE}, {KUBECONFIG_FILE}: a cluster's folder "
                        "needs at least one (a folder that is not a cluster belongs outside the clusters directory)")
    return Cluster(name, where, variables, tuple(nodes)), problems


def from_folders(directory: str, load: Load) -> tuple[list[Cluster], list[str]]:
    """A cluster per folder of ``directory``, named after it (hidden folders and files are left out)."""
    if not os.path.isdir(directory):
        return [], [f"{directory}: no such directory (clusters_dir: the folder that holds a folder per cluster)"]
    clusters, problems = [], []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name.startswith(".") or not os.path.isdir(path):
            continue
        cluster, found = _folder(path, name, load)
        problems += found
        if cluster is not None:
            clusters.append(cluster)
    return clusters, problems


def from_contexts(kubeconfig: str, names: t.Sequence[str], known: t.Sequence[str]) -> tuple[list[Cluster], list[str]]:
    """A cluster per context of ``names`` (all of ``known``, the kubeconfig's, when empty), named after it."""
    problems = [f"contexts: {name!r} is not a context of {kubeconfig} (it has: {', '.join(known)})"
                for name in names if name not in known]
    clusters = []
    for name in [name for name in names if name in known] if names else list(known):
        where = f"context {name} of {kubeconfig}"
        bad_name = _name_problem(name, where)
        if bad_name:
            problems.append(bad_name + " (rename the context, or give the cluster a folder and site_context)")
            continue
        clusters.append(Cluster(name, where, {"site_kubeconfig": kubeconfig, "site_context": name}))
    return clusters, problems


def fleet(folders: t.Sequence[Cluster], contexts: t.Sequence[Cluster], problems: t.Sequence[str]) -> Fleet:
    """The fleet: a context and a folder of the same name are one cluster (the folder's variables over the
    context's credential); a node in two clusters, or a variable the fleet sets, is a problem."""
    by_name: dict[str, Cluster] = {cluster.name: cluster for cluster in contexts}
    for cluster in folders:
        given = by_name.get(cluster.name)
        if given is not None:
            cluster = dataclasses.replace(cluster, source=f"{cluster.source} and {given.source}",
                                          variables={**given.variables, **cluster.variables})
        by_name[cluster.name] = cluster
    found = list(problems)
    owner: dict[str, str] = {}
    for cluster in sorted(by_name.values(), key=lambda item: item.name):
        for variable in sorted(set(cluster.variables) & set(FLEET_VARIABLES)):
            found.append(f"{cluster.source}: {variable}: set by the fleet inventory, not by a cluster")
        for node, _facts in cluster.nodes:
            if node in by_name:
                found.append(f"{cluster.source}: node {node} has the name of a cluster: rename one of them")
            if node in owner:
                found.append(f"{cluster.source}: node {node} is also a node of cluster {owner[node]}: a host is one "
                             "machine, in one cluster (name the nodes by their FQDN)")
            owner.setdefault(node, cluster.name)
    return Fleet(tuple(sorted(by_name.values(), key=lambda item: item.name)), tuple(found))


def hosts(of: Fleet) -> list[dict[str, t.Any]]:
    """Every host with its groups and variables: each cluster in kubevirt_clusters (planned and applied where
    ansible-playbook runs), its nodes in its nodes group and kubevirt_nodes, each knowing its cluster."""
    names = [cluster.name for cluster in of.clusters]
    listed: list[dict[str, t.Any]] = []
    for cluster in of.clusters:
        group = nodes_group(cluster.name)
        members = [node for node, _facts in cluster.nodes]
        listed.append({"name": cluster.name, "groups": [CLUSTERS_GROUP], "vars": {
            # Local: the site's tasks there are the collection's controller-side actions (no module, no
            # interpreter).
            **cluster.variables, "ansible_connection": "local",
            "fleet_cluster": cluster.name, "fleet_nodes_group": group, "fleet_nodes": members,
            "fleet_clusters": names}})
        for node, facts in cluster.nodes:
            listed.append({"name": node, "groups": [group, NODES_GROUP],
                           "vars": {**facts, "fleet_cluster": cluster.name}})
    return listed
