# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Current → target for each operator the site needs, and what is refused (pure: no connection).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import difflib
import typing as t

from .._common import versions
from . import catalog, upgrades

Action = t.Literal["install", "upgrade", "unchanged", "refused", "external"]


@dataclasses.dataclass(frozen=True)
class Running:
    """What the cluster runs of one operator, and where that was read."""

    version: str | None
    source: str                   # "Deployment kubevirt/virt-operator image", "KubeVirt ... status", ...
    external: bool = False        # runs where this site would not put it: installed by someone else


@dataclasses.dataclass(frozen=True)
class Step:
    key: str
    title: str
    current: str | None
    target: str
    action: Action
    reason: str = ""

    @property
    def line(self) -> str:
        what = {"install": f"install {self.target}", "upgrade": f"{self.current} → {self.target}",
                "unchanged": f"{self.target} (as running)", "refused": f"refused: {self.reason}",
                "external": f"left as it is: {self.reason}"}[self.action]
        return f"{self.title}: {what}"


@dataclasses.dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    problems: tuple[str, ...]

    @property
    def lines(self) -> list[str]:
        return [s.line for s in self.steps]

    @property
    def installs(self) -> list[str]:
        """The operators not running yet."""
        return [s.key for s in self.steps if s.action == "install"]


def target_versions(release: str, overrides: t.Mapping[str, str]) -> dict[str, str]:
    pins = dict(catalog.PINS.get(release, {}))
    pins.update({k: v for k, v in overrides.items() if v})
    return pins


def check_overrides(overrides: t.Mapping[str, t.Any], where: str = "operators_versions") -> list[str]:
    problems = []
    for key, value in overrides.items():
        if key not in catalog.BY_KEY:
            close = difflib.get_close_matches(str(key), list(catalog.BY_KEY), n=1)
            problems.append(f"{where}.{key}: not an operator this collection installs "
                            + (f"(did you mean {close[0]}?)" if close else
                               f"(one of {', '.join(sorted(catalog.BY_KEY))})"))
        elif value and versions.parse(value) is None:
            problems.append(f"{where}.{key}: {value!r} is not a version like v1.9.0")
    return problems


def unpinned(op: catalog.Operator, named: t.Callable[[str], str]) -> str:
    """The problem of an operator the release profile pins no version of (the pin the user can set)."""
    return f"{op.title}: the release profile pins no version of it; set {named('versions')}.{op.key}"


def plan(operators: t.Sequence[catalog.Operator], targets: t.Mapping[str, str],
         running: t.Mapping[str, Running], named: t.Callable[[str], str]) -> Plan:
    """One step per operator, in install order; a refused step refuses the whole run (nothing is written). Options
    named by ``named`` (settings.Settings.named)."""
    steps, problems = [], []
    for op in operators:
        target = targets.get(op.key, "")
        parsed = versions.parse(target)
        if parsed is None:
            problems.append(unpinned(op, named))
            continue
        now = running.get(op.key)
        current = versions.parse(now.version) if now and now.version else None
        if now is None:
            steps.append(Step(op.key, op.title, None, str(parsed), "install"))
            continue
        if now.external:
            steps.append(Step(op.key, op.title, now.version, str(parsed), "external",
                              f"{now.source}, installed outside this site (its version is not managed here)"))
            continue
        if current is None:
            steps.append(Step(op.key, op.title, now.version, str(parsed), "refused",
                              f"runs, but its version cannot be read ({now.source}: {now.version!r})"))
        elif current == parsed:
            steps.append(Step(op.key, op.title, str(current), str(parsed), "unchanged"))
        else:
            why = upgrades.step_problem(current, parsed, named)
            steps.append(Step(op.key, op.title, str(current), str(parsed), "refused" if why else "upgrade",
                              f"{why} (read from {now.source})" if why else ""))
    problems += [f"{s.title}: {s.reason}" for s in steps if s.action == "refused"]
    return Plan(tuple(steps), tuple(problems))
