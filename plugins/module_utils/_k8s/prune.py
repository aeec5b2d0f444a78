# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prune: find first, delete second (as kubectl's pkg/cmd/apply/applyset_pruner.go does).

``find`` lists the apply set's members that left the input and decides, before anything is written, which of them
may go; ``delete`` removes exactly the object that was listed (its uid is the precondition). PRIVATE.
"""

from __future__ import annotations

import typing as t

from . import lost_answers
from .applyset import PART_OF_LABEL, ApplySet, Record, group_kind, split_group_kind
from .client import KubeError, Unreachable
from .context import Context
from .discovery import Resource
from .model import CONTAINER_KINDS, CUSTOM_RANK, FIELD_MANAGER, KIND_RANK, Problem, PruneCandidate, Target, where
from .ownership import applied_by, is_member
from .resolve import MANAGED_BY_LABEL

# What the cluster itself puts in every namespace, or derives from other objects: no one's data.
_BOOTSTRAPPED = {("ServiceAccount", "default"), ("ServiceAccount", "builder"), ("ServiceAccount", "deployer"),
                 ("ConfigMap", "kube-root-ca.crt"), ("ConfigMap", "openshift-service-ca.crt")}
_DERIVED_KINDS = frozenset({"Event", "EndpointSlice", "Endpoints", "PodMetrics", "LocalSubjectAccessReview"})


def list_members(ctx: Context, applyset: ApplySet | None, resource: Resource,
                 namespace: str | None = None) -> list[dict[str, t.Any]]:
    """Objects of ``resource`` that carry our labels (and this apply set's)."""
    selector = f"{MANAGED_BY_LABEL}={FIELD_MANAGER}"
    if applyset is not None:
        selector += f",{PART_OF_LABEL}={applyset.id}"
    document = ctx.request("GET", resource.path(namespace), query={"labelSelector": selector})
    found = document.get("items") or []
    for obj in found:
        obj.setdefault("apiVersion", resource.api_version)
        obj.setdefault("kind", resource.kind)
    return found


def list_scoped(ctx: Context, applyset: ApplySet | None, resource: Resource, namespaces: set[str], *,
                everywhere: bool = False) -> list[dict[str, t.Any]]:
    """A namespaced kind used in one namespace is listed there (unless ``everywhere``: the pruner looks across the
    cluster, to warn of members in namespaces never recorded); in several, across the cluster, or namespace by
    namespace where that is forbidden (an account granted Roles in its namespaces only, as the automation account
    is). A cluster-scoped kind is listed across the cluster."""
    if not resource.namespaced:
        return list_members(ctx, applyset, resource)
    if len(namespaces) == 1 and not everywhere:
        return list_members(ctx, applyset, resource, next(iter(namespaces)))
    try:
        return list_members(ctx, applyset, resource)
    except KubeError as exc:
        if exc.status != 403 or not namespaces:
            raise
    return [obj for where in sorted(namespaces) for obj in list_members(ctx, applyset, resource, where)]


def _search(ctx: Context, items: t.Sequence[Target], recorded: Record) -> list[Resource]:
    """The kinds to look in: this run's, prune_kinds, and what the parent recorded."""
    resources: list[Resource] = []
    for item in items:
        if item.resource is not None and item.resource not in resources:
            resources.append(item.resource)
    for api_version, kind in ctx.options.prune_kinds:
        resource = ctx.discovery.find(api_version, kind)
        if resource is None:
            ctx.warn(f"prune_kinds: the server does not serve {kind} in {api_version}; objects of that kind were "
                     "not looked for")
        elif resource not in resources:
            resources.append(resource)
    searched = {group_kind(r.api_version, r.kind) for r in resources}
    for gk in sorted(recorded.group_kinds - searched):
        resource = ctx.discovery.find_group_kind(*split_group_kind(gk))
        if resource is None:
            ctx.warn(f"the apply set recorded members of kind {gk}, which the server no longer serves: they were "
                     "not looked for")
        else:
            resources.append(resource)
    return resources


def find(ctx: Context, applyset: ApplySet, items: t.Sequence[Target], recorded: Record, namespaces: set[str]
         ) -> tuple[list[PruneCandidate], list[Problem], Record]:
    """Members that left the input: (what may be deleted, deepest first; problems that stop the run; what stays
    recorded). A member is ours only with both labels, applied by our field manager, in a namespace the parent
    recorded; a Namespace or CRD only with prune_namespaces, and only when all it holds is ours."""
    wanted = {item.key for item in items}
    manager = ctx.options.field_manager
    found: list[PruneCandidate] = []
    problems: list[Problem] = []
    kept = Record()
    for resource in _search(ctx, items, recorded):
        listed = ctx.listings.get(resource)
        for obj in listed if listed is not None else list_scoped(ctx, applyset, resource, namespaces, everywhere=True):
            meta = obj["metadata"]
            namespace = meta.get("namespace") or None
            if (resource.api_version, resource.kind, namespace or "", meta["name"]) in wanted:
                continue
            label = f"{resource.kind} {where(namespace, meta['name'])}"
            if not applied_by(obj, manager):
                ctx.warn(f"{label} carries this apply set's labels but was not applied by field manager {manager}: "
                         "not pruned")
                continue
            if resource.namespaced and namespace not in namespaces:
                ctx.warn(f"{label} carries this apply set's labels in a namespace its parent {applyset.label} never "
                         "recorded: not pruned")
                continue
            stays = Record({group_kind(resource.api_version, resource.kind)}, {namespace} if namespace else set())
            contents: list[str] = []
            if resource.kind in CONTAINER_KINDS:
                if not ctx.options.prune_namespaces:
                    ctx.warn(f"{label} left the input but is not pruned: deleting it would delete everything in it "
                             "(set prune_namespaces to prune it when empty)")
                    kept = kept.union(stays)
                    continue
                contents, foreign = _contents(ctx, applyset, resource, meta["name"])
                if foreign:
                    kept = kept.union(stays)
                    more = f" and {len(foreign) - 10} more" if len(foreign) > 10 else ""
                    problems.append(Problem(object=f"{resource.api_version} {label}", path="", message=(
                        "would be pruned, but holds objects this apply set does not own: "
                        + ", ".join(foreign[:10]) + more)))
                    continue
            found.append(PruneCandidate(resource, namespace, meta["name"], meta.get("uid"), tuple(contents)))
    found.sort(key=lambda c: -KIND_RANK.get(c.resource.kind, CUSTOM_RANK))
    return found, problems, kept


def _contents(ctx: Context, applyset: ApplySet, resource: Resource, name: str) -> tuple[list[str], list[str]]:
    """What deleting a Namespace (its objects) or a CRD (its custom resources) would take with it: (ours, others)."""
    if resource.kind == "Namespace":
        listed = [(r, _list_all(ctx, r, namespace=name)) for r in ctx.discovery.namespaced_listable()]
    else:
        crd = ctx.request("GET", resource.path(None, name))
        spec = crd.get("spec") or {}
        listed = []
        for version in spec.get("versions") or []:
            if version.get("served"):
                kind = str((spec.get("names") or {}).get("kind") or "")
                served = ctx.discovery.find(f"{spec.get('group')}/{version['name']}", kind)
                if served is not None:
                    listed.append((served, _list_all(ctx, served)))
                    break
    ours: list[str] = []
    others: list[str] = []
    for inner, objects in listed:
        for obj in objects:
            meta = obj.get("metadata") or {}
            if bootstrapped(inner, meta):
                continue
            label = f"{inner.kind} {where(meta.get('namespace'), meta.get('name'))}"
            (ours if is_member(obj, applyset, ctx.options.field_manager) else others).append(label)
    return ours, others


def _list_all(ctx: Context, resource: Resource, namespace: str | None = None) -> list[dict[str, t.Any]]:
    return list(ctx.request("GET", resource.path(namespace)).get("items") or [])


def bootstrapped(resource: Resource, meta: t.Mapping[str, t.Any]) -> bool:
    """Objects the cluster creates in every namespace, events and objects owned by another object (they go with
    their owner, which is listed itself)."""
    name = str(meta.get("name") or "")
    return (resource.kind in _DERIVED_KINDS or (resource.kind, name) in _BOOTSTRAPPED or name.startswith("system:")
            or bool(meta.get("ownerReferences")))


def delete(ctx: Context, resource: Resource, namespace: str | None, name: str, uid: str | None,
           *, dry_run: bool) -> bool:
    """Deletes the object that was read, not a same-named one created since (its uid is the precondition). False
    when it was gone already."""
    # With a body the server reads every delete option from it and ignores the query: dryRun goes in both.
    query = {"dryRun": "All" if dry_run else None, "propagationPolicy": "Background"}
    body: dict[str, t.Any] | None = None
    if uid:
        body = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background",
                "preconditions": {"uid": uid}}
        if dry_run:
            body["dryRun"] = ["All"]
    try:
        ctx.request("DELETE", resource.path(namespace, name), query=query, body=body)
    except Unreachable as exc:
        if dry_run or not exc.sent:
            raise
        return lost_answers.deleted(ctx, resource, namespace, name, uid, exc)   # or raises
    except KubeError as exc:
        if exc.status != 404:
            raise
        return False
    return True


def prune(ctx: Context, candidate: PruneCandidate) -> dict[str, t.Any]:
    """Delete one candidate (a dry run in check mode); a real delete goes into the ledger as it is confirmed."""
    resource = candidate.resource
    if delete(ctx, resource, candidate.namespace, candidate.name, candidate.uid, dry_run=ctx.options.check_mode) \
            and not ctx.options.check_mode:
        ctx.ledger.record(resource.api_version, resource.kind, candidate.namespace, candidate.name, "pruned",
                          contents=candidate.contents)
    entry: dict[str, t.Any] = {"apiVersion": resource.api_version, "kind": resource.kind,
                               "namespace": candidate.namespace, "name": candidate.name, "action": "pruned"}
    if candidate.contents:
        entry["contents"] = list(candidate.contents)
    return entry
