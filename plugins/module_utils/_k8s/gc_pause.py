# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Python's cyclic garbage collector is paused while an apply runs. PRIVATE.

An apply over thousands of objects allocates a few hundred thousand containers that live until it ends (the decoded
LIST, the records of each stage). Each time the count of long-lived objects grows by a quarter the collector walks
all of them, and finds nothing: the apply's data holds no reference cycles. Over a no-op of thousands of objects
that walking is a large share of the call's CPU. Memory is unchanged: objects without cycles are freed by their
reference counts, collector or not, and a collection after a paused run finds no garbage. Reference counting frees
the data as before; only the search for cycles waits until the call ends.

Calls that overlap in one process (threads) share one pause (process_setting.py).
"""

from __future__ import annotations

import gc

from .process_setting import ProcessSetting


def _pause() -> bool:
    enabled = gc.isenabled()
    gc.disable()
    return enabled


def _resume(was_enabled: bool) -> None:
    if was_enabled:
        gc.enable()


collection_paused = ProcessSetting(_pause, _resume).held
