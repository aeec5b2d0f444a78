# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster's Nodes as the site plans from them and the ``nodes`` inventory lists them: read by one paged LIST
or from a snapshot file (``kubectl get nodes -o yaml``), each into a frozen record. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .._common.errors import Refused
from .client import KubeError
from .manifests import ManifestError, objects_of

# kubectl get's page size (k8s.io/kubectl v0.34.4, pkg/cmd/util/helpers.go, DefaultChunkSize).
CHUNK_SIZE = 500


class Requester(t.Protocol):
    """What the read needs of a Connection."""

    def request(self, method: str, path: str, *, query: t.Mapping[str, t.Any] | None = None) -> t.Any: ...


class NodesError(Refused):
    """A Node list or snapshot that cannot be read, in the words of where it came from."""


@dataclasses.dataclass(frozen=True)
class Node:
    """What the site and the inventory read of one Node: its metadata, spec and status as the API server holds them.
    The mappings are copies made for this record and never changed after."""

    name: str
    labels: t.Mapping[str, str]
    taints: tuple[t.Mapping[str, t.Any], ...]
    capacity: t.Mapping[str, str]
    allocatable: t.Mapping[str, str]
    architecture: str                         # status.nodeInfo.architecture, as HCO's node watcher reads it
    addresses: tuple[tuple[str, str], ...]    # (type, address), in the Node's order
    provider: str                             # spec.providerID ("" on bare metal without a cloud provider)

    @property
    def memory(self) -> str | None:
        """status.capacity.memory, as ``kubectl get node -o jsonpath={.status.capacity.memory}`` prints it."""
        return self.capacity.get("memory")

    def address(self, kind: str) -> str | None:
        """The first address of a type (``InternalIP``, ``ExternalIP``, ``Hostname``), None without one."""
        return next((address for type_, address in self.addresses if type_ == kind), None)

    def planned(self) -> dict[str, t.Any]:
        """The node as the plan takes it (node_prereqs' ``nodes``, hco_render's ``cluster.nodes``)."""
        node: dict[str, t.Any] = {"name": self.name, "labels": dict(self.labels),
                                  "taints": [dict(taint) for taint in self.taints]}
        if self.memory is not None:
            node["memory"] = self.memory
        if self.architecture:
            node["architecture"] = self.architecture
        if self.provider:
            node["provider"] = self.provider
        return node


def _mapping(value: t.Any, where: str) -> dict[str, t.Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise NodesError(f"{where}: must be a mapping, got {type(value).__name__}")
    return value


def _strings(value: t.Any, where: str) -> dict[str, str]:
    return {str(key): str(item) for key, item in _mapping(value, where).items()}


def node_of(obj: t.Any, where: str) -> Node:
    """One Node object as the record; NodesError names ``where`` and the field that is wrong."""
    obj = _mapping(obj, where)
    if obj.get("kind") != "Node":
        raise NodesError(f"{where}: kind {obj.get('kind')!r} is not a Node (a snapshot is the output of "
                         "`kubectl get nodes -o yaml`)")
    metadata, spec = _mapping(obj.get("metadata"), f"{where}.metadata"), _mapping(obj.get("spec"), f"{where}.spec")
    status = _mapping(obj.get("status"), f"{where}.status")
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise NodesError(f"{where}.metadata.name: required")
    taints = spec.get("taints") or []
    addresses = status.get("addresses") or []
    if not isinstance(taints, list) or not all(isinstance(taint, dict) for taint in taints):
        raise NodesError(f"{where}.spec.taints: must be a list of taints")
    if not isinstance(addresses, list) or not all(isinstance(entry, dict) for entry in addresses):
        raise NodesError(f"{where}.status.addresses: must be a list of addresses")
    return Node(
        name=name,
        labels=_strings(metadata.get("labels"), f"{where}.metadata.labels"),
        taints=tuple(dict(taint) for taint in taints),
        capacity=_strings(status.get("capacity"), f"{where}.status.capacity"),
        allocatable=_strings(status.get("allocatable"), f"{where}.status.allocatable"),
        architecture=str(_mapping(status.get("nodeInfo"), f"{where}.status.nodeInfo").get("architecture") or ""),
        addresses=tuple((str(entry.get("type") or ""), str(entry.get("address") or "")) for entry in addresses),
        provider=str(spec.get("providerID") or ""),
    )


def listed(connection: Requester, label_selector: str | None = None) -> list[Node]:
    """Every Node, by name (see answer)."""
    return of_items(answer(connection, label_selector))


def of_items(items: t.Sequence[t.Any]) -> list[Node]:
    """The records of a LIST's items, by name. The items carry no kind: they are Nodes by the path they came from."""
    nodes = [node_of({**item, "kind": "Node"}, f"the Node list's items[{index}]") for index, item in enumerate(items)]
    return sorted(nodes, key=lambda node: node.name)


def answer(connection: Requester, label_selector: str | None = None) -> list[dict[str, t.Any]]:
    """The API's answer: every Node's item, read in pages of CHUNK_SIZE as kubectl reads them, kept to what node_of
    reads (what an inventory cache holds). A page token that expired between two pages (410) restarts the read as one
    unpaged LIST, as client-go's pager does with FullListIfExpired."""
    query: dict[str, t.Any] = {"limit": CHUNK_SIZE}
    if label_selector:
        query["labelSelector"] = label_selector
    items: list[t.Any] = []
    while True:
        try:
            page = connection.request("GET", "/api/v1/nodes", query=query)
        except KubeError as exc:
            if exc.status != 410 or "continue" not in query:
                raise
            query = {k: v for k, v in query.items() if k not in ("limit", "continue")}
            items = []
            continue
        items += page.get("items") or []
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            break
        query = {**query, "continue": token}
    return [_read_part(item) for item in items]


def _read_part(item: t.Any) -> t.Any:
    """What node_of reads of an item (anything else, such as an item that is no mapping, as it is: node_of names it)."""
    if not isinstance(item, dict):
        return item
    part: dict[str, t.Any] = {}
    for section, fields in _READ.items():
        value = item.get(section)
        if isinstance(value, dict):
            part[section] = {field: value[field] for field in fields if field in value}
        elif value is not None:
            part[section] = value
    return part


_READ = {"metadata": ("name", "labels"), "spec": ("taints", "providerID"),
         "status": ("capacity", "allocatable", "nodeInfo", "addresses")}


def snapshot(path: str, text: str) -> list[Node]:
    """The Nodes of a snapshot: ``kubectl get nodes -o yaml`` (or ``-o json``), a List of Nodes or Node documents.
    Every problem is named with the file; a Node listed twice is refused (two snapshots pasted together)."""
    try:
        objects = objects_of(path, text)
    except ManifestError as exc:
        raise NodesError(f"{path}: {exc}") from None
    nodes, problems, seen = [], [], set()
    for index, obj in enumerate(objects):
        try:
            node = node_of(obj, f"{path}: items[{index}]")
        except NodesError as exc:
            problems.append(str(exc))
            continue
        if node.name in seen:
            problems.append(f"{path}: items[{index}]: Node {node.name} is listed twice")
        seen.add(node.name)
        nodes.append(node)
    if not objects:
        problems.append(f"{path}: no Node in it (a snapshot is the output of `kubectl get nodes -o yaml`)")
    if problems:
        raise NodesError("; ".join(problems))
    return sorted(nodes, key=lambda node: node.name)
