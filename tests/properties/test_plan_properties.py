# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Properties of the plan stage (Hypothesis, beside the render properties: the ansible-core matrix runs tests/unit
without Hypothesis): over random desired and live objects with managedFields of three managers, report mode's body
never changes a field another manager owns, keeps every field of ours, and is idempotent; the Planner itself, run
against a fake API that answers a dry run by merging the body into the live object, never plans a write that
changes another manager's field in report mode, and never changes the records it is given."""

from __future__ import annotations

import copy
import typing as t

from hypothesis import given, settings
from hypothesis import strategies as st
from k8s_fakes import CONFIG_MAPS, FakeAPI, merged

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.context import Context
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.fields import without_foreign
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Options, Target
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.plan import Planner

OURS = "virtinfra.hyperconverged"

# ---------------------------------------------------------------- properties of report mode's body

KEYS = st.sampled_from(["a", "b", "c", "d"])
LEAF = st.one_of(st.integers(0, 3), st.sampled_from(["x", "y"]))
TREE = st.recursive(LEAF, lambda inner: st.dictionaries(KEYS, inner, min_size=1, max_size=3), max_leaves=12)


def leaves(value: t.Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], t.Any]:
    if isinstance(value, dict):
        found: dict[tuple[str, ...], t.Any] = {}
        for key, child in value.items():
            found.update(leaves(child, (*path, key)))
        return found
    return {path: value}


def owned(fields: dict[str, t.Any], path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """The leaf paths of a fieldsV1 tree (``{"f:spec": {"f:a": {}}}`` -> ``{("spec", "a")}``)."""
    if not fields:
        return {path} if path else set()
    return {found for member, below in fields.items() for found in owned(below, (*path, member[2:]))}


def fieldset(paths: t.Iterable[tuple[str, ...]]) -> dict[str, t.Any]:
    tree: dict[str, t.Any] = {}
    for path in paths:
        node = tree
        for member in path:
            node = node.setdefault(f"f:{member}", {})
    return tree


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, t.Any], dict[str, t.Any]]:
    desired = {"spec": draw(st.dictionaries(KEYS, TREE, min_size=1, max_size=3))}
    live_spec = draw(st.dictionaries(KEYS, TREE, min_size=1, max_size=3))
    live: dict[str, t.Any] = {"metadata": {"name": "x"}, "spec": live_spec}
    owners: dict[str, list[tuple[str, ...]]] = {}
    for path in leaves(live):
        if path[0] == "spec":
            owners.setdefault(draw(st.sampled_from([OURS, "hco-operator", "kubectl-edit"])), []).append(path)
    live["metadata"]["managedFields"] = [{"manager": name, "operation": "Apply" if name == OURS else "Update",
                                          "fieldsV1": fieldset(paths)} for name, paths in owners.items()]
    return desired, live


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(cases())
def test_report_body_never_changes_a_field_another_manager_owns(case):
    desired, live = case
    body, _kept = without_foreign(desired, live, OURS)
    live_leaves = leaves(live["spec"], ("spec",))
    body_leaves = leaves(body.get("spec", {}), ("spec",))
    foreign = {path for e in live["metadata"]["managedFields"] if e["manager"] != OURS
               for path in owned(e["fieldsV1"])}
    assert foreign or not live["metadata"]["managedFields"] or all(
        e["manager"] == OURS for e in live["metadata"]["managedFields"])
    for path in foreign:
        for body_path, value in body_leaves.items():
            if body_path == path:
                assert value == live_leaves[path], (path, body, live)   # kept only with the value it has
            # a foreign leaf is never replaced by a subtree of ours either
            assert body_path[:len(path)] != path or body_path == path, (path, body, live)


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(cases())
def test_report_body_is_idempotent_and_keeps_every_field_of_ours(case):
    desired, live = case
    body, _kept = without_foreign(desired, live, OURS)
    again, _kept = without_foreign(body, live, OURS)
    assert again == body
    ours = {path for e in live["metadata"]["managedFields"] if e["manager"] == OURS for path in owned(e["fieldsV1"])}
    desired_leaves = leaves(desired["spec"], ("spec",))
    for path in ours:
        if path in desired_leaves:
            assert leaves(body.get("spec", {}), ("spec",)).get(path) == desired_leaves[path]


# ---------------------------------------------------------------- properties of the Planner

PATH = "/api/v1/namespaces/ns/configmaps/x"


def planned(desired: dict[str, t.Any], live: dict[str, t.Any], drift: str) -> tuple[Target, t.Any, FakeAPI]:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns"}, **desired}
    live = {"apiVersion": "v1", "kind": "ConfigMap", **live,
            "metadata": {**live["metadata"], "namespace": "ns", "resourceVersion": "1"}}
    target = Target(0, obj, "v1", "ConfigMap", "x", "ns", resource=CONFIG_MAPS, live=live)
    api = FakeAPI({PATH: copy.deepcopy(live)})
    planner = Planner(Context(api, Options(drift=drift), None))  # type: ignore[arg-type]
    planner.begin(None, set())
    [step], problems = planner.plan_all([target])
    assert problems == []
    return target, step, api


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(cases())
def test_the_planner_in_report_mode_never_plans_a_change_to_another_managers_field(case):
    desired, live = case
    _target, step, api = planned(desired, live, "report")
    written = merged(live, step.body) if step.body is not None and step.action != "unchanged" else live
    for entry in live["metadata"]["managedFields"]:
        if entry["manager"] == OURS:
            continue
        for path in owned(entry["fieldsV1"]):
            assert leaves(written["spec"], ("spec",)).get(path) == leaves(live["spec"], ("spec",))[path], \
                (path, step.body, live)
    assert api.writes == 0


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(cases(), st.sampled_from(["report", "revert"]))
def test_the_planner_never_changes_the_records_it_is_given(case, drift):
    desired, live = case
    given_desired, given_live = copy.deepcopy(desired), copy.deepcopy(live)
    target, step, _api = planned(desired, live, drift)
    assert {k: v for k, v in target.desired.items() if k not in ("apiVersion", "kind", "metadata")} == given_desired
    assert target.live is not None and target.live["spec"] == given_live["spec"]
    assert step is not target and step.index == target.index and step.live is target.live
