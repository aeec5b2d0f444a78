# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The writes: rank by rank, every confirmed write in the ledger; a create that finds the object updates it."""

from __future__ import annotations

import dataclasses
import typing as t

import pytest
from k8s_fakes import FakeAPI, Resources, context, item, path

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import write as write_module
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.context import Context
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.discovery import Discovery, Resource
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import PARENT_RANK, Step
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.plan import Planner
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.write import (
    PrerequisitesRefused,
    until_served,
    write,
    write_one,
)


def planned(name: str, index: int, action: str = "created", **decided):
    found = item(name, index, action=action, **decided)
    return found.but(body=found.desired)


def test_writes_go_in_rank_order_and_into_the_ledger_with_the_parent_marked():
    api = FakeAPI()
    ctx = context(api, workers=1)
    parent = planned("site", -1, rank_override=PARENT_RANK)
    untouched = planned("same", 2, "unchanged")
    steps = write(ctx, Planner(ctx), [planned("a", 1), untouched, parent])
    assert [s.name for s in steps] == ["a", "same", "site"] and steps[1] is untouched
    assert api.sent("PATCH", dry_run=False) == [path("site"), path("a")]
    assert [(e.name, e.parent, e.index) for e in ctx.ledger.entries] == [("site", True, None), ("a", False, 1)]
    assert ctx.ledger.entries[1].resource_version is not None


def test_a_create_that_finds_the_object_is_recorded_as_an_update_with_a_warning():
    api = FakeAPI({path("a"): {"metadata": {"name": "a", "namespace": "ns"}}})
    ctx = context(api)
    target = planned("a", 0)
    written = write_one(ctx, target)
    assert target.action == "created"                           # the plan's record is never changed
    assert written.action == "updated" and written.result is not None and ctx.ledger.written()[0]["action"] == "updated"
    assert any("created by another client" in w for w in ctx.warnings)


def test_the_changes_are_what_the_server_wrote():
    # The dry run predicted a data.mode the server did not write (what a mutating webhook would do): the changes
    # come from the write's answer, not from the plan's.
    api = FakeAPI()
    ctx = context(api)
    target = planned("a", 0)
    predicted = {**target.desired, "data": {"mode": "predicted"}}
    wrong = target.but(result=predicted, changes=({"path": "data.mode", "op": "add", "before": None,
                                                   "after": "predicted"},))
    written = write_one(ctx, wrong)
    assert [c["path"] for c in written.changes] == ["apiVersion", "kind", "metadata.name", "metadata.namespace"]
    assert written.changes == write_one(context(FakeAPI()), target.but(result=None, changes=())).changes


def test_the_plans_changes_stand_when_the_server_wrote_what_it_predicted():
    api = FakeAPI()
    ctx = context(api)
    target = planned("a", 0)
    written_once = write_one(ctx, target.but(result=None))
    again = planned("a", 0).but(result=written_once.result, changes=written_once.changes)
    assert write_one(context(FakeAPI()), again).changes == written_once.changes


WIDGETS = Resource("test.virtinfra.io", "v1", "Widget", "widgets", False)


class LaggingDiscovery(Resources):
    """Discovery that lists Widget only from its ``lag``-th read on, as kube-apiserver's discovery can for a moment
    after a CRD is Established."""

    def __init__(self, lag: int) -> None:
        super().__init__()
        self.lag, self.reads = lag, 0

    def refresh(self) -> None:
        self.reads += 1
        self.resources = (*self.resources, WIDGETS) if self.reads == self.lag else self.resources


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def widget() -> Step:
    step = item("w1")
    return step.but(api_version="test.virtinfra.io/v1", kind="Widget", resource=None,
                    deferred="its CustomResourceDefinition is created by this run")


def lagging(lag: int, **options: t.Any) -> tuple[Context, LaggingDiscovery]:
    discovery = LaggingDiscovery(lag)
    return dataclasses.replace(context(FakeAPI(), **options), discovery=t.cast(Discovery, discovery)), discovery


def test_discovery_is_read_again_until_it_lists_the_kind_a_crd_of_this_run_serves():
    ctx, discovery = lagging(4)
    clock = Clock()
    until_served(ctx, [widget()], clock=clock, sleep=clock.sleep)
    assert discovery.reads == 4 and discovery.find("test.virtinfra.io/v1", "Widget") == WIDGETS
    assert clock.now == 1.5    # three pauses of 0.5 s


def test_a_kind_discovery_never_lists_is_given_up_at_wait_timeout_and_not_waited_for_without_wait():
    clock = Clock()
    ctx, discovery = lagging(100, wait_timeout=3)
    until_served(ctx, [widget()], clock=clock, sleep=clock.sleep)
    assert clock.now == 3.0 and discovery.find("test.virtinfra.io/v1", "Widget") is None
    unwaited, discovery = lagging(100, wait=False)
    until_served(unwaited, [widget()], clock=clock, sleep=clock.sleep)
    assert discovery.reads == 1 and clock.now == 3.0


def test_the_established_wait_and_the_discovery_wait_share_one_wait_timeout(monkeypatch):
    clock = Clock()
    ctx, discovery = lagging(100, wait_timeout=3)
    given: list[float] = []

    def established_after_two_seconds(_connection, _discovery, specs, timeout):
        given.append(timeout)
        clock.sleep(2.0)
    monkeypatch.setattr(write_module, "wait_for_all", established_after_two_seconds)
    crd = item("widgets.test.virtinfra.io", action="created").but(
        api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition")
    with pytest.raises(PrerequisitesRefused) as refused:
        write_module._after_prerequisites(ctx, Planner(ctx), [crd, widget()], clock=clock, sleep=clock.sleep)
    assert [p.message for p in refused.value.problems] == [
        "still not served after its CustomResourceDefinition was created"]
    # The condition had 3 s; discovery the 1 s left of them, not 3 more.
    assert given == [3.0] and clock.now == 3.0 and discovery.reads == 3


def test_a_deadline_already_passed_reads_discovery_once():
    clock = Clock()
    ctx, discovery = lagging(100, wait_timeout=3)
    until_served(ctx, [widget()], deadline=-1.0, clock=clock, sleep=clock.sleep)
    assert discovery.reads == 1 and clock.now == 0.0


def test_a_clock_that_passes_the_deadline_between_reads_never_asks_for_a_negative_pause():
    class Ticking(Clock):
        def __call__(self) -> float:
            self.now += 0.3   # each read of the clock takes time, as on a loaded machine
            return self.now

    clock = Ticking()
    ctx, _discovery = lagging(100, wait_timeout=1)
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        clock.sleep(seconds)
    until_served(ctx, [widget()], deadline=0.5, clock=clock, sleep=sleep)
    assert pauses and all(pause >= 0 for pause in pauses)
