# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The result: in a real run what was written comes from the ledger, in check mode from the plan."""

from __future__ import annotations

from k8s_fakes import FakeAPI, context, item

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.fields import diff, strip
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.report import report


def test_a_real_run_is_changed_only_by_what_the_ledger_holds():
    planned = item("a", action="created")
    ctx = context(FakeAPI())
    assert report(ctx, [planned], [])["changed"] is False      # planned but never confirmed
    ctx.ledger.record("v1", "ConfigMap", "ns", "a", "created", index=0)
    ctx.ledger.record("v1", "ConfigMap", "ns", "old", "pruned")
    result = report(ctx, [planned], [{"name": "ignored"}])
    assert result["changed"] is True and [p["name"] for p in result["pruned"]] == ["old"]


def test_check_mode_reports_the_plan():
    planned = item("a", action="adopted", owner="adopting")
    result = report(context(FakeAPI(), check_mode=True), [planned], [])
    assert result["changed"] is True and result["counts"] == {"adopted": 1}


def test_a_secret_is_redacted_and_a_shared_object_says_so():
    secret = item("s", action="updated", owner="shared", result={"data": {"k": "b"}},
                  changes=({"path": "data.k", "_path": ("data", "k"), "op": "change", "before": "a", "after": "b"},)
                  ).but(kind="Secret", live={"data": {"k": "a"}})
    result = report(context(FakeAPI()), [secret], [])
    entry = result["objects"][0]
    assert entry["membership"] == "shared"
    assert entry["changes"] == [{"path": "data.k", "op": "change", "before": "<redacted>", "after": "<redacted>"}]
    assert result["diff"][0]["after"]["data"] == {"k": "<redacted>"}


def test_a_created_object_lists_its_fields_but_not_the_identity_its_entry_names():
    created_object = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "ns"},
                      "data": {"k": "v"}}
    changes = tuple(diff({}, strip(created_object)))
    created = item("a", action="created", result=created_object, changes=changes)
    entry = report(context(FakeAPI(), check_mode=True), [created], [])["objects"][0]
    assert (entry["apiVersion"], entry["kind"], entry["namespace"], entry["name"]) == ("v1", "ConfigMap", "ns", "a")
    assert entry["changes"] == [{"path": "data.k", "op": "add", "before": None, "after": "v"}]


def test_an_object_created_with_nothing_but_its_name_still_has_its_diff():
    bare = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "a", "namespace": "ns"}}
    created = item("a", action="created", result=bare, changes=tuple(diff({}, strip(bare)))).but(kind="ServiceAccount")
    result = report(context(FakeAPI(), check_mode=True), [created], [])
    assert result["objects"][0]["changes"] == []
    assert [d["after"] for d in result["diff"]] == [bare]
