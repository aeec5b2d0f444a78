# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Masking an in-process result (plugin_utils/_masking.py) over random results and no_log values: always what a
module process returns (Ansible's remove_values, then JSON), whether the values occur, occur in part, or not at
all; text from an alphabet with the characters JSON escapes."""

from __future__ import annotations

import json
import typing as t

from ansible.module_utils.common.parameters import remove_values
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._masking import masked

TEXT = st.text(alphabet='ab"\\/\n\t\u00e9\u2603\x01 8', max_size=6)
LEAF = st.one_of(TEXT, st.integers(-100, 10000), st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
                 st.none())
TREE = st.recursive(LEAF, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                  st.dictionaries(TEXT, inner, max_size=3)), max_leaves=15)


def leaves(value: t.Any) -> list[str]:
    if isinstance(value, dict):
        return [text for item in value.values() for text in leaves(item)]
    if isinstance(value, list):
        return [text for item in value for text in leaves(item)]
    return [str(value)] if not isinstance(value, bool) and value is not None else []


PICKS = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 6), st.integers(1, 6)), max_size=3)


@settings(max_examples=400, deadline=None)
@given(result=st.dictionaries(TEXT, TREE, max_size=4), picks=PICKS, others=st.sets(TEXT, max_size=2))
def test_masked_as_a_module_returns_it(result: dict[str, t.Any], picks: list[tuple[int, int, int]],
                                       others: set[str]) -> None:
    texts = leaves(result)
    # Values that occur: whole leaves and pieces of them (remove_values masks both).
    hidden = set(others) | {texts[i % len(texts)][start:start + size] for i, start, size in picks if texts}
    assert masked(result, hidden) == json.loads(json.dumps(remove_values(result, hidden)))
