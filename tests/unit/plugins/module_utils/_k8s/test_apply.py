# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The result as the module returns it, and the whole pipeline replayed on answers recorded from the real test API
server (tests/record_k8s_answers.py; the applier is also tested against a live one in tests/integration)."""

from __future__ import annotations

import copy
import json
import pathlib
import typing as t

import pytest
from k8s_fakes import Replay

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import apply as apply_module
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import (
    Applier,
    ApplyFailed,
    Options,
    sized,
)


def entry(name: str, action: str, drift: int = 0, **extra) -> dict:
    return {"kind": "ConfigMap", "name": name, "action": action, "drift": {"count": drift, "fields": []}, **extra}


RESULT: dict[str, t.Any] = {
    "changed": True,
    "objects": [entry("same", "unchanged"), entry("new", "created"), entry("edited", "updated"),
                entry("left-alone", "unchanged", drift=2), entry("waits", "unchanged", deferred="its namespace ..."),
                entry("gone", "missing"), entry("other", "drifted", drift=1)],
    "counts": {"created": 1, "drifted": 1, "missing": 1, "unchanged": 3, "updated": 1},
}


def test_changed_lists_what_a_person_must_see_and_counts_the_rest():
    result = sized(RESULT, "changed")
    assert [o["name"] for o in result["objects"]] == ["new", "edited", "left-alone", "waits", "gone", "other"]
    assert result["counts"] == RESULT["counts"]
    assert len(RESULT["objects"]) == 7   # the full result is left as it was


def test_all_lists_every_object():
    assert [o["name"] for o in sized(RESULT, "all")["objects"]] == [o["name"] for o in RESULT["objects"]]


def test_a_noop_run_over_thousands_of_objects_returns_none_of_them():
    many = {"changed": False, "objects": [entry(f"cm-{i}", "unchanged") for i in range(5000)],
            "counts": {"unchanged": 5000}}
    assert sized(many, "changed")["objects"] == []


# ---------------------------------------------------------------- the pipeline, on answers of the real API server

RECORDED = pathlib.Path(__file__).resolve().parent / "recorded"


def replayed(scenario: str) -> tuple[Replay, t.Callable[[], dict]]:
    """The scenario's requests answered as the test API server answered them (tests/record_k8s_answers.py)."""
    recording = json.loads((RECORDED / f"{scenario}.json").read_text())
    connection = Replay(recording["requests"])
    applier = Applier(connection, Options(**recording["options"], workers=1))  # type: ignore[arg-type]
    return connection, lambda: applier.run(recording["objects"])


def test_from_empty_the_lock_namespace_is_written_first_then_everything_once():
    connection, run = replayed("from_empty")
    result = run()
    assert connection.unused == []
    assert [(o["kind"], o["name"], o["action"]) for o in result["objects"]] == [
        ("Namespace", "rec", "created"), ("ConfigMap", "a", "created"), ("ConfigMap", "b", "created"),
        ("ConfigMap", "c", "created")]
    assert result["changed"] and result["apply_set"]["action"] == "created"
    # Namespace, the lock's create and delete, the parent, three ConfigMaps: nothing written twice.
    assert connection.write_count == 7


