# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site's closing summary, also after a failure: per stage, what was written (or, in check mode, would be) and
what was not, the drifted objects and fields by name, and how to resume.

It reads the registered results of the k8s_apply tasks of each stage as they are, finished or failed: a failed
k8s_apply lists in ``written`` what the API server confirmed before the failure. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import typing as t

State = t.Literal["not started", "skipped", "done", "failed"]
SHOWN = 8   # objects or fields named per line; the rest are counted


@dataclasses.dataclass(frozen=True)
class Stage:
    name: str
    state: State
    written: tuple[str, ...]   # "created CDI cdi-kubevirt-hyperconverged"
    drift: tuple[str, ...]     # "KubeVirt kubevirt-hyperconverged: spec.configuration.x (by kubectl-edit)"
    drift_total: int


def label(entry: t.Mapping[str, t.Any]) -> str:
    where = f"{entry['namespace']}/" if entry.get("namespace") else ""
    return f"{entry.get('kind')} {where}{entry.get('name')}"


def field_said(field: t.Mapping[str, t.Any]) -> str:
    """A drifted field with the managers that set it, as the summary names it."""
    by = f" (set by {', '.join(field['managers'])})" if field.get("managers") else ""
    return f"{field.get('path')}{by}"


def _some(items: t.Sequence[str]) -> str:
    shown = ", ".join(items[:SHOWN])
    return shown + (f" and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def stage(name: str, results: t.Sequence[t.Any]) -> Stage:
    """One stage from the registered results of its k8s_apply tasks (None for a task that never ran)."""
    ran = [r for r in results if isinstance(r, dict)]
    if not ran:
        return Stage(name, "not started", (), (), 0)
    if all(r.get("skipped") for r in ran):
        return Stage(name, "skipped", (), (), 0)
    failed = any(r.get("failed") for r in ran)
    written: list[str] = []
    drift: list[str] = []
    total = 0
    for result in ran:
        if result.get("failed"):
            written += [f"{e.get('action', 'written')} {label(e)}" for e in result.get("written") or []]
        else:
            written += [f"{o['action']} {label(o)}" for o in result.get("objects") or []
                        if o.get("action") not in (None, "unchanged", "kept")]
        written += [f"deleted {label(e)}" for e in (result.get("pruned") or []) + (result.get("deleted") or [])
                    if isinstance(e, dict)]
        total += int(result.get("drift_total") or 0)
        for obj in result.get("objects") or []:
            for field in (obj.get("drift") or {}).get("fields") or []:
                drift.append(f"{label(obj)}: {field_said(field)}")
    return Stage(name, "failed" if failed else "done", tuple(dict.fromkeys(written)), tuple(drift), total)


def lines(stages: t.Sequence[Stage], *, check_mode: bool, drift_mode: str, failure: str = "") -> list[str]:
    """The summary's lines about the stages: what each wrote, the drift, and after a failure how to resume."""
    verb = "would write" if check_mode else "wrote"
    out = []
    for one in stages:
        if one.state in ("not started", "skipped"):
            out.append(f"{one.name}: {one.state}" + (", nothing written" if one.state == "not started" else ""))
            continue
        said = f"{verb} {len(one.written)} object(s): {_some(one.written)}" if one.written else f"{verb} nothing"
        out.append(f"{one.name}: {'FAILED, ' if one.state == 'failed' else ''}{said}")
    drift = [field for one in stages for field in one.drift]
    total = sum(one.drift_total for one in stages)
    if total:
        fate = ("put back" + (" (would be, in check mode)" if check_mode else "")) if drift_mode == "revert" \
            else "left as they are (site_drift: report)"
        out.append(f"drift: {total} field(s) changed by others, {fate}: {_some(drift) if drift else 'see the diff'}")
    else:
        out.append("drift: none")
    if failure:
        # The stage that failed, else the first that never started (a check before its first write refused).
        stopped = next((one.name for one in stages if one.state == "failed"),
                       next((one.name for one in stages if one.state == "not started"), "the cluster side"))
        out.append(f"the run stopped at {stopped}: {failure}")
        out.append("to resume: fix the cause and run the site again; it starts over from the plan, finds what is "
                   "already written unchanged, and writes only the rest")
    return out
