# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bounded parallel requests: results in input order, the earliest failure raised, the queue cancelled."""

from __future__ import annotations

import threading
import time

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.pool import parallel


def test_results_come_in_input_order_and_at_most_workers_run_at_once():
    running, most = [0], [0]
    lock = threading.Lock()

    def work(value: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01 * (value % 3))
        with lock:
            running[0] -= 1
        return value * 2

    assert parallel(work, list(range(20)), 4) == [v * 2 for v in range(20)]
    assert 1 < most[0] <= 4


def test_the_earliest_failed_input_is_raised_and_the_queue_is_cancelled():
    started = []

    def work(value: int) -> int:
        started.append(value)
        if value in (1, 2):
            time.sleep(0.05 if value == 1 else 0)   # 2 fails first in time, 1 first in input order
            raise ValueError(f"failed {value}")
        time.sleep(0.05)
        return value

    with pytest.raises(ValueError, match="failed 1"):
        parallel(work, list(range(100)), 3)
    assert len(started) < 100


def test_one_worker_or_one_input_runs_inline():
    assert parallel(lambda v: threading.current_thread() is threading.main_thread(), [1, 2], 1) == [True, True]
    assert parallel(lambda v: v, [], 8) == []
