# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What each object needs: settled objects without a request, the rest by a server-side dry run; drift; who owns an
existing object (ownership.py) before anything is planned to be written. PRIVATE.
"""

from __future__ import annotations

import copy
import typing as t

from .applyset import ApplySet
from .client import KubeError
from .context import Context
from .emptied import emptied_paths, with_empty, without
from .fields import (
    FINGERPRINT_ANNOTATION,
    contained,
    diff,
    fieldset_within,
    main_resource_entries,
    ownership,
    owns,
    strip,
    without_foreign,
)
from .model import Problem, Step, Target
from .ownership import conflicts, never_applied, other_set, refusal, verdict
from .read import get_live
from .resolve import label
from .server_errors import fatal, namespace_missing, problems_of


class Planner:
    """Kept across the two plans of a run that takes the lock: a dry run against the same live object (same
    resourceVersion, or still absent) and the same body answers the same."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.applyset: ApplySet | None = None
        self.input_namespaces: set[str] = set()
        self._dry_runs: dict[tuple[t.Any, ...], tuple[int, dict[str, t.Any]]] = {}

    def begin(self, applyset: ApplySet | None, input_namespaces: set[str]) -> None:
        self.applyset, self.input_namespaces = applyset, input_namespaces

    # ------------------------------------------------------------------ ownership
    def own(self, item: Target) -> tuple[Target, Problem | None]:
        """Apply the ownership rule once the live object is known (ownership.py)."""
        if item.owner != "unchecked" or item.live is None or item.is_parent:
            return item, None
        options = self.ctx.options
        decided = verdict(item, self.applyset, options.field_manager, options.adopt)
        if decided == "shared":
            owner_set = other_set(item.live, self.applyset, options.field_manager)
            return label(item.but(owner="shared", owner_set=owner_set), self.applyset, member=False), None
        if decided == "adopt":
            return item.but(owner="adopting"), None
        if decided == "refused" and self.applyset is not None:
            return item, refusal(item, self.applyset)
        return item.but(owner="member"), None

    # ------------------------------------------------------------------ planning
    def plan_all(self, items: t.Sequence[Target], checked: frozenset[int] = frozenset()
                 ) -> tuple[list[Step], list[Problem]]:
        """A Step per item, in the same order. Objects already as desired are settled here, without a request;
        deferred ones wait (write.py plans them again); the rest are dry-run in parallel (on a no-op run of
        thousands of objects, a thread pool would cost more than the comparisons themselves). ``checked``: the
        input indexes a CRD schema validated."""
        problems: list[Problem] = []
        steps: list[Step] = []
        pending: list[tuple[int, Target]] = []
        for item in items:
            owned, problem = self.own(item)
            steps.append(Step.of(owned, validated_by="crd-schema" if item.index in checked else ""))
            if problem is not None:
                problems.append(problem)
            elif not owned.deferred and not self.settled(owned):
                pending.append((len(steps) - 1, owned))
        for (position, _item), (step, found) in zip(pending, self.ctx.parallel(self.plan, [p[1] for p in pending])):
            steps[position] = step
            problems += found
        return steps, problems

    def plan(self, item: Target) -> tuple[Step, list[Problem]]:
        """Decide what an object that is not settled needs, by a server-side dry run."""
        try:
            item, predicted = self.dry_run(item, item.desired, force=True)
            if item.owner == "unchecked" and item.live is not None:
                item, problem = self.own(item)
                if problem is not None:
                    return Step.of(item), [problem]
                if item.owner_set:
                    return Step.of(item, result=item.live, validated_by="dry-run"), []
                if item.shared:
                    item, predicted = self.dry_run(item, item.desired, force=True)
            if self._takes_fields(item):
                item, predicted = self.dry_run(item, item.desired, force=False)
        except KubeError as exc:
            if exc.status == 409 and self._takes_fields(item):
                found = conflicts(item, exc.causes, self.ctx.options.field_manager)
                if found:
                    return Step.of(item), found
            return self._refused(item, exc)
        live = item.live
        step = Step.of(item, validated_by="dry-run", changes=tuple(diff(strip(live), strip(predicted))),
                       body=item.desired, result=predicted)
        if not step.changes:
            return step, []
        step = step.but(action="created" if live is None else ("adopted" if item.adopting else "updated"))
        if live is None:
            return step, []
        if self.ctx.options.drift == "report" and not item.adopting:
            return self._report_mode(step, live)
        return step.but(drift=self._drift(step, live)), []

    def _takes_fields(self, item: Target) -> bool:
        """Applying would force fields of an object our field manager never applied (no apply set decides its
        membership): planned without force instead, so another manager's fields are conflicts (ownership.py)."""
        options = self.ctx.options
        return (self.applyset is None and item.live is not None and not options.adopt and options.drift == "revert"
                and never_applied(item.live, options.field_manager))

    def _refused(self, item: Target, exc: KubeError) -> tuple[Step, list[Problem]]:
        stop = fatal(item, exc)
        if stop is not None:
            raise stop
        if exc.status in (0, 429, 503):
            raise exc   # the server could not answer (retries spent): not a problem of this object
        if namespace_missing(exc) and item.namespace:
            options = self.ctx.options
            if item.namespace in self.input_namespaces:
                return Step.of(item, deferred=f"its namespace {item.namespace} is created by this run"), []
            if options.check_mode and item.namespace in options.namespaces_created_earlier:
                return Step.of(item, deferred=f"its namespace {item.namespace} is created by an earlier task of "
                                              "this run"), []
            if options.check_mode:
                # An earlier task of the same play may create it, which check mode does not do: say so.
                self.ctx.warn(f"{item.label}: namespace {item.namespace} does not exist; a real run fails unless "
                              "an earlier task creates it")
                return Step.of(item, deferred=f"its namespace {item.namespace} does not exist yet"), []
            return Step.of(item), [item.error("metadata.namespace", f"namespace {item.namespace} does not exist and "
                                                                    "is not among the objects of this call")]
        return Step.of(item), problems_of(item, exc)

    def _report_mode(self, step: Step, live: dict[str, t.Any]) -> tuple[Step, list[Problem]]:
        """drift=report: nothing another field manager set is changed."""
        field_manager = self.ctx.options.field_manager
        if input_unchanged(step, live):
            # Same input as our last apply: every difference is someone else's edit (a change, or a removal that
            # leaves the field to nobody). Report it all, write nothing.
            owners = ownership(live)
            owners.pop(field_manager, None)
            drift = tuple({**c, "managers": sorted(n for n, paths in owners.items() if owns(paths, c["_path"]))}
                          for c in step.changes)
            return step.but(drift=drift, body=None, result=live, changes=(), action="unchanged"), []
        # Only what no other manager set: their fields stay out of our configuration, at any depth.
        body, kept = without_foreign(step.desired, live, field_manager)
        step = step.but(drift=tuple(kept))
        if body == step.desired:
            return step, []
        try:
            _item, predicted = self.dry_run(step, body, force=False)
        except KubeError as exc:
            return self._refused(step, exc)
        changes = tuple(diff(strip(live), strip(predicted)))
        return step.but(body=body, result=predicted, changes=changes,
                        action="updated" if changes else "unchanged"), []

    def settled(self, item: Target) -> bool:
        """Every desired value is live, and every field we own is still desired: nothing to send. The values are
        compared, not only managedFields: another manager's replace that drops a key we applied leaves our entry
        without the key and no entry of its own."""
        if item.owner_set:
            return True   # another apply set's: used as it is (ownership.py)
        if item.live is None or not item.desired:
            return False
        ours = [entry.get("fieldsV1") or {} for entry in main_resource_entries(item.live)
                if entry.get("manager", "") == self.ctx.options.field_manager]
        return contained(item.desired, item.live) and all(fieldset_within(fields, item.desired) for fields in ours)

    def _drift(self, step: Step, live: dict[str, t.Any]) -> tuple[dict[str, t.Any], ...]:
        """Changes that undo someone else's edit: the input is unchanged since our last apply, or another manager
        owns the field now."""
        unchanged_input = input_unchanged(step, live)
        owners = ownership(live)
        ours = owners.pop(self.ctx.options.field_manager, set())
        drift = []
        for change in step.changes:
            path = change["_path"]
            others = sorted(name for name, paths in owners.items() if owns(paths, path))
            if unchanged_input or (others and not owns(ours, path)):
                drift.append({**change, "managers": others})
        return tuple(drift)

    # ------------------------------------------------------------------ the server's answers
    def dry_run(self, item: Target, body: dict[str, t.Any], *, force: bool) -> tuple[Target, dict[str, t.Any]]:
        """The server's answer to applying ``body``, and the item as the answer showed it: an object whose live
        state was unknown is read only when the answer says it exists (200, not 201). Answers are reused for the
        same body against the same live state."""
        live = item.live
        version = (live.get("metadata") or {}).get("resourceVersion") if live else None
        key = (item.key, force, body is item.desired, item.shared, version)
        cached = self._dry_runs.get(key)
        if cached is None:
            status, answer = apply_patch(self.ctx, item, body, force=force, dry_run=True)
            predicted = t.cast(dict[str, t.Any], answer)
            self._dry_runs[key] = (status, predicted)
        else:
            status, predicted = cached[0], copy.deepcopy(cached[1])
        if not item.live_unknown:
            return item, predicted
        if status == 201:
            return item.but(live_unknown=False), predicted
        item = get_live(self.ctx, item)
        if item.live is not None:
            return self.dry_run(item, body, force=force)   # against what it now is
        return item, predicted


