# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The result as the module returns it (the applier itself is tested against a real API server, tests/integration)."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import sized


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
