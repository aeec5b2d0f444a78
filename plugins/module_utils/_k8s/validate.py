# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Custom resources against their CRD's schema (served by the cluster, or in the same input), before any dry run.
An object that already holds every desired value was validated by the server when it was written. PRIVATE."""

from __future__ import annotations

import typing as t

from .context import Context
from .model import Problem, Target
from .openapi import served_schemas, validate_custom_resource

Schemas = dict[tuple[str, str], dict[str, t.Any]]
_BUILTIN_GROUPS = frozenset({"", "apps", "batch", "autoscaling", "policy"})


def may_be_custom(api_version: str) -> bool:
    """Custom resources never use the built-in groups; *.k8s.io groups are reserved for Kubernetes itself."""
    group = api_version.rpartition("/")[0]
    return group not in _BUILTIN_GROUPS and not group.endswith(".k8s.io")


def live_schemas(ctx: Context) -> Schemas:
    schemas: Schemas = {}
    crds = ctx.request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
    for crd in crds.get("items") or []:
        schemas.update(served_schemas(crd))
    return schemas


def validate(ctx: Context, items: t.Sequence[Target], settled: t.Callable[[Target], bool], cache: list[Schemas]
             ) -> tuple[list[Problem], frozenset[int]]:
    """The problems the CRD schemas find, and the input indexes of the objects a schema checked. ``cache`` keeps
    the live CRD schemas across the two plans of a run (one LIST of CRDs per run)."""
    input_schemas: Schemas = {}
    for item in items:
        if item.kind == "CustomResourceDefinition":
            input_schemas.update(served_schemas(item.desired))
    custom = [i for i in items if may_be_custom(i.api_version) and not settled(i)]
    if not custom:
        return [], frozenset()
    if not cache and any(i.resource for i in custom):
        cache.append(live_schemas(ctx))
    served = cache[0] if cache else {}
    problems: list[Problem] = []
    checked: set[int] = set()
    for item in custom:
        schema = input_schemas.get((item.api_version, item.kind)) or served.get((item.api_version, item.kind))
        if schema is None:
            continue  # a built-in or aggregated API: the dry run validates it
        checked.add(item.index)
        problems += [item.error(path, message) for path, message in validate_custom_resource(item.desired, schema)]
    return problems, frozenset(checked)
