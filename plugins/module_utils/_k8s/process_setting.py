# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A process-wide interpreter setting an apply changes while it runs (the garbage collector paused, the recursion limit
raised). PRIVATE; no Ansible imports.

Calls that overlap in one process (threads) share the change: the first makes it, the last restores what the first
found.
"""

from __future__ import annotations

import contextlib
import threading
import typing as t


class ProcessSetting:
    def __init__(self, change: t.Callable[[], t.Any], restore: t.Callable[[t.Any], None]) -> None:
        """``change`` makes the change and returns what it replaced; ``restore`` puts that back."""
        self._change, self._restore = change, restore
        self._lock = threading.Lock()
        self._active = 0
        self._saved: t.Any = None

    @contextlib.contextmanager
    def held(self) -> t.Iterator[None]:
        with self._lock:
            if self._active == 0:
                self._saved = self._change()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if self._active == 0:
                    self._restore(self._saved)
