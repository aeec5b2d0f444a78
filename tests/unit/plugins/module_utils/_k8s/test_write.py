# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The writes: rank by rank, every confirmed write in the ledger; a create that finds the object updates it."""

from __future__ import annotations

from k8s_fakes import FakeAPI, context, item, path

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import PARENT_RANK
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.plan import Planner
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.write import write, write_one


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
