# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Resource discovery with the aggregated discovery endpoints: two requests for the whole API surface.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import difflib
import typing as t

from .client import Connection, KubeError

AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"


@dataclasses.dataclass(frozen=True)
class Resource:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        return f"{base}/{name}" if name else base

    @property
    def display(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _sep, version = api_version.rpartition("/")
    return group, version


class Discovery:
    """(apiVersion, kind) -> Resource, loaded lazily; refresh after CRDs were installed."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._resources: dict[tuple[str, str], Resource] | None = None

    def refresh(self) -> None:
        self._resources = None

    def find(self, api_version: str, kind: str) -> Resource | None:
        if self._resources is None:
            self._resources = self._load()
        return self._resources.get((api_version, kind))

    def find_group_kind(self, group: str, kind: str) -> Resource | None:
        """The resource of a group and kind in the version the server prefers (discovery lists it first)."""
        if self._resources is None:
            self._resources = self._load()
        return next((r for r in self._resources.values() if r.group == group and r.kind == kind), None)

    def served_versions(self, group: str, kind: str) -> list[str]:
        """The versions of a group and kind the server serves, in discovery's order (the preferred first)."""
        if self._resources is None:
            self._resources = self._load()
        return [r.version for r in self._resources.values() if r.group == group and r.kind == kind]

    def group_kinds(self, group: str) -> list[str]:
        """The kinds the server serves in a group (empty: no such group is served)."""
        if self._resources is None:
            self._resources = self._load()
        return sorted({r.kind for r in self._resources.values() if r.group == group})

    def not_served(self, api_version: str, kind: str) -> str:
        """Why the server has no resource for (apiVersion, kind), in terms of what it does serve (version skew, a
        typo in the kind, or a CRD that is not installed)."""
        group, _version = split_api_version(api_version)
        versions = self.served_versions(group, kind)
        if versions:
            return (f"the server does not serve {kind} in {api_version}; it serves {kind} in "
                    + ", ".join(f"{group}/{v}" if group else v for v in versions))
        kinds = self.group_kinds(group)
        if kinds:
            close = difflib.get_close_matches(kind, kinds, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            shown = ", ".join(kinds[:15]) + (f" and {len(kinds) - 15} more" if len(kinds) > 15 else "")
            return f"the server serves no kind {kind} in group {group or 'core'}{hint}; that group has: {shown}"
        return (f"the server has no resource for kind {kind} in {api_version}: no API group {group} is served "
                "(is its CustomResourceDefinition installed, or the operator that brings it?)")

    def namespaced_listable(self) -> list[Resource]:
        """One resource per namespaced group and plural that can be listed (the first version found)."""
        if self._resources is None:
            self._resources = self._load()
        chosen: dict[tuple[str, str], Resource] = {}
        for resource in self._resources.values():
            if resource.namespaced and "list" in resource.verbs:
                chosen.setdefault((resource.group, resource.plural), resource)
        return list(chosen.values())

    def _load(self) -> dict[tuple[str, str], Resource]:
        resources: dict[tuple[str, str], Resource] = {}
        for root in ("/api", "/apis"):
            document = self._connection.request("GET", root, accept=AGGREGATED)
            if isinstance(document, dict) and document.get("kind") == "APIGroupDiscoveryList":
                for group in document.get("items") or []:
                    self._add_aggregated(resources, group)
            else:  # servers older than 1.30: one request per group version
                self._add_legacy(resources, root, document or {})
        return resources

    @staticmethod
    def _add_aggregated(resources: dict[tuple[str, str], Resource], group: dict[str, t.Any]) -> None:
        name = (group.get("metadata") or {}).get("name") or ""
        for version in group.get("versions") or []:
            for entry in version.get("resources") or []:
                kind = (entry.get("responseKind") or {}).get("kind")
                if not kind:
                    continue
                resource = Resource(name, version["version"], kind, entry["resource"],
                                    entry.get("scope") == "Namespaced", tuple(entry.get("verbs") or ()))
                resources[(resource.api_version, kind)] = resource

    def _add_legacy(self, resources: dict[tuple[str, str], Resource], root: str,
                    document: dict[str, t.Any]) -> None:
        if root == "/api":
            group_versions = [("", v) for v in document.get("versions") or []]
        else:
            group_versions = [(g["name"], v["version"]) for g in document.get("groups") or []
                              for v in g.get("versions") or []]
        for group, version in group_versions:
            path = f"/apis/{group}/{version}" if group else f"/api/{version}"
            try:
                listing = self._connection.request("GET", path)
            except KubeError:
                continue
            for entry in listing.get("resources") or []:
                if "/" in entry["name"]:
                    continue
                resource = Resource(group, version, entry["kind"], entry["name"], entry.get("namespaced", False),
                                    tuple(entry.get("verbs") or ()))
                resources[(resource.api_version, resource.kind)] = resource
