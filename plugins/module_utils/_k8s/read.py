# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Live state: one labelled LIST per kind and namespace finds what we manage; the dry runs settle the rest.

An object that is not listed is most often absent: its dry run answers 201 when it would create it, and only an
object that exists unlabelled is then read, so no GET is spent per new object. Namespaces are always read, so that
what lives in them can wait for them. PRIVATE.
"""

from __future__ import annotations

import typing as t

from .applyset import ApplySet
from .client import KubeError
from .context import Context
from .discovery import Resource
from .model import CONTAINER_KINDS, Item
from .prune import list_members, list_scoped

Key = tuple[str, str, str, str]


def get_live(ctx: Context, item: Item) -> None:
    if item.resource is None:
        raise ValueError(f"{item.label}: no resource resolved")   # a programming error, not an input error
    try:
        item.live = ctx.request("GET", item.resource.path(item.namespace, item.name))
    except KubeError as exc:
        if exc.status != 404:
            raise
        item.live = None


def _members(ctx: Context, applyset: ApplySet | None, resource: Resource, namespaces: set[str], *,
             shared: bool) -> list[dict[str, t.Any]]:
    """The members of one kind where the input uses it; with ``shared`` (prune on) across the cluster when the
    user may list there, kept for the pruner, which would list the same again."""
    if shared:
        try:
            found = list_members(ctx, applyset, resource)
        except KubeError as exc:
            if exc.status != 403:
                raise
        else:
            ctx.listings[resource] = found
            return found
    return list_scoped(ctx, applyset, resource, namespaces)


def read_live(ctx: Context, items: list[Item], applyset: ApplySet | None) -> None:
    listed: dict[Key, dict[str, t.Any]] = {}
    present = ctx.options.state == "present"
    if present:
        used_in: dict[Resource, set[str]] = {}
        for item in items:
            if item.resource:
                used_in.setdefault(item.resource, set()).update(
                    [item.namespace] if item.resource.namespaced and item.namespace else [])
        scopes = list(used_in.items())
        shared = ctx.options.prune and applyset is not None
        ctx.listings.clear()
        per_scope = ctx.parallel(lambda scope: _members(ctx, applyset, *scope, shared=shared), scopes)
        for (resource, _where), found in zip(scopes, per_scope):
            for obj in found:
                meta = obj.get("metadata") or {}
                listed[(resource.api_version, resource.kind, meta.get("namespace") or "", meta["name"])] = obj
    for item in items:
        if item.kind == "Namespace" and item.resource is not None and item.key in listed:
            item.live = listed[item.key]
    # Namespaces and CRDs are read one by one when the list (of members) did not hold them: an existing one is
    # shared, never a member, and that must be known before the apply-set parent records its members.
    containers = [i for i in items if i.kind in CONTAINER_KINDS and i.resource is not None and i.key not in listed]
    unlisted = [i for i in items if i.resource is not None and i.kind != "Namespace"]
    ctx.parallel(lambda item: get_live(ctx, item), containers)
    read_already = {id(i) for i in containers}
    missing_namespaces = {i.name for i in containers if i.kind == "Namespace" and i.live is None}
    for item in unlisted:
        if item.key in listed:
            item.live = listed[item.key]
        elif item.namespace in missing_namespaces:
            item.deferred = f"its namespace {item.namespace} is created by this run"
    rest = [i for i in unlisted if i.key not in listed and not i.deferred and id(i) not in read_already]
    if present:
        for item in rest:
            item.live_unknown = True
    else:
        ctx.parallel(lambda item: get_live(ctx, item), rest)
