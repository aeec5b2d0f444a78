# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bounded parallel requests. PRIVATE.

``workers`` threads take the inputs in order, one at a time, until none is left or one failed. Not a
ThreadPoolExecutor: a Future per input (its Condition and RLock) and ``wait()``'s waiter on each cost about a tenth
of the applier's CPU from empty, where each object is one input of the dry-run step and one of the write step.
"""

from __future__ import annotations

import threading
import typing as t

T = t.TypeVar("T")
R = t.TypeVar("R")


def parallel(work: t.Callable[[T], R], inputs: t.Sequence[T], workers: int) -> list[R]:
    """``work`` for each input, ``workers`` at a time; results in input order. On the first failure no further
    input is started (the running ones finish) and the failure of the earliest input that failed is raised, so the
    same input fails the same way whatever the timing."""
    if len(inputs) <= 1 or workers <= 1:
        return [work(value) for value in inputs]
    results: list[t.Any] = [None] * len(inputs)
    failures: dict[int, BaseException] = {}
    queue = iter(range(len(inputs)))
    lock = threading.Lock()

    def drain() -> None:
        while True:
            with lock:
                index = None if failures else next(queue, None)
            if index is None:
                return
            try:
                results[index] = work(inputs[index])
            except BaseException as exc:  # pylint: disable=broad-exception-caught  # raised in the caller below
                with lock:
                    failures[index] = exc

    threads = [threading.Thread(target=drain, name=f"k8s-{n}", daemon=True) for n in range(min(workers, len(inputs)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[min(failures)]
    return t.cast(list[R], results)
