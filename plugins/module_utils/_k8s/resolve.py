# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each item's resource (discovery), scope and namespace; the labels and fingerprint this run applies. PRIVATE.

A kind the server does not serve is named with what it does serve (the versions of that kind, or the kinds of
that group), unless a CRD of the same input defines it: then the item waits for that CRD.
"""

from __future__ import annotations

from .applyset import PART_OF_LABEL, ApplySet
from .context import Context
from .fields import FINGERPRINT_ANNOTATION, fingerprint
from .model import FIELD_MANAGER, Item, Problem
from .openapi import served_schemas
from .secrets import is_secret

MANAGED_BY_LABEL = "hyperconverged.virtinfra.io/managed-by"


def resolve(ctx: Context, items: list[Item]) -> list[Problem]:
    problems: list[Problem] = []
    input_kinds = {key for item in items if item.kind == "CustomResourceDefinition"
                   for key in served_schemas(item.desired)}
    for item in items:
        item.resource = ctx.discovery.find(item.api_version, item.kind)
        if item.resource is None:
            if (item.api_version, item.kind) in input_kinds:
                item.deferred = "its CustomResourceDefinition is created by this run"
            else:
                problems.append(item.error("kind", ctx.discovery.not_served(item.api_version, item.kind)))
            continue
        problem = scope(ctx, item)
        if problem is not None:
            problems.append(problem)
    return problems


def scope(ctx: Context, item: Item) -> Problem | None:
    """The namespace of a namespaced item (its own, else the namespace option); none for a cluster-scoped one."""
    if item.resource is None:
        return None
    if item.resource.namespaced:
        item.namespace = item.namespace or ctx.options.namespace
        if not item.namespace:
            return item.error("metadata.namespace", "required value for a namespaced kind")
        item.desired["metadata"]["namespace"] = item.namespace
    elif item.namespace:
        return item.error("metadata.namespace", f"{item.kind} is cluster-scoped")
    return None


def label(item: Item, applyset: ApplySet | None, member: bool = True) -> None:
    """Our labels (the apply set's when the object is to be a member) and the input fingerprint, which tells an
    input change from someone else's edit."""
    metadata = item.desired["metadata"]
    labels = metadata.setdefault("labels", {})
    labels[MANAGED_BY_LABEL] = FIELD_MANAGER
    if applyset is not None and member:
        labels[PART_OF_LABEL] = applyset.id
    else:
        labels.pop(PART_OF_LABEL, None)
    annotations = metadata.setdefault("annotations", {})
    annotations.pop(FINGERPRINT_ANNOTATION, None)
    if not is_secret(item.desired):
        # A Secret gets no content hash: metadata-only readers could test guesses against it.
        annotations[FINGERPRINT_ANNOTATION] = fingerprint(item.desired)
    elif not annotations:
        metadata.pop("annotations")
