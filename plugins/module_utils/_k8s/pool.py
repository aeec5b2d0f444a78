# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bounded parallel requests. PRIVATE."""

from __future__ import annotations

import concurrent.futures
import typing as t

T = t.TypeVar("T")
R = t.TypeVar("R")


def parallel(work: t.Callable[[T], R], inputs: t.Sequence[T], workers: int) -> list[R]:
    """``work`` for each input, ``workers`` at a time; results in input order. On the first failure the queued ones
    are cancelled (the running ones finish) and the failure of the earliest input that failed is raised, so the
    same input fails the same way whatever the timing."""
    if len(inputs) <= 1 or workers <= 1:
        return [work(value) for value in inputs]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(work, value) for value in inputs]
        done, _pending = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_EXCEPTION)
        if any(f.exception() is not None for f in done):
            pool.shutdown(wait=True, cancel_futures=True)
            failed = next(f for f in futures if f.done() and not f.cancelled() and f.exception() is not None)
            raise t.cast(BaseException, failed.exception())
        return [future.result() for future in futures]
    finally:
        pool.shutdown(wait=True)
