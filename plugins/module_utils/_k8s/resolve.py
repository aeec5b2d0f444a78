# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each item's resource (discovery), scope and namespace; the labels and fingerprint this run applies. PRIVATE.

A kind the server does not serve is named with what it does serve (the versions of that kind, or the kinds of
that group), unless a CRD of the same input defines it: then the item waits for that CRD.
"""

from __future__ import annotations

import typing as t

from .applyset import PART_OF_LABEL, ApplySet
from .context import Context
from .fields import FINGERPRINT_ANNOTATION, fingerprint
from .model import FIELD_MANAGER, Desired, Problem, Target
from .openapi import served_schemas
from .secrets import is_secret

MANAGED_BY_LABEL = "hyperconverged.virtinfra.io/managed-by"
R = t.TypeVar("R", bound=Desired)


def resolve(ctx: Context, items: t.Sequence[Desired]) -> tuple[list[Target], list[Problem]]:
    """Each object's resource and scope; an object with a problem is kept (the caller leaves it out by index)."""
    problems: list[Problem] = []
    input_kinds = {key for item in items if item.kind == "CustomResourceDefinition"
                   for key in served_schemas(item.desired)}
    targets: list[Target] = []
    for item in items:
        resource = ctx.discovery.find(item.api_version, item.kind)
        if resource is None:
            if (item.api_version, item.kind) in input_kinds:
                targets.append(Target.of(item, deferred="its CustomResourceDefinition is created by this run"))
            else:
                problems.append(item.error("kind", ctx.discovery.not_served(item.api_version, item.kind)))
                targets.append(Target.of(item))
            continue
        target, problem = scope(ctx, Target.of(item, resource=resource))
        targets.append(target)
        if problem is not None:
            problems.append(problem)
    return targets, problems


def scope(ctx: Context, item: Target) -> tuple[Target, Problem | None]:
    """The namespace of a namespaced item (its own, else the namespace option); none for a cluster-scoped one."""
    if item.resource is None:
        return item, None
    if item.resource.namespaced:
        namespace = item.namespace or ctx.options.namespace
        if not namespace:
            return item, item.error("metadata.namespace", "required value for a namespaced kind")
        if namespace == item.desired["metadata"].get("namespace"):
            return item, None
        desired = {**item.desired, "metadata": {**item.desired["metadata"], "namespace": namespace}}
        return item.but(namespace=namespace, desired=desired), None
    if item.namespace:
        return item, item.error("metadata.namespace", f"{item.kind} is cluster-scoped")
    return item, None


def label(item: R, applyset: ApplySet | None, member: bool = True) -> R:
    """Our labels (the apply set's when the object is to be a member) and the input fingerprint, which tells an
    input change from someone else's edit."""
    metadata = dict(item.desired["metadata"])
    desired = {**item.desired, "metadata": metadata}
    labels = metadata["labels"] = dict(metadata.get("labels") or {})
    labels[MANAGED_BY_LABEL] = FIELD_MANAGER
    if applyset is not None and member:
        labels[PART_OF_LABEL] = applyset.id
    else:
        labels.pop(PART_OF_LABEL, None)
    annotations = metadata["annotations"] = dict(metadata.get("annotations") or {})
    annotations.pop(FINGERPRINT_ANNOTATION, None)
    if not is_secret(desired):
        # A Secret gets no content hash: metadata-only readers could test guesses against it.
        annotations[FINGERPRINT_ANNOTATION] = fingerprint(desired)
    elif not annotations:
        metadata.pop("annotations")
    return item.but(desired=desired)
