# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How deep a document nests, measured before and after parsing, and how a result shows a deep value."""

from __future__ import annotations

import sys

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.depth import (
    LIBYAML_DEPTH,
    MAX_DEPTH,
    deep_documents,
    depth_of,
    flow_depth,
    shown,
)
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.manifests import ManifestError, objects_of


@pytest.mark.parametrize(("text", "depth"), [
    ("a: [[1], {b: [2]}]", 3),
    ("a: '[[[['\nb: \"{{{\\\"[[\"\n", 0),        # quoted: no collection
    ("a: 1 # [[[[\n", 0),                          # a comment
    ("a: x#[[\n", 2),                              # no comment without a space before '#': counted (never less)
    ("{\"a\": [{\"b\": []}]}", 4),
    ("]]] [", 1),
])
def test_flow_depth_counts_collections_outside_quotes_and_comments(text, depth):
    assert flow_depth(text) == depth


def test_depth_of_walks_without_recursion():
    value: list = []
    for _level in range(50_000):
        value = [value]
    assert depth_of(value) == 50_001 and depth_of({"a": [1, {"b": {}}]}) == 4 and depth_of("x") == 0


def test_a_result_shows_a_deep_value_as_a_note_of_its_depth():
    value: list = [1]
    for _level in range(150):
        value = [value]
    clipped = shown({"changes": value}, levels=3)
    assert clipped == {"changes": [["(nested 149 more levels: not shown)"]]}
    assert shown({"a": [1, {"b": 2}]}) == {"a": [1, {"b": 2}]}


def test_the_recursion_limit_is_raised_for_the_call_and_restored():
    before = sys.getrecursionlimit()
    with deep_documents():
        with deep_documents():
            assert sys.getrecursionlimit() >= MAX_DEPTH * 4
        assert sys.getrecursionlimit() >= MAX_DEPTH * 4
    assert sys.getrecursionlimit() == before


@pytest.mark.parametrize("style", ["flow", "block"])
def test_a_document_deeper_than_an_apply_carries_is_refused_before_it_is_parsed_or_after(style):
    levels = MAX_DEPTH + 1
    # Flow collections, or block sequences two columns a level on one line.
    text = ("a: " + "[" * levels + "1" + "]" * levels + "\n") if style == "flow" else ("a:\n" + "- " * levels + "1\n")
    with pytest.raises(ManifestError, match="levels deep"):
        objects_of("deep.yaml", text)
    assert objects_of("ok.yaml", "a: " + "[" * 500 + "1" + "]" * 500 + "\n")


def test_a_document_deeper_than_libyamls_cap_is_read_by_pyyamls_own_parser():
    # libyaml from 0.2.5 (PyYAML 6.0.4's) stops at 1,000 levels; the deep text goes to PyYAML's Python parser.
    levels = min(MAX_DEPTH - 5, 2 * LIBYAML_DEPTH)
    (document,) = objects_of("deep.yaml", "a: " + "[" * levels + "1" + "]" * levels + "\n")
    assert depth_of(document) == levels + 1
    (block,) = objects_of("deep.yaml", "a:\n" + "- " * levels + "1\n")
    assert depth_of(block) == levels + 1
