# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.readiness import READY, Verdict
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.waiting import Waiter, WaitFailed


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
