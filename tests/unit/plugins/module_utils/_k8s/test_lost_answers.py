# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a write or delete whose answer was lost did, decided from the object read back (the real server, with
answers lost on the way: tests/integration/test_k8s_apply_lost_answers.py)."""

from __future__ import annotations

import typing as t

import pytest
from k8s_fakes import CONFIG_MAPS, FakeAPI, context, item, path

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import lost_answers
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError, Unreachable

LOST = Unreachable("API server https://api is unreachable: the answer ended early", sent=True)
BODY: dict[str, t.Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "ns"},
                          "data": {"k": "new"}}


def stored(version: str, value: str) -> dict[str, t.Any]:
    return {**BODY, "metadata": {"name": "a", "namespace": "ns", "resourceVersion": version}, "data": {"k": value}}


def test_a_write_the_server_holds_is_written():
    api = FakeAPI({path("a"): stored("9", "new")})
    ctx = context(api)
    assert lost_answers.applied(ctx, item("a", live=stored("5", "old"), body=BODY), LOST) == stored("9", "new")
    assert ctx.ledger.unknown() == []


@pytest.mark.parametrize(("before", "now"), [(None, None), ("5", "5")])
def test_an_object_as_it_was_was_not_written(before, now):
    api = FakeAPI({path("a"): stored(now, "old")} if now else {})
    ctx = context(api)
    with pytest.raises(Unreachable) as raised:
        lost_answers.applied(ctx, item("a", live=stored(before, "old") if before else None, body=BODY), LOST)
    assert raised.value is LOST and not ctx.ledger.changed


def test_an_object_someone_else_changed_since_is_unknown():
    api = FakeAPI({path("a"): stored("9", "theirs")})
    ctx = context(api)
    with pytest.raises(Unreachable):
        lost_answers.applied(ctx, item("a", index=3, live=stored("5", "old"), body=BODY), LOST)
    assert [(u["name"], u["action"]) for u in ctx.ledger.unknown()] == [("a", "unknown")]
    assert ctx.ledger.entries[0].index == 3


def test_an_object_that_cannot_be_read_back_is_unknown_and_both_reasons_are_given():
    api = FakeAPI({path("a"): stored("9", "new")})
    api.refuse[("GET", path("a"))] = Unreachable("API server https://api is unreachable: connection refused")
    ctx = context(api)
    with pytest.raises(Unreachable, match=r"ended early; then it could not be read back .*connection refused"):
        lost_answers.applied(ctx, item("a", live=None, body=BODY), LOST)
    assert ctx.ledger.changed and [u["name"] for u in ctx.ledger.unknown()] == ["a"]


@pytest.mark.parametrize(("live", "deleted"), [
    (None, True),                                                                         # gone
    ({"metadata": {"uid": "u1", "deletionTimestamp": "2026-11-28T00:00:00Z"}}, True),     # finalizers hold it
    ({"metadata": {"uid": "u2", "deletionTimestamp": "2026-11-28T00:00:00Z"}}, False),    # another object now
    ({"metadata": {"uid": "u1"}}, False),                                                  # not deleted
])
def test_a_delete_is_done_when_the_object_is_gone_or_going(live, deleted):
    ctx = context(FakeAPI({path("a"): live} if live else {}))
    if deleted:
        assert lost_answers.deleted(ctx, CONFIG_MAPS, "ns", "a", "u1", LOST) is True
    else:
        with pytest.raises(Unreachable):
            lost_answers.deleted(ctx, CONFIG_MAPS, "ns", "a", "u1", LOST)
    assert not ctx.ledger.changed


def test_a_delete_that_cannot_be_read_back_is_unknown():
    api = FakeAPI({path("a"): {"metadata": {"uid": "u1"}}})
    api.refuse[("GET", path("a"))] = KubeError("etcdserver: request timed out", 500)
    ctx = context(api)
    with pytest.raises(Unreachable, match="could not be read back"):
        lost_answers.deleted(ctx, CONFIG_MAPS, "ns", "a", "u1", LOST)
    assert [u["kind"] for u in ctx.ledger.unknown()] == ["ConfigMap"]
