# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""state=absent with prune's safeguards: find, dry-run every delete, check the lock's rights, take the lock, delete
(deepest rank first), every confirmed delete in the ledger. A refusal at the dry run deletes nothing; a failure
halfway reports exactly what was deleted. PRIVATE.
"""

from __future__ import annotations

import contextlib
import typing as t

from . import access, prune
from .applyset import ApplySet
from .client import KubeError
from .context import Context
from .fields import diff, strip
from .lock import ApplySetLock
from .model import CONTAINER_KINDS, Problem, PruneCandidate, Step, Target, summary
from .ownership import is_member
from .read import get_live
from .report import report
from .server_errors import problems_of

Key = tuple[str, str, str, str]


class DeleteFailed(KubeError):
    def __init__(self, what: str, problems: list[Problem]) -> None:
        super().__init__(summary(what, problems))
        self.what = what
        self.problems = problems


def _doomed(ctx: Context, items: t.Sequence[Target], applyset: ApplySet | None) -> tuple[list[Target], set[Key]]:
    """What exists and may go, and what is kept: with an apply set only its members go, never a Namespace or CRD
    (all that lives in it would go too); everything else is kept, with a warning."""
    doomed, kept = [], set()
    for item in items:
        if item.live is None or item.resource is None:
            continue
        if applyset is not None:
            if not is_member(item.live, applyset, ctx.options.field_manager):
                ctx.warn(f"{item.label} was not created by apply set {applyset.label}: kept")
                kept.add(item.key)
                continue
            if item.kind in CONTAINER_KINDS:
                ctx.warn(f"{item.label} is kept: deleting it would delete everything in it")
                kept.add(item.key)
                continue
        doomed.append(item)
    return doomed, kept


def _candidate(item: Target) -> PruneCandidate:
    if item.resource is None or item.live is None:
        raise ValueError(f"{item.label}: nothing to delete")   # a programming error
    return PruneCandidate(item.resource, item.namespace, item.name, (item.live.get("metadata") or {}).get("uid"))


def _dry_run(ctx: Context, item: Target) -> list[Problem]:
    candidate = _candidate(item)
    try:
        prune.delete(ctx, candidate.resource, candidate.namespace, candidate.name, candidate.uid, dry_run=True)
    except KubeError as exc:
        if exc.status in (0, 429, 503):
            raise
        return problems_of(item, exc)
    return []


def _read(ctx: Context, items: t.Sequence[Target]) -> dict[Key, Target]:
    readable = [i for i in items if i.resource is not None]
    return {i.key: i for i in ctx.parallel(lambda item: get_live(ctx, item), readable)}


def run(ctx: Context, items: t.Sequence[Target], applyset: ApplySet | None) -> dict[str, t.Any]:
    """Delete what ``items`` name (read first); dependency order reversed."""
    read = _read(ctx, items)
    doomed, kept = _doomed(ctx, list(read.values()), applyset)
    found = [p for batch in ctx.parallel(lambda item: _dry_run(ctx, item), doomed) for p in batch]
    if found:
        raise DeleteFailed("the API server refused deleting objects in a dry run; nothing was deleted", found)
    if ctx.options.check_mode or not doomed:
        return _finish(ctx, [read.get(i.key, i) for i in items], doomed, kept)
    lock = None
    if applyset is not None:
        wanted = access.needed([], [], (applyset.name, applyset.namespace, False))
        refused = access.check(ctx, wanted, {})
        if refused:
            raise DeleteFailed("this user may not take the apply set's lock; nothing was deleted", refused)
        lock = ApplySetLock(ctx.connection, applyset.namespace, applyset.name, ctx.options.lock_timeout)
    with lock if lock is not None else contextlib.nullcontext():
        if lock is not None:
            # Another run may have changed the set while this one waited: read again under the lock.
            read.update(_read(ctx, doomed))
            doomed, kept_now = _doomed(ctx, [read[i.key] for i in doomed], applyset)
            kept |= kept_now
        for rank in sorted({item.rank for item in doomed}, reverse=True):
            ctx.parallel(lambda item: _delete(ctx, item), [i for i in doomed if i.rank == rank])
    if lock is not None and lock.release_problem:
        ctx.warn(lock.release_problem)
    return _finish(ctx, [read.get(i.key, i) for i in items], doomed, kept)


def _delete(ctx: Context, item: Target) -> None:
    candidate = _candidate(item)
    if prune.delete(ctx, candidate.resource, candidate.namespace, candidate.name, candidate.uid, dry_run=False):
        ctx.ledger.record(item.api_version, item.kind, item.namespace, item.name, "deleted", index=item.index)


def _finish(ctx: Context, items: t.Sequence[Target], doomed: t.Sequence[Target], kept: set[Key]
            ) -> dict[str, t.Any]:
    gone = {i.key for i in doomed}
    steps = [Step.of(i, action="deleted", changes=tuple(diff(strip(i.live), {}))) if i.key in gone
             else Step.of(i, action="kept" if i.key in kept else "unchanged") for i in items]
    result = report(ctx, steps, [])
    result["deleted"] = ctx.ledger.deleted() if not ctx.options.check_mode else [
        {"apiVersion": i.api_version, "kind": i.kind, "namespace": i.namespace, "name": i.name, "action": "deleted"}
        for i in sorted(doomed, key=lambda i: i.index)]
    return result
