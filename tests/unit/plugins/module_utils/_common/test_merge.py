# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.merge import merge


def test_mappings_merge_and_anything_else_over_wins_whole():
    base = {"a": {"b": 1, "c": [1, 2]}, "d": {"e": 1}, "f": 1}
    over = {"a": {"c": [3]}, "d": 2, "g": {"h": 1}}
    assert merge(base, over) == {"a": {"b": 1, "c": [3]}, "d": 2, "f": 1, "g": {"h": 1}}


def test_neither_argument_is_changed():
    base, over = {"a": {"b": 1}}, {"a": {"c": 2}}
    merge(base, over)
    assert base == {"a": {"b": 1}} and over == {"a": {"c": 2}}


def test_a_mapping_over_a_scalar_replaces_it():
    assert merge({"a": 1}, {"a": {"b": 2}}) == {"a": {"b": 2}}
