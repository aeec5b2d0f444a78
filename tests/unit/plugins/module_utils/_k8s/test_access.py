# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The access reviews: only the rights no dry run proves."""

from __future__ import annotations

from k8s_fakes import CONFIG_MAPS, FakeAPI, context, item

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import access
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import PARENT_RANK, PruneCandidate


def test_a_no_op_asks_nothing_and_deferred_objects_ask_create_and_patch():
    assert access.needed([item("a")], [], None) == []
    waits = item("b", deferred="its namespace ns is created by this run")
    parent = item("site", deferred="its namespace ns is created by this run", rank_override=PARENT_RANK)
    assert access.needed([waits, parent], [], None) == [
        ("create", "", "configmaps", "ns", ""), ("patch", "", "configmaps", "ns", ""),
        ("patch", "", "configmaps", "ns", "site")]


def test_prune_asks_delete_and_the_lock_its_renewal_and_create():
    candidate = PruneCandidate(CONFIG_MAPS, "ns", "old", "uid")
    assert access.needed([], [candidate], ("site", "ns", True)) == [
        ("create", "coordination.k8s.io", "leases", "ns", ""), ("delete", "", "configmaps", "ns", ""),
        ("update", "coordination.k8s.io", "leases", "ns", "site-lock")]


def test_a_refused_right_is_named_and_answers_are_kept():
    api = FakeAPI()
    asked = []

    def exchange(method, path, body=None, **_options):
        asked.append(body["spec"]["resourceAttributes"]["verb"])
        return 201, {"status": {"allowed": body["spec"]["resourceAttributes"]["verb"] != "delete"}}

    api.exchange = exchange  # type: ignore[method-assign]
    answers: dict = {}
    wanted = [("delete", "", "configmaps", "ns", ""), ("update", "coordination.k8s.io", "leases", "ns", "s-lock")]
    problems = access.check(context(api), wanted, answers)
    assert [p.message for p in problems] == ["this user cannot delete configmaps in namespace ns"]
    access.check(context(api), wanted, answers)
    assert sorted(asked) == ["delete", "update"]     # the second plan asks nothing again
