# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Structural-schema nodes: the API server's messages, its defaulting and its pruning of unknown and null fields."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.schema_nodes import (
    Arr,
    Bool,
    Int,
    MapOf,
    Obj,
    Quantity,
    Str,
)


def problems(node, value):
    errors: list = []
    node.check(value, "spec.x", errors)
    return [str(e) for e in errors]


def test_type_mismatches_are_reported_as_the_api_server_words_them():
    assert problems(Int(), "3") == ['spec.x: Invalid value: "3": must be of type integer']
    assert problems(Bool(), 1) == ["spec.x: Invalid value: 1: must be of type boolean"]
    assert problems(Int(), True) == ["spec.x: Invalid value: True: must be of type integer"]
    assert problems(Int(), 3.0) == []   # a JSON number with no fraction is an integer


def test_enums_patterns_minimums_and_list_lengths():
    assert problems(Str(enum=("a", "b")), "c") == ['spec.x: Unsupported value: "c": supported values: "a", "b"']
    assert problems(Str(pattern="^x"), "y") == ["spec.x: Invalid value: \"y\": should match '^x'"]
    assert problems(Int(minimum=1), 0) == ["spec.x: Invalid value: 0: should be greater than or equal to 1"]
    assert problems(Arr(items=Int(), max_items=1), [1, "2"]) == [
        "spec.x: Too many: 2: must have at most 1 items", 'spec.x[1]: Invalid value: "2": must be of type integer']


def test_a_quantity_takes_numbers_and_the_quantity_pattern():
    assert problems(Quantity(), 5) == [] and problems(Quantity(), "5Gi") == []
    assert problems(Quantity(), "2e3Mi") and problems(Quantity(), "five")


def test_required_fields_and_nested_objects():
    node = Obj(fields={"a": Obj(fields={"b": Int()}, required=("b",))})
    assert problems(node, {"a": {}}) == ["spec.x.a.b: Required value"]


def test_defaults_fill_missing_fields_only_and_are_copies():
    node = Obj(fields={"a": MapOf(values=Str(), default={"k": "v"}), "b": Int(default=1)})
    first = node.apply_defaults({"b": 7})
    assert first == {"a": {"k": "v"}, "b": 7}
    first["a"]["k"] = "changed"
    assert node.apply_defaults({})["a"] == {"k": "v"}


def test_unknown_fields_are_pruned_with_their_paths_and_nulls_dropped():
    node = Obj(fields={"a": Arr(items=Obj(fields={"b": Int()})), "c": Int()})
    pruned: list[str] = []
    assert node.prune({"a": [{"b": 1, "typo": 2}], "c": None, "extra": 3}, "spec", pruned) == {"a": [{"b": 1}]}
    assert pruned == ["spec.a[0].typo", "spec.extra"]
