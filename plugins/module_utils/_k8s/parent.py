# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The apply-set parent as an item: planned and written like an object, before any member, and written again after
a prune with only what is left. PRIVATE."""

from __future__ import annotations

import typing as t

from .applyset import PARENT_API_VERSION, PARENT_KIND, ApplySet, Record, group_kind
from .context import Context
from .fields import diff, strip
from .model import FIELD_MANAGER, PARENT_RANK, Problem, Step, Target
from .plan import apply_patch
from .read import get_live
from .resolve import MANAGED_BY_LABEL


def record_of(items: t.Iterable[Target]) -> Record:
    """The group-kinds and namespaces of the members among ``items`` (shared objects and the parent are not)."""
    members = [i for i in items if not i.is_parent and not i.shared]
    return Record({group_kind(i.api_version, i.kind) for i in members},
                  {i.namespace for i in members if i.namespace})


def parent_item(ctx: Context, applyset: ApplySet, items: list[Target], input_namespaces: set[str]
                ) -> tuple[Target | None, Record, Problem | None]:
    """The parent records the union of what it recorded and this run's members, so that members written by a run
    that is then interrupted are still found by the next run's prune. Returns (parent, what it recorded, problem)."""
    parent = get_live(ctx, Target(-1, {}, PARENT_API_VERSION, PARENT_KIND, applyset.name, applyset.namespace,
                                  rank_override=PARENT_RANK,
                                  resource=ctx.discovery.find(PARENT_API_VERSION, PARENT_KIND)))
    recorded, problem = applyset.read(parent.live)
    if problem:
        return None, recorded, Problem(object="apply_set", index=None, path="apply_set", message=problem)
    record = recorded.union(record_of(items))
    if ctx.options.namespace and any(i.resource is None and not i.namespace for i in items):
        record.namespaces.add(ctx.options.namespace)  # kinds its CRD brings may be namespaced
    deferred = f"its namespace {parent.namespace} is created by this run" \
        if parent.live is None and parent.namespace in input_namespaces else ""
    return parent.but(desired=applyset.parent(record, {MANAGED_BY_LABEL: FIELD_MANAGER}), deferred=deferred), \
        recorded, None


def shrink(ctx: Context, applyset: ApplySet, parent: Step, members: t.Sequence[Target], kept: Record) -> Step:
    """After a prune, the parent records only what is left: this run's members and what was kept."""
    record = record_of(members).union(kept)
    record.namespaces.add(applyset.namespace)   # implicit in the parent: read() gives it back
    current = parent.result or parent.live
    if current is not None and applyset.read(current)[0] == record:
        return parent
    body = applyset.parent(record, {MANAGED_BY_LABEL: FIELD_MANAGER})
    before = parent.live
    result = apply_patch(ctx, parent, body, force=True, dry_run=False)[1]
    ctx.ledger.record(parent.api_version, parent.kind, parent.namespace, parent.name,
                      "created" if before is None else "updated", result, parent=True)
    changes = tuple(diff(strip(before), strip(result)))
    action = "created" if before is None else ("updated" if changes else parent.action)
    return parent.but(result=result, changes=changes, action=action)