def input_unchanged(item: Target, live: dict[str, t.Any]) -> bool:
    wanted = (item.desired["metadata"].get("annotations") or {}).get(FINGERPRINT_ANNOTATION)
    annotations = (live.get("metadata") or {}).get("annotations") or {}
    return wanted is not None and annotations.get(FINGERPRINT_ANNOTATION) == wanted


def apply_patch(ctx: Context, item: Target, body: dict[str, t.Any], *, force: bool, dry_run: bool
                ) -> tuple[int, t.Any]:
    """Server-side apply of ``body``: the HTTP status (201 when it creates the object) and the object."""
    if item.resource is None:
        raise ValueError(f"{item.label}: no resource resolved")   # a programming error
    query = {"fieldManager": ctx.options.field_manager, "fieldValidation": "Strict",
             "force": "true" if force else "false", "dryRun": "All" if dry_run else None}
    where = item.resource.path(item.namespace, item.name)

    def send(payload: dict[str, t.Any]) -> tuple[int, t.Any]:
        return ctx.connection.exchange("PATCH", where, query=query, body=payload,
                                       content_type="application/apply-patch+yaml")

    emptied = emptied_paths(body, item.live) if item.live is not None else []
    if not emptied:
        return send(body)
    status, first = send(without(body, emptied))   # two steps (emptied.py): the emptied mappings' children go first
    if dry_run:
        return status, with_empty(t.cast(dict[str, t.Any], first), emptied)
    try:
        return send(body)
    except KubeError:   # the first step was written: the result says so
        ctx.ledger.record(item.api_version, item.kind, item.namespace, item.name, "updated", first,
                          index=None if item.is_parent else item.index, parent=item.is_parent)
        raise
