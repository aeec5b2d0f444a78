# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The apply pipeline, stage by stage:

[LISTs sent] parse → resolve → read → ownership → parent → validate → plan (dry runs) → find prunable → access
→ [write the lock's Namespace, lock, plan again: LISTs read again, the parsed input reused] → write → prune
→ waits → report

Local problems stop the call before its first request; problems of the plan stop it before its first write; a
failure after that reports exactly what the ledger recorded. state=absent and state=observed have their own last
stages (delete.py, observe.py).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .._common.errors import ClusterFailed
from . import access, delete, observe, prune
from .applyset import ApplySet, Record, name_problem
from .client import Connection, KubeError
from .context import Context
from .discovery import Discovery
from .gc_pause import collection_paused
from .lock import ApplySetLock
from .model import FIELD_MANAGER, WRITES, Desired, Options, Problem, PruneCandidate, Step, Target, ordered, summary
from .parent import parent_item, record_of, shrink
from .parse import parse
from .plan import Planner
from .read import Listing, input_scopes, read_live, scopes_of
from .report import noteworthy, report, sized
from .resolve import MANAGED_BY_LABEL, label, resolve
from .secrets import Masker, secret_values
from .server_errors import WebhookUnavailable
from .validate import Schemas, validate
from .waits import WaitFailed, wait_for_all
from .write import PrerequisitesRefused, write, write_one

T = t.TypeVar("T", bound=Desired)

__all__ = ["FIELD_MANAGER", "MANAGED_BY_LABEL", "Applier", "ApplyFailed", "Options", "noteworthy",
           "secret_values", "sized"]


class ApplyFailed(ClusterFailed):
    def __init__(self, message: str, errors: list[dict[str, t.Any]] | None = None,
                 partial: dict[str, t.Any] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []
        self.partial = partial or {}


@dataclasses.dataclass(frozen=True)
class Plan:
    """What the planning stages decided: a Step per object, the parent's among them."""

    steps: tuple[Step, ...]             # members and the parent, in dependency order
    prunable: tuple[PruneCandidate, ...]
    kept: Record                        # members that left the input but stay (recorded again)
    home: Step | None                   # the lock's Namespace when this run creates it

    @property
    def writes(self) -> bool:
        """The plan writes or prunes something (an object deferred to after its Namespace or CRD counts)."""
        return bool(self.prunable) or any(s.action in WRITES or s.deferred for s in self.steps)


class Applier:
    def __init__(self, connection: Connection, options: Options) -> None:
        self.ctx = Context(connection, options, Discovery(connection))
        self.planner = Planner(self.ctx)
        self._schemas: list[Schemas] = []                       # the live CRD schemas, read once per call
        self._access: dict[access.Attributes, bool] = {}        # review answers, kept across the two plans
        self._input_problems: list[Problem] = []                # what the caller found in the input (src files)
        # The input parsed, resolved and labelled by the first plan, for the plan under the lock: the same input
        # and discovery give the same targets (a second pass over thousands of objects would delay every write).
        self._prepared: tuple[list[Target], list[Problem]] | None = None

    @property
    def warnings(self) -> list[str]:
        return self.ctx.warnings

    # ------------------------------------------------------------------ entry point
    def run(self, objects: t.Sequence[t.Any], origins: t.Sequence[str | None] | None = None,
            input_errors: t.Sequence[Problem | dict[str, t.Any]] = ()) -> dict[str, t.Any]:
        """``origins`` names where each object came from (``None``: ``objects[i]``); ``input_errors`` are problems
        the caller found in the input (an unreadable manifest file). Every local problem stops the call before its
        first request."""
        with collection_paused():   # gc_pause.py: why
            return self._run(objects, origins, input_errors)

    def _run(self, objects: t.Sequence[t.Any], origins: t.Sequence[str | None] | None,
             input_errors: t.Sequence[Problem | dict[str, t.Any]]) -> dict[str, t.Any]:
        ctx = self.ctx
        ctx.masker = Masker(secret_values(objects))
        options = ctx.options
        invalid = self._option_problems()
        if invalid:
            self._fail("invalid options; nothing was sent to the API server", invalid)
        self._input_problems = [Problem.of(p) for p in input_errors]
        applyset = ApplySet(options.apply_set, options.apply_set_namespace or options.namespace or "default") \
            if options.apply_set and options.state in ("present", "absent") else None
        try:
            first = self._plan(objects, origins, applyset, locked=False)
        except WebhookUnavailable as exc:
            self._webhook_failed(exc)
        if not isinstance(first, Plan):
            return first   # observed, absent
        if applyset is None or options.check_mode or not first.writes:
            return self._execute(first, applyset, None)
        home = first.home
        del first   # the plan under the lock replaces it: thousands of items and answers need not live twice
        if home is not None:
            # The lock lives in the parent's namespace, which this run creates: that Namespace is the first write
            # (validated and dry-run already; creating it prunes nothing), then the lock.
            home = self._guarded(lambda: write_one(ctx, t.cast(Step, home)))
        with ApplySetLock(ctx.connection, applyset.namespace, applyset.name, options.lock_timeout) as lock:
            try:
                again = self._plan(objects, origins, applyset, locked=True)
            except WebhookUnavailable as exc:
                self._webhook_failed(exc)
            result = self._execute(t.cast(Plan, again), applyset, lock, home)
        if lock.waited_for:
            result["warnings"].append(f"waited {lock.waited:.0f} s for the lock of apply set {applyset.label}, "
                                      f"held by {lock.waited_for}")
        if lock.release_problem:
            result["warnings"].append(lock.release_problem)
        return result

    def _option_problems(self) -> list[Problem]:
        options = self.ctx.options
        problems = []
        if options.prune and not options.apply_set:
            problems.append(Problem(object="options", path="apply_set", message=(
                "prune needs an apply_set named on purpose: there is no default set, so two runs can never prune "
                "each other's objects by accident")))
        for option in ("apply_set", "apply_set_namespace"):
            value = getattr(options, option)
            if value is not None and name_problem(value):
                problems.append(Problem(object="options", index=None, path=option, message=name_problem(value)))
        return problems

    # ------------------------------------------------------------------ planning (no write)
    def _plan(self, objects: t.Sequence[t.Any], origins: t.Sequence[str | None] | None,
              applyset: ApplySet | None, *, locked: bool) -> Plan | dict[str, t.Any]:
        ctx, options = self.ctx, self.ctx.options
        listing = None
        if options.state == "present" and not self._input_problems:
            # Sent now: the server lists while the objects are parsed, resolved and labelled (read.py: Listing).
            scopes = input_scopes(ctx, objects)
            listing = Listing(ctx, scopes, applyset) if scopes is not None else None
        if self._prepared is not None:
            targets, problems = list(self._prepared[0]), list(self._prepared[1])
        else:
            try:
                targets, problems = self._targets(objects, origins)
            except BaseException:
                if listing is not None:
                    listing.settle()   # answered before the failure is reported: its request count holds them
                raise
            if options.state == "absent":
                return self._guarded(lambda: delete.run(ctx, targets, applyset))
            if options.state == "present":
                targets = [label(target, applyset) for target in targets]
                self._prepared = (targets, problems)
        if options.state == "present":
            listing = listing or Listing(ctx, scopes_of(targets), applyset)
        targets = read_live(ctx, targets, applyset, listing)
        if options.state == "observed":
            return observe.run(ctx, targets)
        plan = self._decide(targets, applyset, problems)
        if not options.check_mode:
            lock = None
            if applyset is not None and not locked and plan.writes:
                lock = (applyset.name, applyset.namespace, plan.home is not None)
            refused = access.check(ctx, access.needed(plan.steps, plan.prunable, lock), self._access)
            if refused:
                self._fail("this user may not make every change the run needs; nothing was written", refused)
        return plan

    def _targets(self, objects: t.Sequence[t.Any], origins: t.Sequence[str | None] | None
                 ) -> tuple[list[Target], list[Problem]]:
        """parse and resolve: the objects without a problem, and the problems (a problem of the input itself stops
        the call here, without a request per object; the others are reported with what the plan finds)."""
        ctx, options = self.ctx, self.ctx.options
        desired, local = parse(objects, origins)
        local = self._input_problems + local
        targets, problems = resolve(ctx, desired)
        problems = local + problems
        if options.state == "observed":
            # Read-only: a kind the server does not serve is reported missing, not an error (the operator that
            # would create it, or its CRD, is absent; the drift report says so).
            unserved = {p.index for p in problems if p.path == "kind"}
            problems = [p for p in problems if p.index not in unserved]
            targets = [i.but(deferred="the server does not serve this kind") if i.index in unserved else i
                       for i in targets]
        targets = _passed(targets, problems)
        if problems and options.state != "present":
            self._fail("invalid input; nothing was changed", problems)
        if local:
            # The input itself is broken: every problem found without a dry run (a request per object), then stop.
            problems += validate(ctx, targets, lambda _item: False, self._schemas)[0]
            self._fail("invalid input; nothing was written (no object was dry-run: fix these first)", problems)
        return targets, problems

    def _decide(self, targets: list[Target], applyset: ApplySet | None, problems: list[Problem]) -> Plan:
        """ownership, the parent, validation, the dry runs and what prune would delete."""
        ctx, options = self.ctx, self.ctx.options
        input_namespaces = {i.name for i in targets if i.kind == "Namespace" and i.api_version == "v1"}
        self.planner.begin(applyset, input_namespaces)
        owned = [self.planner.own(target) for target in targets]
        targets = [target for target, _problem in owned]
        problems = problems + [problem for _target, problem in owned if problem is not None]
        parent, recorded = None, Record()
        if applyset is not None:
            parent, recorded, problem = parent_item(ctx, applyset, _passed(targets, problems), input_namespaces)
            problems += [problem] if problem else []
            targets = targets + ([parent] if parent else [])
        found, checked = validate(ctx, targets, self.planner.settled, self._schemas)
        problems += found
        steps, found = self.planner.plan_all(_passed(targets, problems), checked)
        problems += found
        if problems:
            self._fail("objects are invalid, not ours to take, or were refused by the API server's dry run; "
                       "nothing was written", problems)
        members, _parent = _members_and_parent(steps)
        prunable: list[PruneCandidate] = []
        kept = Record()
        if options.prune and applyset is not None:
            namespaces = recorded.namespaces | record_of(members).namespaces | {applyset.namespace}
            prunable, problems, kept = prune.find(ctx, applyset, members, recorded, namespaces)
            if problems:
                self._fail("pruning would delete objects this apply set does not own; nothing was written", problems)
        return Plan(tuple(steps), tuple(prunable), kept, _lock_home(steps, applyset))

    # ------------------------------------------------------------------ writing
    def _execute(self, plan: Plan, applyset: ApplySet | None, lock: ApplySetLock | None,
                 home: Step | None = None) -> dict[str, t.Any]:
        ctx, options = self.ctx, self.ctx.options
        pruned: list[dict[str, t.Any]] = []

        def stages() -> tuple[list[Step], Step | None]:
            steps = list(plan.steps)
            if not options.check_mode:
                steps = write(ctx, self.planner, steps)
            members, parent = _members_and_parent(steps)
            if lock is not None:
                lock.verify()   # never prune from a membership another run may be changing
            for candidate in plan.prunable:
                pruned.append(prune.prune(ctx, candidate))
            if options.prune and not options.check_mode and parent is not None and applyset is not None:
                parent = shrink(ctx, applyset, parent, members, kept=plan.kept)
            if not options.check_mode and options.wait_for:
                wait_for_all(ctx.connection, ctx.discovery, options.wait_for, options.wait_timeout)
            return members, parent

        members, parent = self._guarded(stages)
        if home is not None:   # written before the lock; this plan found it settled
            members = [home if s.key == home.key else s for s in members]
        return report(ctx, members, pruned, applyset, parent)

    def _guarded(self, stage: t.Callable[[], t.Any]) -> t.Any:
        """Run a stage that writes; whatever stops it, say exactly what the ledger holds by then."""
        try:
            return stage()
        except WebhookUnavailable as exc:
            self._webhook_failed(exc)
        except PrerequisitesRefused as exc:
            self._fail("the API server refused objects in a dry run after their CRDs and namespaces were created; "
                       "nothing else was written", exc.problems, partial=True)
        except delete.DeleteFailed as exc:
            self._fail(exc.what, exc.problems, partial=True)
        except (KubeError, WaitFailed) as exc:
            raise self._failure(f"{exc}{self.ctx.ledger.describe()}", [], partial=True) from None

    # ------------------------------------------------------------------ failures
    def _failure(self, message: str, problems: t.Sequence[Problem], *, partial: bool = False) -> ApplyFailed:
        ctx = self.ctx
        masked = [dataclasses.replace(p, message=ctx.masker.text(p.message)) for p in ordered(problems)]
        details = ctx.ledger.partial(ctx.warnings) if partial else {"warnings": ctx.warnings}
        return ApplyFailed(ctx.masker.text(message), [p.as_dict() for p in masked], partial=details)

    def _fail(self, what: str, problems: t.Sequence[Problem], *, partial: bool = False) -> t.NoReturn:
        ordered_problems = ordered(problems)
        text = summary(what, ordered_problems)
        if partial:
            text += self.ctx.ledger.describe()
        raise self._failure(text, ordered_problems, partial=partial) from None

    def _webhook_failed(self, exc: WebhookUnavailable) -> t.NoReturn:
        what = (f"admission webhook {exc.webhook} could not be called (it did not answer in time, or refused the "
                "connection); a retry would wait as long, so the run stopped")
        problem = exc.item.error("", str(exc).split(": ", 1)[-1])
        self._fail(what, [problem], partial=True)


def _passed(items: list[T], problems: t.Sequence[Problem]) -> list[T]:
    """The items no problem names (by their input index)."""
    failed = {p.index for p in problems}
    return [i for i in items if i.index not in failed]


def _members_and_parent(steps: t.Sequence[Step]) -> tuple[list[Step], Step | None]:
    """The input objects' Steps, and the apply-set parent's (None without an apply set)."""
    return [s for s in steps if not s.is_parent], next((s for s in steps if s.is_parent), None)


def _lock_home(steps: t.Sequence[Step], applyset: ApplySet | None) -> Step | None:
    """The apply set's Namespace when this run creates it: the lock lives there, so it is written first."""
    home = applyset.namespace if applyset is not None else None
    return next((s for s in steps if s.kind == "Namespace" and s.api_version == "v1" and s.name == home
                 and s.live is None and s.action == "created"), None)
