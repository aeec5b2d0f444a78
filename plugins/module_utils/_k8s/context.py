# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every stage of one call shares: the connection, discovery, the options, the ledger, warnings. PRIVATE."""

from __future__ import annotations

import dataclasses
import threading
import typing as t

from .client import Connection
from .discovery import Discovery
from .ledger import Ledger
from .model import Options
from .pool import parallel
from .secrets import Masker

T = t.TypeVar("T")
R = t.TypeVar("R")


@dataclasses.dataclass
class Context:
    connection: Connection
    options: Options
    discovery: Discovery
    ledger: Ledger = dataclasses.field(default_factory=Ledger)
    masker: Masker = dataclasses.field(default_factory=Masker)
    #: the apply set's members of each kind as the plan listed them across the cluster; the pruner, which looks
    #: across the cluster too, uses that listing instead of making its own (read.read_live, prune.find).
    listings: dict[t.Any, list[dict[str, t.Any]]] = dataclasses.field(default_factory=dict)
    _warnings: list[str] = dataclasses.field(default_factory=list)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def warn(self, message: str) -> None:
        with self._lock:
            if message not in self._warnings:
                self._warnings.append(message)

    @property
    def warnings(self) -> list[str]:
        with self._lock:
            return [self.masker.text(w) for w in self._warnings]

    def parallel(self, work: t.Callable[[T], R], inputs: t.Sequence[T]) -> list[R]:
        return parallel(work, inputs, self.options.workers)

    def request(self, method: str, path: str, **kwargs: t.Any) -> t.Any:
        return self.connection.request(method, path, **kwargs)
