# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Live state: one labelled LIST per kind and namespace finds what we manage; the dry runs settle the rest.

An object that is not listed is most often absent: its dry run answers 201 when it would create it, and only an
object that exists unlabelled is then read, so no GET is spent per new object. Namespaces are always read, so that
what lives in them can wait for them. The LISTs go out before the input is parsed (Listing, from input_scopes): the
server answers while this process parses, resolves and labels the objects. PRIVATE.
"""

from __future__ import annotations

import threading
import typing as t

from .applyset import ApplySet
from .client import KubeError
from .context import Context
from .discovery import Resource
from .model import CONTAINER_KINDS, Target
from .prune import list_members, list_scoped

Key = tuple[str, str, str, str]
Scopes = t.Mapping[Resource, t.AbstractSet[str]]   # kind -> the namespaces it is used in (none: cluster-scoped)
T = t.TypeVar("T", bound=Target)


def get_live(ctx: Context, item: T) -> T:
    """The object as the server holds it now (None: absent)."""
    if item.resource is None:
        raise ValueError(f"{item.label}: no resource resolved")   # a programming error, not an input error
    try:
        live = ctx.request("GET", item.resource.path(item.namespace, item.name))
    except KubeError as exc:
        if exc.status != 404:
            raise
        live = None
    return item.but(live=live, live_unknown=False)


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


def scopes_of(items: t.Iterable[Target]) -> dict[Resource, frozenset[str]]:
    """Each resolved kind the items use, with the namespaces it is used in."""
    used_in: dict[Resource, set[str]] = {}
    for item in items:
        if item.resource:
            used_in.setdefault(item.resource, set()).update(
                [item.namespace] if item.resource.namespaced and item.namespace else [])
    return {resource: frozenset(namespaces) for resource, namespaces in used_in.items()}


def input_scopes(ctx: Context, objects: t.Sequence[t.Any]) -> dict[Resource, frozenset[str]] | None:
    """What scopes_of will find once the input is parsed and resolved, read from the objects as given (each one's
    kind, and its namespace or the namespace option), so that the LISTs can go out before those stages run. None
    when an object lacks what parse requires first, or a namespaced one has no namespace (resolve refuses it, and
    its kind would be listed across the cluster): that input stops before any LIST. Whatever else parse or resolve
    refuses may be counted here: Listing.result compares and lists again when the guess was wrong."""
    given: dict[tuple[str, str], set[str]] = {}
    default = ctx.options.namespace or ""
    for obj in objects:
        metadata = obj.get("metadata") if isinstance(obj, dict) else None
        if not isinstance(metadata, dict) or not metadata.get("name"):
            return None
        api_version, kind, namespace = obj.get("apiVersion"), obj.get("kind"), metadata.get("namespace") or default
        if not (api_version and kind and isinstance(api_version, str) and isinstance(kind, str)):
            return None
        if isinstance(namespace, str):
            given.setdefault((api_version, kind), set()).add(namespace)
    used_in: dict[Resource, set[str]] = {}
    for (api_version, kind), namespaces in given.items():
        resource = ctx.discovery.find(api_version, kind)
        if resource is None:
            continue
        if resource.namespaced and "" in namespaces:
            return None
        used_in.setdefault(resource, set()).update(namespaces if resource.namespaced else ())
    return {resource: frozenset(namespaces) for resource, namespaces in used_in.items()}


class Listing:
    """The LISTs of ``scopes``, sent now from a thread of their own; ``result()`` waits for them and raises what
    they raised. On a no-op over thousands of objects the server's part of the LIST then overlaps parse,
    resolve and label, which need only this process."""

    def __init__(self, ctx: Context, scopes: Scopes, applyset: ApplySet | None) -> None:
        self._ctx, self._scopes, self._applyset = ctx, scopes, applyset
        self._listed: dict[Key, dict[str, t.Any]] = {}
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._list, name="k8s-list", daemon=True)
        self._thread.start()

    def _list(self) -> None:
        try:
            self._listed = _listed(self._ctx, self._scopes, self._applyset)
        except BaseException as exc:  # pylint: disable=broad-exception-caught  # raised in result()
            self._failure = exc

    def settle(self) -> None:
        """Wait for the LISTs without asking their outcome (a run that fails first still counts their requests)."""
        self._thread.join()

    def result(self, items: t.Sequence[Target]) -> dict[Key, dict[str, t.Any]]:
        """The members of ``items``' kinds, by key. Were the scopes guessed wrong (an object the input stages
        refused), the LISTs the items need are sent again, and what the first ones raised is not theirs."""
        self._thread.join()
        wanted = scopes_of(items)
        if wanted != self._scopes:
            return _listed(self._ctx, wanted, self._applyset)
        if self._failure is not None:
            raise self._failure
        return self._listed


def read_live(ctx: Context, items: list[Target], applyset: ApplySet | None,
              listing: Listing | None = None) -> list[Target]:
    """The items with what the server holds; ``listing``: their LISTs, already sent (an apply sends them before it
    labels the items)."""
    listed: dict[Key, dict[str, t.Any]] = {}
    if ctx.options.state == "present":
        listed = listing.result(items) if listing is not None else _listed(ctx, scopes_of(items), applyset)
    # Namespaces and CRDs are read one by one when the list (of members) did not hold them: an existing one is
    # shared, never a member, and that must be known before the apply-set parent records its members.
    containers = [i for i in items if i.kind in CONTAINER_KINDS and i.resource is not None and i.key not in listed]
    read = dict(zip((id(i) for i in containers), ctx.parallel(lambda item: get_live(ctx, item), containers)))
    missing_namespaces = {i.name for i in read.values() if i.kind == "Namespace" and i.live is None}
    found: list[Target] = []
    for item in items:
        if id(item) in read:
            found.append(read[id(item)])
        elif item.resource is None:
            found.append(item)
        elif item.key in listed:
            found.append(item.but(live=listed[item.key]))
        elif item.kind != "Namespace" and item.namespace in missing_namespaces:
            found.append(item.but(deferred=f"its namespace {item.namespace} is created by this run"))
        else:
            found.append(item.but(live_unknown=True))
    if ctx.options.state != "present":
        # Only an apply may learn from its dry run that an object exists: anything else reads what was not listed.
        unknown = [i for i, item in enumerate(found) if item.live_unknown]
        for i, item in zip(unknown, ctx.parallel(lambda item: get_live(ctx, item), [found[i] for i in unknown])):
            found[i] = item
    return found


def _listed(ctx: Context, scopes: Scopes, applyset: ApplySet | None) -> dict[Key, dict[str, t.Any]]:
    """The members of each kind in its namespaces, by key, one LIST per kind and namespace."""
    scoped = [(resource, set(namespaces)) for resource, namespaces in scopes.items()]
    shared = ctx.options.prune and applyset is not None
    ctx.listings.clear()
    per_scope = ctx.parallel(lambda scope: _members(ctx, applyset, *scope, shared=shared), scoped)
    listed: dict[Key, dict[str, t.Any]] = {}
    for (resource, _where), objects in zip(scoped, per_scope):
        for obj in objects:
            meta = obj.get("metadata") or {}
            listed[(resource.api_version, resource.kind, meta.get("namespace") or "", meta["name"])] = obj
    return listed
