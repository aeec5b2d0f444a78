# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared builders for the stage tests: a context over a FakeAPI, resources, members of an apply set."""

from __future__ import annotations

import typing as t

from fake_api import FakeAPI

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.applyset import PART_OF_LABEL, ApplySet
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.context import Context
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.discovery import Resource
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Item, Options
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.resolve import MANAGED_BY_LABEL

OURS = "virtinfra.hyperconverged"
SET = ApplySet("site", "ns")
CONFIG_MAPS = Resource("", "v1", "ConfigMap", "configmaps", True, ("get", "list", "delete"))
NAMESPACES = Resource("", "v1", "Namespace", "namespaces", False, ("get", "list", "delete"))


class Resources:
    """Discovery's interface over a fixed list."""

    def __init__(self, *resources: Resource) -> None:
        self.resources = resources or (CONFIG_MAPS, NAMESPACES)

    def find(self, api_version: str, kind: str) -> Resource | None:
        return next((r for r in self.resources if (r.api_version, r.kind) == (api_version, kind)), None)

    def find_group_kind(self, group: str, kind: str) -> Resource | None:
        return next((r for r in self.resources if (r.group, r.kind) == (group, kind)), None)

    def namespaced_listable(self) -> list[Resource]:
        return [r for r in self.resources if r.namespaced]

    def not_served(self, api_version: str, kind: str) -> str:
        return f"not served: {kind} in {api_version}"


def context(api: FakeAPI, **options: t.Any) -> Context:
    return Context(api, Options(**options), Resources())  # type: ignore[arg-type]


def member(name: str, namespace: str = "ns", uid: str = "", applyset: ApplySet = SET) -> dict[str, t.Any]:
    """A ConfigMap this apply set created: both labels, the part-of label applied by our field manager."""
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{name}",
                         "labels": {MANAGED_BY_LABEL: OURS, PART_OF_LABEL: applyset.id},
                         "managedFields": [{"manager": OURS, "operation": "Apply", "fieldsV1": {
                             "f:metadata": {"f:labels": {f"f:{PART_OF_LABEL}": {}}}}}]}}


def path(name: str, namespace: str = "ns") -> str:
    return f"/api/v1/namespaces/{namespace}/configmaps/{name}"


def item(name: str, index: int = 0, live: dict[str, t.Any] | None = None) -> Item:
    return Item(index, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}},
                "v1", "ConfigMap", name, "ns", resource=CONFIG_MAPS, live=live)
