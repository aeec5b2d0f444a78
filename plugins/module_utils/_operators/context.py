# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What one operators call shares: the connection, the settings, fetching, progress, and what has been done.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .._common.errors import ClusterFailed
from .._k8s.apply import Applier, ApplyFailed, Options
from .._k8s.discovery import Discovery
from .._k8s.waits import Waiter
from .settings import Settings

Fetch = t.Callable[[str], bytes]


class Failed(ClusterFailed):
    def __init__(self, message: str, result: dict[str, t.Any]) -> None:
        super().__init__(message)
        self.result = result


@dataclasses.dataclass
class Context:
    """What both paths share: the connection, the settings, fetching, progress, and what has been done."""

    connection: t.Any
    settings: Settings
    fetch: Fetch
    say: t.Callable[[str], None]
    waiter: Waiter
    discovery: Discovery
    applied: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    changed: bool = False

    def result(self, **extra: t.Any) -> dict[str, t.Any]:
        return {"changed": self.changed, "applied": self.applied, "waited": self.waiter.waited,
                "notes": self.notes, **extra}

    def refuse(self, problems: t.Sequence[str], **extra: t.Any) -> t.NoReturn:
        raise Failed("nothing was written: " + "; ".join(problems), self.result(problems=list(problems), **extra))

    def apply(self, name: str, objects: t.Sequence[dict[str, t.Any]], namespace: str, *,
              state: t.Literal["present", "absent"] = "present") -> dict[str, t.Any]:
        """``objects`` under the apply set ``name`` (pruning what a later version no longer ships), through the
        same pipeline as k8s_apply; recorded in ``applied`` whatever happens."""
        options = Options(apply_set=name, apply_set_namespace=namespace, prune=True, adopt=self.settings.adopt,
                          check_mode=self.settings.check_mode, state=state)
        applier = Applier(self.connection, options)
        try:
            outcome = applier.run(list(objects))
        except ApplyFailed as exc:
            partial = exc.partial or {}
            self.applied.append({"apply_set": name, "failed": str(exc), "errors": exc.errors,
                                 "written": partial.get("written", []), "pruned": partial.get("pruned", [])})
            self.changed = self.changed or bool(partial.get("changed"))
            raise Failed(f"apply set {name}: {exc}", self.result()) from None
        entry = {"apply_set": name, "changed": outcome.get("changed", False), "counts": outcome.get("counts", {}),
                 "objects": [o for o in outcome.get("objects", []) if o.get("action") != "unchanged"],
                 "pruned": outcome.get("pruned", []),
                 "warnings": outcome.get("warnings", [])}
        if "diff" in outcome:
            entry["diff"] = outcome["diff"]
        self.applied.append(entry)
        self.changed = self.changed or bool(entry["changed"])
        self.discovery.refresh()   # CRDs may have arrived
        return outcome
