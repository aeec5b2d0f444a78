# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a write or delete whose answer was lost did, read back from the server. PRIVATE.

A request that reached the server and whose answer never came back (cut short, a header that never ends, a timeout)
may have been carried out. A lost answer is an unknown, not a "no": the object is read again and the write counted
as done when the server holds it (its resourceVersion moved and it holds every value applied, the input fingerprint
among them), as not done when it is as it was; when it cannot be read, or someone else's change hides ours, the
ledger records it as "unknown", which a failed run lists and counts as a possible change.
"""

from __future__ import annotations

import typing as t

from .client import KubeError, Unreachable
from .context import Context
from .discovery import Resource
from .fields import contained
from .model import Step


def applied(ctx: Context, step: Step, lost: Unreachable) -> dict[str, t.Any]:
    """The object as the server holds it after an apply whose answer was lost, when it holds the apply; otherwise
    ``lost`` is raised again, once the ledger says "unknown" where that is the truth."""
    if step.resource is None:
        raise ValueError(f"{step.label}: no resource resolved")   # a programming error: planned steps have one
    index = None if step.is_parent else step.index
    live = _read(ctx, step.resource, step.namespace, step.name, lost,
                 lambda: ctx.ledger.record(step.api_version, step.kind, step.namespace, step.name, "unknown",
                                           index=index, parent=step.is_parent))
    if live is not None and _version(live) != _version(step.live):
        if contained(step.body or step.desired, live):
            # Said, so that a broken path to the server does not go unnoticed behind a run that succeeded.
            ctx.warn(f"{step.label}: the answer to its write was lost ({lost}); read back, the server holds the "
                     "write: counted as written")
            return live
        # Changed, but it does not hold what was applied: someone else's write came after, or instead of, ours.
        ctx.ledger.record(step.api_version, step.kind, step.namespace, step.name, "unknown", index=index,
                          parent=step.is_parent)
    raise lost


def deleted(ctx: Context, resource: Resource, namespace: str | None, name: str, uid: str | None,
            lost: Unreachable) -> bool:
    """Whether a delete whose answer was lost happened: the object is gone, or it is the one read and it is being
    deleted (finalizers hold it). Otherwise ``lost`` is raised again."""
    live = _read(ctx, resource, namespace, name, lost,
                 lambda: ctx.ledger.record(resource.api_version, resource.kind, namespace, name, "unknown"))
    metadata = (live or {}).get("metadata") or {}
    if live is None or (metadata.get("deletionTimestamp") and (not uid or metadata.get("uid") == uid)):
        where = f"{namespace}/{name}" if namespace else name
        ctx.warn(f"{resource.kind} {where}: the answer to its delete was lost ({lost}); read back, it is gone or "
                 "going: counted as deleted")
        return True
    raise lost


def _read(ctx: Context, resource: Resource, namespace: str | None, name: str, lost: Unreachable,
          unknown: t.Callable[[], t.Any]) -> dict[str, t.Any] | None:
    """The object now (None when it does not exist); when it cannot be read, ``unknown`` records so and the lost
    answer is raised with both reasons."""
    try:
        return t.cast("dict[str, t.Any]", ctx.connection.request("GET", resource.path(namespace, name)))
    except KubeError as exc:
        if exc.status == 404:
            return None
        unknown()
        raise Unreachable(f"{lost}; then it could not be read back to learn whether it happened ({exc})",
                          sent=True) from None


def _version(live: t.Mapping[str, t.Any] | None) -> str | None:
    return ((live or {}).get("metadata") or {}).get("resourceVersion")
