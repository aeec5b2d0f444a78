# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The write ledger: what a run reports as written comes from confirmed writes alone, whatever thread made them."""

from __future__ import annotations

import threading

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.ledger import Ledger


def test_an_empty_ledger_says_nothing_was_written():
    ledger = Ledger()
    assert not ledger.changed
    assert ledger.partial(["w"]) == {"changed": False, "written": [], "pruned": [], "deleted": [], "unknown": [],
                                     "warnings": ["w"]}
    assert ledger.describe() == "; nothing was written"


def test_written_is_in_input_order_with_the_parent_first_and_each_object_once():
    ledger = Ledger()
    ledger.record("v1", "ConfigMap", "ns", "b", "created", {"metadata": {"resourceVersion": "7"}}, index=2)
    ledger.record("v1", "ConfigMap", "ns", "set", "created", index=None, parent=True)
    ledger.record("v1", "ConfigMap", "ns", "a", "adopted", index=0)
    ledger.record("v1", "ConfigMap", "ns", "set", "updated", index=None, parent=True)   # shrunk after a prune
    ledger.record("v1", "ConfigMap", "ns", "old", "pruned", contents=["x"])
    ledger.record("v1", "ConfigMap", "ns", "gone", "deleted", index=5)
    written = [(w["name"], w["action"]) for w in ledger.written()]
    assert written == [("set", "created"), ("a", "adopted"), ("b", "created")]
    assert ledger.pruned() == [{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "ns", "name": "old",
                                "action": "pruned", "contents": ["x"]}]
    assert [d["name"] for d in ledger.deleted()] == ["gone"]
    assert ledger.entries[0].resource_version == "7"
    assert ledger.changed


def test_records_from_many_threads_are_all_kept():
    ledger = Ledger()

    def write(start: int) -> None:
        for i in range(start, start + 500):
            ledger.record("v1", "ConfigMap", "ns", f"cm-{i}", "created", index=i)

    threads = [threading.Thread(target=write, args=(n * 500,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [w["name"] for w in ledger.written()] == [f"cm-{i}" for i in range(4000)]


def test_describe_names_what_was_written_and_how_many_more():
    ledger = Ledger()
    for i in range(22):
        ledger.record("v1", "ConfigMap", "ns" if i else None, f"cm-{i}", "created", index=i)
    text = ledger.describe()
    assert text.startswith("; written before it stopped: ConfigMap cm-0 (created), ConfigMap ns/cm-1 (created)")
    assert text.endswith(" and 2 more")


def test_an_unknown_outcome_is_a_possible_change_and_never_nothing_written():
    ledger = Ledger()
    ledger.record("v1", "ConfigMap", "ns", "lost", "unknown", index=3)
    assert ledger.changed
    assert ledger.written() == [] and ledger.unknown() == [
        {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "ns", "name": "lost", "action": "unknown"}]
    assert "nothing was written" not in ledger.describe()
    assert ledger.describe().startswith("; nothing was confirmed written; outcome unknown")
    ledger.record("v1", "ConfigMap", "ns", "kept", "created", {"metadata": {"resourceVersion": "7"}}, index=1)
    assert "written before it stopped: ConfigMap ns/kept (created); outcome unknown" in ledger.describe()
