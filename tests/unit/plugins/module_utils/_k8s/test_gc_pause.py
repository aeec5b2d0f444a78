# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collector is paused for an apply and restored after it, as it was, also when calls overlap or fail."""

from __future__ import annotations

import gc
import threading

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, ApplyFailed
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.gc_pause import collection_paused


@pytest.fixture(autouse=True)
def collector_restored():
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_paused_inside_and_enabled_again_after_also_after_a_failure():
    gc.enable()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collection_paused():
        raise RuntimeError("the apply failed")
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled():
    gc.disable()
    with collection_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_calls_share_one_pause_and_the_last_to_end_restores_it():
    gc.enable()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def second() -> None:
        first_in.wait(5)
        with collection_paused():
            second_in.set()
            first_out.wait(5)
            seen.append(gc.isenabled())   # the first call ended: still paused for this one

    thread = threading.Thread(target=second)
    thread.start()
    with collection_paused():
        first_in.set()
        second_in.wait(5)
    first_out.set()
    thread.join(5)
    assert seen == [False] and gc.isenabled()


def test_an_apply_runs_with_the_collector_paused_and_restores_it_when_it_fails(monkeypatch):
    gc.enable()
    during: list[bool] = []

    def stage(_self, *_args):
        during.append(gc.isenabled())
        raise ApplyFailed("the dry runs refused it", [])

    monkeypatch.setattr(Applier, "_run", stage)
    with pytest.raises(ApplyFailed):
        Applier.__new__(Applier).run([])
    assert during == [False] and gc.isenabled()
