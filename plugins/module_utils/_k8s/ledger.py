# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The write ledger: every write and delete the API server confirmed, recorded the moment its answer arrives.

What a run reports as written, pruned or deleted, and whether it changed anything, comes from here alone, on
success and on every failure path: never from what the plan meant to do. PRIVATE.
"""

from __future__ import annotations

import threading
import typing as t

from .model import LedgerEntry, WriteAction


class Ledger:
    """Thread-safe: the write workers record into one ledger."""

    def __init__(self) -> None:
        self._entries: list[LedgerEntry] = []
        self._lock = threading.Lock()

    def record(self, api_version: str, kind: str, namespace: str | None, name: str, action: WriteAction,
               answer: t.Any = None, *, index: int | None = None, contents: t.Sequence[str] = (),
               parent: bool = False) -> LedgerEntry:
        """Record one confirmed write; ``answer`` is the server's object (its resourceVersion is kept)."""
        metadata = (answer.get("metadata") or {}) if isinstance(answer, dict) else {}
        entry = LedgerEntry(api_version, kind, namespace, name, action, metadata.get("resourceVersion"), index,
                            tuple(contents), parent)
        with self._lock:
            self._entries.append(entry)
        return entry

    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        with self._lock:
            return tuple(self._entries)

    @property
    def changed(self) -> bool:
        return bool(self.entries)

    def written(self) -> list[dict[str, t.Any]]:
        """Objects created, updated or adopted, in input order (the parent and a lock's Namespace first); an object
        written twice (the parent: before the members, and again after a prune) is listed once, as first written."""
        seen: set[tuple[str, str, str, str]] = set()
        out: list[LedgerEntry] = []
        for entry in sorted((e for e in self.entries if e.action not in ("pruned", "deleted", "unknown")),
                            key=lambda e: -1 if e.index is None else e.index):
            key = (entry.api_version, entry.kind, entry.namespace or "", entry.name)
            if key not in seen:
                seen.add(key)
                out.append(entry)
        return [e.as_dict() for e in out]

    def pruned(self) -> list[dict[str, t.Any]]:
        return [e.as_dict() for e in self.entries if e.action == "pruned"]

    def deleted(self) -> list[dict[str, t.Any]]:
        return [e.as_dict() for e in self.entries if e.action == "deleted"]

    def unknown(self) -> list[dict[str, t.Any]]:
        """Writes and deletes that reached the server, whose answers were lost and whose outcome it did not tell."""
        return [e.as_dict() for e in self.entries if e.action == "unknown"]

    def partial(self, warnings: t.Sequence[str] = ()) -> dict[str, t.Any]:
        """What a failed run reports: exactly what the server confirmed before the failure."""
        return {"changed": self.changed, "written": self.written(), "pruned": self.pruned(),
                "deleted": self.deleted(), "unknown": self.unknown(), "warnings": list(warnings)}

    def describe(self, limit: int = 20) -> str:
        """'; written before it stopped: ConfigMap a/b (created), ...; outcome unknown: ...' for a failure message."""
        done = [e.as_dict() for e in self.entries if e.action != "unknown"]
        unknown = self.unknown()
        if not done and not unknown:
            return "; nothing was written"
        text = f"; written before it stopped: {_labels(done, limit)}" if done else "; nothing was confirmed written"
        if unknown:
            text += f"; outcome unknown (sent, the answer lost, and reading it back did not tell): {_labels(unknown, limit)}"
        return text


def _labels(entries: t.Sequence[dict[str, t.Any]], limit: int) -> str:
    labels = [f"{e['kind']} {e['namespace']}/{e['name']} ({e['action']})" if e["namespace"]
              else f"{e['kind']} {e['name']} ({e['action']})" for e in entries]
    more = f" and {len(labels) - limit} more" if len(labels) > limit else ""
    return ", ".join(labels[:limit]) + more
