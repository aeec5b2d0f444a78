# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The in-process result is masked as a module's: Ansible's remove_values, then through JSON, is the reference for
every case, whether or not a no_log value occurs (a property over random results in tests/properties)."""

from __future__ import annotations

import datetime
import json
import typing as t

import pytest
from ansible.module_utils.common.parameters import remove_values

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._masking import masked


def module_path(result: dict[str, t.Any], hidden: set[t.Any]) -> t.Any:
    return json.loads(json.dumps(remove_values(result, hidden)))


RESULT = {"changed": True, "objects": [{"kind": "Secret", "name": "db", "changes": [
    {"path": "stringData.password", "op": "add", "before": None, "after": "s3cr\"et\\pa\u00e9ss"},
    {"path": "data.port", "op": "add", "before": None, "after": 8080}]}],
    "invocation": {"module_args": {"kubeconfig": "/home/me/.kube/config", "concurrency": 8, "prune": True}},
    "pairs": ("a", "b"), "counts": {"created": 1}}


@pytest.mark.parametrize("hidden", [
    set(), {"unrelated"}, {"/home/me/.kube/config"}, {"s3cr\"et\\pa\u00e9ss"}, {"cr\"et"}, {"\\pa\u00e9"},
    {"808"}, {"8"}, {"true"}, {"null"}, {"created"}, {"Secret", "kube"}, {""}, {"a"},
], ids=lambda hidden: repr(sorted(hidden)))
def test_as_the_module_path(hidden: set[str]) -> None:
    assert masked(RESULT, hidden) == module_path(RESULT, hidden)


def test_a_value_that_occurs_is_masked() -> None:
    result = masked(RESULT, {"s3cr\"et\\pa\u00e9ss", "/home/me/.kube/config"})
    assert "s3cr" not in json.dumps(result) and ".kube" not in json.dumps(result)
    assert result["invocation"]["module_args"]["kubeconfig"] == "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"


def test_nothing_hidden_comes_back_as_json_data() -> None:
    result = masked(RESULT, {"unrelated"})
    assert result["pairs"] == ["a", "b"] and result is not RESULT
    assert RESULT["pairs"] == ("a", "b")   # the caller's result is not changed


def test_a_value_json_cannot_carry_is_left_to_remove_values() -> None:
    when = datetime.date(2026, 11, 26)
    result = {"when": when, "note": "token abc"}
    assert masked(result, {"abc"}) == remove_values(result, {"abc"})   # a date, or its text before ansible-core 2.19
    assert masked(result, {"abc"})["note"] == "token ********"


def test_a_hidden_value_that_is_not_text() -> None:
    assert masked({"port": 6443, "name": "x"}, {6443}) == module_path({"port": 6443, "name": "x"}, {6443})
