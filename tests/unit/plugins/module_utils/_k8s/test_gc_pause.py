# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collector is paused for an apply and restored after it, as it was, also when calls overlap or fail."""

from __future__ import annotations

import gc
import threading

import pytest
from test_apply import replayed

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


def test_an_apply_runs_with_the_collector_paused():
    gc.enable()
    connection, run = replayed("noop")
    during: list[bool] = []
    exchange = connection.exchange

    def noted(*args, **kwargs):
        during.append(gc.isenabled())
        return exchange(*args, **kwargs)

    connection.exchange = noted  # type: ignore[method-assign]
    assert run()["changed"] is False
    assert during and not any(during) and gc.isenabled()
