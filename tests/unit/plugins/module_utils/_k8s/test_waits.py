# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import os
import subprocess
import sys
import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.readiness import READY, Verdict
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.waits import Waiter, WaitFailed, WaitSpec, wait_for_all


def obj(**status):
    return {"status": status}


def test_condition_type_status_and_reason():
    spec = WaitSpec("v1", "X", "x", condition_type="Available", condition_reason="Done")
    assert spec.evaluate(None) is None
    assert spec.evaluate(obj()) is None
    assert spec.evaluate(obj(conditions=[{"type": "Available", "status": "False"}])) is None
    assert spec.evaluate(obj(conditions=[{"type": "Available", "status": "True", "reason": "Later"}])) is None
    assert spec.evaluate(obj(conditions=[{"type": "Available", "status": "True", "reason": "Done"}])) is True


def test_jsonpath_success_failure_and_kubectl_braces():
    spec = WaitSpec("v1", "X", "x", jsonpath="{.status.phase}", success=("Ready",), failure=("Failed",))
    assert spec.evaluate(obj(phase="Pending")) is None
    assert spec.evaluate(obj(phase="Ready")) is True
    assert spec.evaluate(obj(phase="Failed")) is False
    spec = WaitSpec("v1", "X", "x", jsonpath=".status.conditions[?(@.type=='Ready')].status", success=(True,))
    assert spec.evaluate(obj(conditions=[{"type": "Ready", "status": "True"}])) is True


def test_a_bad_expression_fails_before_any_request():
    with pytest.raises(WaitFailed, match="invalid jsonpath"):
        no_server: t.Any = None  # any request would fail on None
        wait_for_all(no_server, no_server, [WaitSpec("v1", "X", "x", jsonpath="{.status[}")], timeout=1)


def test_ready_waits_for_the_kind_s_own_readiness_and_stale_conditions_wait():
    spec = WaitSpec("apps/v1", "Deployment", "d", ready=True)
    rolling: dict[str, t.Any] = {
        "kind": "Deployment", "metadata": {"generation": 2}, "spec": {"replicas": 1},
        "status": {"observedGeneration": 1, "updatedReplicas": 1, "replicas": 1, "availableReplicas": 1}}
    assert spec.evaluate(rolling) is None
    rolling["status"]["observedGeneration"] = 2
    assert spec.evaluate(rolling) is True
    assert WaitSpec("x/v1", "ClusterServiceVersion", "c", ready=True).evaluate(
        {"kind": "ClusterServiceVersion", "status": {"phase": "Failed"}}) is False
    stale = WaitSpec("v1", "X", "x", condition_type="Available")
    assert stale.evaluate({"metadata": {"generation": 2}, "status": {
        "observedGeneration": 1, "conditions": [{"type": "Available", "status": "True"}]}}) is None


def test_a_jsonpath_wait_without_jsonpath_ng_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "jsonpath_ng.ext", None)   # what an import of a missing package meets
    with pytest.raises(WaitFailed, match="jsonpath waits need the jsonpath-ng Python package"):
        no_server: t.Any = None
        wait_for_all(no_server, no_server, [WaitSpec("v1", "X", "x", jsonpath="{.status.phase}")], timeout=1)


def test_loading_the_module_does_not_import_jsonpath_ng():
    # jsonpath-ng costs 10-15 ms to import; only a jsonpath wait needs it.
    code = ("import sys; import ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.waits; "
            "print('jsonpath_ng' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.strip() == "False"


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def test_says_at_start_on_change_every_30_s_and_when_ready():
    clock, said = Clock(), t.cast("list[str]", [])
    answers = iter([Verdict("waiting", "a")] * 40 + [Verdict("waiting", "b"), READY])
    waiter = Waiter(600, said.append, interval=1.0, clock=clock, sleep=clock.sleep)
    took = waiter.until("thing", lambda: next(answers))
    assert took == 41
    assert [line.split(":")[1].strip() for line in said[:-1]] == ["a (0 s of 600 s)", "a (30 s of 600 s)",
                                                                  "b (40 s of 600 s)"]
    assert said[-1] == "thing: ready after 41 s"
    assert waiter.waited == [{"what": "thing", "seconds": 41.0}]


def test_ready_at_once_says_nothing():
    said: list[str] = []
    Waiter(10, said.append).until("x", lambda: READY)
    assert said == []


def test_failure_and_timeout_name_what_and_why():
    clock = Clock()
    with pytest.raises(WaitFailed, match="x: phase Failed"):
        Waiter(10, print, clock=clock, sleep=clock.sleep).until("x", lambda: Verdict("failed", "phase Failed"))
    with pytest.raises(WaitFailed, match="timed out after 10 s waiting for y: still"):
        Waiter(10, lambda _: None, clock=clock, sleep=clock.sleep).until("y", lambda: Verdict("waiting", "still"))