def test_the_plan_under_the_lock_reads_the_cluster_again_but_not_the_input(monkeypatch):
    connection, run = replayed("from_empty")
    calls: list[str] = []

    def counted(name: str, stage: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
        def run(*args: t.Any, **kwargs: t.Any) -> t.Any:
            calls.append(name)
            return stage(*args, **kwargs)
        return run

    for name in ("parse", "resolve", "label", "Listing", "read_live"):
        monkeypatch.setattr(apply_module, name, counted(name, getattr(apply_module, name)))
    result = run()
    assert connection.unused == [] and result["counts"] == {"created": 4}
    # Two plans (before the lock, and under it, from the lists read again), one pass over the input: 4 objects.
    assert (calls.count("Listing"), calls.count("read_live")) == (2, 2)
    assert (calls.count("parse"), calls.count("resolve"), calls.count("label")) == (1, 1, 4)


def test_a_no_op_is_settled_from_the_lists_without_a_write():
    connection, run = replayed("noop")
    result = run()
    assert connection.unused == [] and connection.write_count == 0
    assert result["changed"] is False and result["counts"] == {"unchanged": 4}
    assert connection.request_count <= 2 + 3   # kinds + 3


def test_an_input_parse_refuses_stops_before_any_list_and_a_good_one_lists_before_it_is_parsed(monkeypatch):
    connection, _run = replayed("noop")
    recording = json.loads((RECORDED / "noop.json").read_text())
    applier = Applier(connection, Options(**recording["options"], workers=1))  # type: ignore[arg-type]
    with pytest.raises(ApplyFailed, match="invalid input"):
        applier.run([*recording["objects"], {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}])
    assert connection.requests == {"GET": 2}   # discovery, which names what is not served; no LIST
    # A good input: its LISTs are out before parse runs (the server lists while this process parses).
    connection, run = replayed("noop")
    order: list[str] = []

    def noted(name: str, stage: t.Callable[..., t.Any]) -> t.Callable[..., t.Any]:
        def run(*args: t.Any) -> t.Any:
            order.append(name)
            return stage(*args)
        return run

    monkeypatch.setattr(apply_module, "parse", noted("parse", apply_module.parse))
    monkeypatch.setattr(apply_module, "Listing", noted("listing", apply_module.Listing))
    assert run()["counts"] == {"unchanged": 4} and connection.unused == []
    assert order == ["listing", "parse"]


def test_prune_deletes_what_left_the_input_and_updates_what_changed():
    connection, run = replayed("prune")
    result = run()
    assert connection.unused == []
    actions = {o["name"]: o["action"] for o in result["objects"]}
    assert actions == {"rec": "unchanged", "a": "unchanged", "b": "updated"}
    assert [(p["kind"], p["name"]) for p in result["pruned"]] == [("ConfigMap", "c")]
    assert result["apply_set"]["group_kinds"] == ["ConfigMap", "Namespace"]
    # Plan and pruner both need the members across the cluster: each kind is listed once per plan, not again by
    # the pruner (a plan is made before the lock and again under it).
    recording = json.loads((RECORDED / "prune.json").read_text())
    paths = [r["path"] for r in recording["requests"] if r["method"] == "GET"]
    assert paths.count("/api/v1/namespaces") == 2 and paths.count("/api/v1/configmaps") == 2


def test_a_persons_object_stops_the_run_before_any_write():
    connection, run = replayed("refused")
    with pytest.raises(ApplyFailed) as failure:
        run()
    assert connection.write_count == 0 and connection.unused == []
    # Every problem at once, in input order: the person's object, and a kind the server does not serve.
    refused, unserved = failure.value.errors
    assert refused["index"] == 3 and "kubectl-create (Update)" in refused["message"]
    assert (unserved["index"], unserved["path"]) == (4, "kind") and "example.com" in unserved["message"]
    assert failure.value.partial.get("written", []) == []


def test_absent_deletes_members_only_after_dry_runs_under_the_lock():
    connection, run = replayed("absent")
    result = run()
    assert connection.unused == []
    assert {o["name"]: o["action"] for o in result["objects"]} == {"a": "deleted", "theirs": "kept"}
    assert [d["name"] for d in result["deleted"]] == ["a"]
    assert any("theirs was not created by apply set" in w for w in result["warnings"])


def test_the_callers_objects_are_left_as_given_through_the_whole_pipeline():
    recording = json.loads((RECORDED / "from_empty.json").read_text())
    objects = recording["objects"]
    before = copy.deepcopy(objects)
    Applier(Replay(recording["requests"]), Options(**recording["options"], workers=1)).run(objects)  # type: ignore[arg-type]
    assert objects == before
