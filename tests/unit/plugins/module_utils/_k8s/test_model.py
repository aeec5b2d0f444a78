# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Problems in input order, named by what the user wrote."""

from __future__ import annotations

import dataclasses

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import (
    Desired,
    Problem,
    Step,
    Target,
    ordered,
    summary,
)


def test_problems_sort_by_input_then_path_then_the_rest_by_what_they_name():
    found = [Problem(object="access", index=None, path="", message="cannot delete"),
             Problem(object="objects[2]", index=2, path="spec.b", message="x"),
             Problem(object="v1 ConfigMap ns/set", index=-1, path="", message="parent"),
             Problem(object="objects[2]", index=2, path="spec.a", message="y"),
             Problem(object="objects[0]", index=0, path="kind", message="z"),
             Problem.of({"object": "options", "index": None, "path": "apply_set", "message": "m"})]
    assert [(p.index, p.path) for p in ordered(found)] == [
        (0, "kind"), (2, "spec.a"), (2, "spec.b"), (None, ""), (None, "apply_set"), (-1, "")]


def test_duplicates_are_reported_once():
    one = Problem(object="objects[0]", index=0, path="", message="same")
    assert ordered([one, Problem.of(one.as_dict())]) == [one]


def test_summary_names_each_problem_by_object_and_path():
    text = summary("invalid input", [Problem(object="objects[0]", index=0, path="kind", message="required value"),
                                     Problem(object="options", index=None, path="", message="bad")])
    assert text == "invalid input (2 problems):\n  objects[0]: kind: required value\n  options: bad"


def test_an_item_names_its_problems_by_api_version_kind_and_place():
    item = Desired(3, {}, "apps/v1", "Deployment", "web", "ns")
    assert item.error("spec.replicas", "m") == Problem(object="apps/v1 Deployment ns/web", index=3,
                                                       path="spec.replicas", message="m")
    assert Desired(0, {}, "v1", "Namespace", "ns").label == "Namespace ns"
    assert Desired(0, {}, "x/v1", "Widget", "w").rank > Desired(0, {}, "v1", "Namespace", "n").rank


def test_each_stage_makes_a_new_record_from_the_last_and_none_can_be_changed():
    desired = Desired(3, {"metadata": {"name": "web"}}, "apps/v1", "Deployment", "web", "ns")
    target = Target.of(desired, live={"metadata": {}}, owner="adopting")
    step = Step.of(target, action="adopted")
    assert (step.index, step.key, step.live, step.adopting, step.action) == (
        3, ("apps/v1", "Deployment", "ns", "web"), {"metadata": {}}, True, "adopted")
    assert Target.of(step).owner == "adopting" and not hasattr(Target.of(step), "action")   # back: what both hold
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.action = "created"  # type: ignore[misc]
    assert step.but(action="updated").action == "updated" and step.action == "adopted"


def test_a_copy_with_changes_is_what_dataclasses_replace_makes_and_refuses_unknown_fields():
    target = Target.of(Desired(3, {"metadata": {"name": "web"}}, "apps/v1", "Deployment", "web", "ns"),
                       live={"metadata": {}}, owner="member")
    for changes in ({}, {"owner": "shared", "owner_set": "applyset-x"}, {"live": None, "deferred": "CRD"}):
        made, expected = target.but(**changes), dataclasses.replace(target, **changes)
        assert made.__class__ is Target and vars(made) == vars(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.but(owner="shared").owner = "member"  # type: ignore[misc]
    with pytest.raises(TypeError, match="has no field ownr"):
        target.but(ownr="shared")


def test_a_record_made_from_another_is_what_its_constructor_makes():
    desired = Desired(3, {"metadata": {"name": "web"}}, "apps/v1", "Deployment", "web", "ns", rank_override=2.5)
    target = Target.of(desired, live={"metadata": {}}, owner="member")
    for made, kind, given in ((target, Target, {"live": {"metadata": {}}, "owner": "member"}),
                              (Step.of(target, action="created"), Step, {**vars(target), "action": "created"}),
                              (Step.of(desired), Step, {})):
        expected = kind(**{**{f.name: getattr(desired, f.name) for f in dataclasses.fields(Desired)}, **given})
        assert made.__class__ is kind and vars(made) == vars(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.owner = "shared"  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected keyword argument 'ownr'"):
        Target.of(desired, ownr="shared")


def test_a_record_refuses_a_missing_field():
    @dataclasses.dataclass(frozen=True, eq=False)
    class Later(Desired):
        needed: str = dataclasses.field(kw_only=True)

    with pytest.raises(TypeError, match="needed"):
        Later.of(Desired(0, {}, "v1", "ConfigMap", "a"))
