# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The writes, rank by rank (objects of one rank in parallel): CRDs and Namespaces first, then what waited for them
is dry-run before anything else is written. Every confirmed write goes into the ledger as its answer arrives.
PRIVATE.
"""

from __future__ import annotations

import time
import typing as t

from .._common.errors import Refused
from . import lost_answers
from .client import Unreachable
from .context import Context
from .fields import diff, strip
from .model import KIND_RANK, WRITES, Problem, Step, Target, WriteAction
from .plan import Planner, apply_patch
from .resolve import scope
from .waits import WaitSpec, wait_for_all

CRD_API_VERSION = "apiextensions.k8s.io/v1"


class PrerequisitesRefused(Refused):
    """What waited for a CRD or Namespace of this run was refused by its dry run once they existed."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("refused after their CRDs and namespaces were created")
        self.problems = problems


def write(ctx: Context, planner: Planner, steps: t.Sequence[Step]) -> list[Step]:
    """The steps again, each written one made from the server's answer."""
    steps = list(steps)
    prerequisites_done = False
    for rank in sorted({step.rank for step in steps}):
        if not prerequisites_done and rank > KIND_RANK["Namespace"]:
            prerequisites_done = True
            steps = _after_prerequisites(ctx, planner, steps)
        batch = [p for p, s in enumerate(steps) if s.rank == rank and s.action in WRITES and s.body is not None]
        for position, written in zip(batch, ctx.parallel(lambda step: write_one(ctx, step), [steps[p] for p in batch])):
            steps[position] = written
    if not prerequisites_done:
        steps = _after_prerequisites(ctx, planner, steps)
    return steps


def write_one(ctx: Context, step: Step) -> Step:
    try:
        status, result = apply_patch(ctx, step, step.body or step.desired, force=ctx.options.drift == "revert"
                                     or step.adopting, dry_run=False)
    except Unreachable as exc:
        if not exc.sent:
            raise
        # The answer was lost, not the write: the object read back says which (it holds the apply, or raises).
        status, result = (201 if step.live is None else 200), lost_answers.applied(ctx, step, exc)
    action = step.action
    if action == "created" and status != 201:
        # Created by someone else between this run's dry run and its write.
        action = "updated"
        ctx.warn(f"{step.label} was created by another client while this run planned; it was updated instead")
    ctx.ledger.record(step.api_version, step.kind, step.namespace, step.name,
                      t.cast(WriteAction, action if action in WRITES else "updated"), result,
                      index=None if step.is_parent else step.index, parent=step.is_parent)
    written = strip(result)
    # The dry run's diff holds when the server wrote what it predicted (the usual case): not worked out again.
    same = step.result is not None and strip(step.result) == written
    return step.but(action=action, result=result, changes=step.changes if same else tuple(diff(strip(step.live), written)))


def _after_prerequisites(ctx: Context, planner: Planner, steps: list[Step],
                         clock: t.Callable[[], float] = time.monotonic,
                         sleep: t.Callable[[float], None] = time.sleep) -> list[Step]:
    """Wait for the CRDs written, then plan what waited for them (or for a Namespace of this run). The Established
    condition and discovery's listing share one wait_timeout."""
    deadline = clock() + ctx.options.wait_timeout
    written_crds = [s for s in steps if s.kind == "CustomResourceDefinition" and s.action in WRITES]
    if written_crds and ctx.options.wait:
        specs = [WaitSpec(CRD_API_VERSION, "CustomResourceDefinition", s.name, None, condition_type="Established")
                 for s in written_crds]
        wait_for_all(ctx.connection, ctx.discovery, specs, max(0.0, deadline - clock()))
    deferred = [p for p, s in enumerate(steps) if s.deferred]
    if not deferred:
        return steps
    unserved = [steps[p] for p in deferred if steps[p].resource is None]
    if unserved:
        until_served(ctx, unserved, deadline=deadline, clock=clock, sleep=sleep)
    problems: list[Problem] = []
    ready: list[tuple[int, Target]] = []
    for position in deferred:
        step = steps[position]
        resource = ctx.discovery.find(step.api_version, step.kind)
        if resource is None:
            problems.append(step.error("kind", "still not served after its CustomResourceDefinition was created"))
            continue
        target, problem = scope(ctx, Target.of(step, resource=resource, deferred=""))
        if problem is not None:
            problems.append(problem)
            continue
        ready.append((position, target))
    checked = frozenset(steps[p].index for p, _target in ready if steps[p].validated_by == "crd-schema")
    planned, found = planner.plan_all([target for _p, target in ready], checked)
    problems += found
    if problems:
        raise PrerequisitesRefused(problems)
    steps = list(steps)
    for (position, _target), step in zip(ready, planned):
        steps[position] = step
    return steps


def until_served(ctx: Context, steps: t.Sequence[Step], deadline: float | None = None,
                 clock: t.Callable[[], float] = time.monotonic, sleep: t.Callable[[float], None] = time.sleep) -> None:
    """Read discovery again until it lists the kinds of ``steps`` (their CRDs were written by this run), until
    ``deadline`` (by ``clock``; wait_timeout from now without one) when the call waits, once otherwise. A CRD's
    Established condition does not mean discovery lists its kind yet: kube-apiserver updates discovery from a queue
    of its own (kubernetes, staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/
    customresource_discovery_controller.go, DiscoveryController), and on a busy server the kind can be missing for a
    moment after the condition is True. A kind still missing at the deadline is reported by the caller."""
    if not ctx.options.wait:
        deadline = clock()
    elif deadline is None:
        deadline = clock() + ctx.options.wait_timeout
    while True:
        ctx.discovery.refresh()
        if all(ctx.discovery.find(s.api_version, s.kind) is not None for s in steps) or clock() >= deadline:
            return
        sleep(max(0.0, min(0.5, deadline - clock())))   # the clock moves on between the test and here
