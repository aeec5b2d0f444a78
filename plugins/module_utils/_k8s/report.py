# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The last stage: the result as documented in k8s_apply's RETURN, Secrets redacted. PRIVATE.

In a real run what was written comes from the ledger (what the server confirmed); in check mode from the plan.
"""

from __future__ import annotations

import collections
import typing as t

from .applyset import PARENT_API_VERSION, ApplySet
from .context import Context
from .fields import diff, public, strip
from .model import Step
from .proxies import shown
from .secrets import redact_changes, redact_object

# The entry names the object, and its identity never changes (another name is another object), so its change list
# repeats none of it: a created object lists its other fields. (Listing them took 7 changes for a ConfigMap where 3
# say what it holds, and the result's size is what Ansible's controller pays for, per object, to convert it.)
IDENTITY_PATHS = frozenset({"apiVersion", "kind", "metadata.name", "metadata.namespace"})


def report(ctx: Context, items: t.Sequence[Step], pruned: list[dict[str, t.Any]], applyset: ApplySet | None = None,
           parent: Step | None = None) -> dict[str, t.Any]:
    options = ctx.options
    objects: list[dict[str, t.Any]] = []
    diffs: list[dict[str, t.Any]] = []
    for item in sorted(items, key=lambda i: i.index):
        entry, change = _entry(ctx, item)
        objects.append(entry)
        if change is not None:
            diffs.append(change)
    if options.check_mode:
        changed = any(o["action"] in ("created", "updated", "adopted", "deleted") for o in objects) or bool(pruned)
    else:
        changed = ctx.ledger.changed
        pruned = ctx.ledger.pruned()
    apply_set = _applyset(ctx, applyset, parent, diffs)
    if options.check_mode:
        changed = changed or apply_set.get("action") in ("created", "updated")
    return {
        "changed": changed,
        "objects": objects,
        "counts": dict(sorted(collections.Counter(o["action"] for o in objects).items())),
        "apply_set": apply_set,
        "pruned": pruned,
        "drift_total": sum(o["drift"]["count"] for o in objects),
        "reverted_total": sum(o["reverted"] for o in objects),
        "requests": requests_made(ctx.connection),
        "diff": diffs,
        "warnings": ctx.warnings,
    }


def _entry(ctx: Context, item: Step) -> tuple[dict[str, t.Any], dict[str, t.Any] | None]:
    options = ctx.options
    secret = item.kind == "Secret"
    entry: dict[str, t.Any] = {
        "apiVersion": item.api_version, "kind": item.kind, "namespace": item.namespace, "name": item.name,
        "action": item.action, "changes": _listed(item.changes, secret),
        "drift": {"count": len(item.drift), "fields": redact_changes(public(item.drift), secret)},
        "reverted": len(item.drift) if (item.drift and options.drift == "revert"
                                        and item.action in ("updated", "adopted")) else 0,
        "validated_by": item.validated_by or ("deferred" if item.deferred else "live-state"),
    }
    if item.shared:
        entry["membership"] = "shared"
    if item.owner_set:
        entry["owner_apply_set"] = item.owner_set
    changes = item.changes
    if item.deferred:
        entry["deferred"] = item.deferred
        if item.action == "unchanged" and options.state == "present":
            entry["action"] = "created" if options.check_mode else entry["action"]
            changes = tuple(diff({}, strip(item.desired)))
            entry["changes"] = _listed(changes, secret)
    if not changes or entry["action"] in ("unchanged", "missing", "drifted", "kept"):
        return entry, None
    before = strip(item.live) if item.live else {}
    after = strip(item.result) if item.result and item.action != "deleted" else {}
    if item.deferred and options.check_mode:
        after = strip(item.desired)
    header = f"{item.api_version} {item.label}"
    return entry, {"before_header": header, "after_header": header,
                   "before": redact_object(before, secret), "after": redact_object(after, secret)}


def _listed(changes: t.Iterable[dict[str, t.Any]], secret: bool) -> list[dict[str, t.Any]]:
    return redact_changes(public(c for c in changes if c["path"] not in IDENTITY_PATHS), secret)


def _applyset(ctx: Context, applyset: ApplySet | None, parent: Step | None,
              diffs: list[dict[str, t.Any]]) -> dict[str, t.Any]:
    if parent is None or applyset is None:
        return {}
    # check mode: a parent whose namespace this run creates would be created with it
    action = "created" if parent.deferred and parent.action == "unchanged" else parent.action
    record = applyset.read(parent.result or parent.desired)[0]
    if parent.changes or (parent.deferred and ctx.options.check_mode):
        header = f"{PARENT_API_VERSION} {parent.label} (apply-set parent)"
        diffs.append({"before_header": header, "after_header": header,
                      "before": strip(parent.live) if parent.live else {},
                      "after": strip(parent.result if parent.result else parent.desired)})
    return {"name": applyset.name, "namespace": applyset.namespace, "id": applyset.id,
            "parent": f"{PARENT_API_VERSION} {applyset.label}", "action": action,
            "group_kinds": sorted(record.group_kinds), "namespaces": sorted(record.namespaces)}


def noteworthy(entry: t.Mapping[str, t.Any]) -> bool:
    """An object entry a person needs to see: it changed (or would), drifted, is missing or was deferred."""
    return entry["action"] != "unchanged" or bool(entry["drift"]["count"]) or "deferred" in entry


def sized(result: dict[str, t.Any], report_mode: str) -> dict[str, t.Any]:
    """The result as returned to Ansible: with report=changed only the noteworthy object entries (the counts
    cover all of them), so a no-op run over thousands of objects returns a few lines, not thousands."""
    if report_mode == "all":
        return result
    return {**result, "objects": [entry for entry in result["objects"] if noteworthy(entry)]}


def connection_used(connection: t.Any) -> dict[str, t.Any]:
    """Where the call connected and what chose it, shown at -v: C({server, source, proxy, proxy_source}); the
    proxy without its credentials."""
    if connection is None:
        return {}
    target = connection.endpoint
    return {"server": target.server, "source": target.source, "proxy": shown(target.proxy) if target.proxy else None,
            "proxy_source": target.proxy_source or None}


def requests_made(connection: t.Any) -> dict[str, t.Any]:
    """The requests a connection made, in the one shape every module returns: C({total, writes, by_method})."""
    if connection is None:
        return {"total": 0, "writes": 0, "by_method": {}}
    return {"total": connection.request_count, "writes": connection.write_count,
            "by_method": dict(connection.requests)}
