# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The writes, rank by rank (objects of one rank in parallel): CRDs and Namespaces first, then what waited for them
is dry-run before anything else is written. Every confirmed write goes into the ledger as its answer arrives.
PRIVATE.
"""

from __future__ import annotations

import typing as t

from .context import Context
from .fields import diff, strip
from .model import KIND_RANK, WRITES, Item, Problem
from .plan import Planner, apply_patch
from .resolve import scope
from .waits import WaitSpec, wait_for_all

CRD_API_VERSION = "apiextensions.k8s.io/v1"


class PrerequisitesRefused(Exception):
    """What waited for a CRD or Namespace of this run was refused by its dry run once they existed."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("refused after their CRDs and namespaces were created")
        self.problems = problems


def write(ctx: Context, planner: Planner, items: list[Item]) -> None:
    prerequisites_done = False
    for rank in sorted({item.rank for item in items}):
        if not prerequisites_done and rank > KIND_RANK["Namespace"]:
            prerequisites_done = True
            _after_prerequisites(ctx, planner, items)
        batch = [i for i in items if i.rank == rank and i.action in WRITES and i.body is not None]
        ctx.parallel(lambda item: write_one(ctx, item), batch)
    if not prerequisites_done:
        _after_prerequisites(ctx, planner, items)


def write_one(ctx: Context, item: Item) -> None:
    status, result = apply_patch(ctx, item, item.body or item.desired, force=ctx.options.drift == "revert"
                                 or item.adopting, dry_run=False)
    if item.action == "created" and status != 201:
        # Created by someone else between this run's dry run and its write.
        item.action = "updated"
        ctx.warn(f"{item.label} was created by another client while this run planned; it was updated instead")
    action: t.Any = item.action if item.action in WRITES else "updated"
    ctx.ledger.record(item.api_version, item.kind, item.namespace, item.name, action, result,
                      index=None if item.is_parent else item.index, parent=item.is_parent)
    item.result = result
    item.changes = diff(strip(item.live), strip(result))


def _after_prerequisites(ctx: Context, planner: Planner, items: list[Item]) -> None:
    """Wait for the CRDs written, then plan what waited for them (or for a Namespace of this run)."""
    written_crds = [i for i in items if i.kind == "CustomResourceDefinition" and i.action in WRITES]
    if written_crds and ctx.options.wait:
        specs = [WaitSpec(CRD_API_VERSION, "CustomResourceDefinition", i.name, None, condition_type="Established")
                 for i in written_crds]
        wait_for_all(ctx.connection, ctx.discovery, specs, ctx.options.wait_timeout)
    deferred = [i for i in items if i.deferred]
    if not deferred:
        return
    if any(i.resource is None for i in deferred):
        ctx.discovery.refresh()
    problems: list[Problem] = []
    ready = []
    for item in deferred:
        item.resource = ctx.discovery.find(item.api_version, item.kind)
        if item.resource is None:
            problems.append(item.error("kind", "still not served after its CustomResourceDefinition was created"))
            continue
        problem = scope(ctx, item)
        if problem is not None:
            problems.append(problem)
            continue
        item.deferred = ""
        ready.append(item)
    problems += planner.plan_all(ready)
    if problems:
        raise PrerequisitesRefused(problems)
