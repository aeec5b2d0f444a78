# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Properties of the plan stage's report mode (Hypothesis, beside the render properties: the ansible-core matrix
runs tests/unit without Hypothesis): over random desired and live objects with managedFields of three managers,
the body applied never changes a field another manager owns, keeps every field of ours, and is idempotent."""

from __future__ import annotations

import typing as t

from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.fields import without_foreign

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
