# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site's last word, whole: the mode and what changed, the stages (_site_summary), the operators, the swap plan,
the operand drift, the warnings, the API requests and the operands.

Read from the run's registered results as they are (a task that never ran is None), so that it can be said after a
failure too. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import get_profile
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import node_list
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_outside_hco as outside_hco
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_summary import lines, stage

Mapping = t.Mapping[str, t.Any]

# The registered results of the cluster side, by the stage they belong to (site_report's input names them).
PREREQUISITES = ("prerequisites_applied", "prerequisites_deleted")
KUBEVIRT = ("hyperconverged_applied", "hyperconverged_standalone", "hyperconverged_preset_applied",
            "hyperconverged_preset_deleted", "hyperconverged_deleted")
# Every call that talks to the API server says how many requests it made.
CALLS = ("site_settings", "site_cluster", "operators_result", "prerequisites_deleted_first", "prerequisites_applied",
         "prerequisites_deleted", "hyperconverged_vms", "hyperconverged_applied", "hyperconverged_operand_drift",
         "hyperconverged_standalone", "hyperconverged_preset_applied", "hyperconverged_preset_deleted",
         "hyperconverged_deleted", "site_descheduler_applied")
SWAP_NODES_SHOWN = 6   # nodes named one by one in the swap plan's line
RESULTS = frozenset((*CALLS, *KUBEVIRT, "site_argocd_written"))   # the names a Run's results may hold


@dataclasses.dataclass(frozen=True)
class Run:
    """What the site knows at its end. ``results`` holds the registered results named in RESULTS (None: never ran)."""

    config: Mapping                  # site_config
    check_mode: bool = False
    results: Mapping = dataclasses.field(default_factory=dict)
    run_mode: str | None = None      # the ownership mode the cluster side resolved, when it got that far
    unchecked: bool = False          # a check run that would install operators stopped before the later stages
    missing: tuple[str, ...] = ()    # what the cluster does not serve yet
    failure: str = ""
    prereqs: Mapping = dataclasses.field(default_factory=dict)       # the plan's node prerequisites (site_prereqs)
    operands: tuple[Mapping, ...] = ()                               # the plan's operands (site_render.operands)
    written: Mapping = dataclasses.field(default_factory=dict)       # render mode's files (site_written)
    kubevirt: Mapping = dataclasses.field(default_factory=dict)      # the hyperconverged role's hyperconverged_result


def _objects(result: t.Any) -> list[Mapping]:
    return list(result.get("objects") or []) if isinstance(result, t.Mapping) else []


def _acted(run: Run, names: t.Sequence[str], action: str, same: bool) -> int:
    """How many objects of these results have (same) or have not (not same) this action."""
    return sum(1 for name in names for entry in _objects(run.results.get(name)) if (entry.get("action") == action) == same)


def _head(run: Run) -> str:
    mode = run.kubevirt.get("mode") or run.run_mode or run.config.get("mode")
    if run.config.get("state") == "absent":
        said = (f"removal ({mode}): {_acted(run, ('hyperconverged_deleted', 'hyperconverged_preset_deleted'), 'deleted', True)}"
                f" KubeVirt and {_acted(run, ('prerequisites_deleted',), 'deleted', True)} prerequisite object(s) "
                f"{'would be deleted' if run.check_mode else 'deleted'}; the nodes are left as they are")
    elif not run.config.get("apply"):
        would = " would be" if run.check_mode else ""
        said = (f"render mode: {len(run.written.get('files') or [])} manifests in {run.config.get('output')}, "
                f"{len(run.written.get('written') or [])}{would} written, {len(run.written.get('removed') or [])}"
                f"{would} removed")
    else:
        said = (f"apply mode ({mode}): {_acted(run, ('prerequisites_applied',), 'unchanged', False)} prerequisite and "
                f"{_acted(run, ('hyperconverged_applied', 'hyperconverged_standalone'), 'unchanged', False)} KubeVirt "
                f"object(s) {'would change' if run.check_mode else 'changed'}")
    return f"{said} - {run.config.get('mode_reason')}"


def _operators(run: Run) -> str:
    result = run.results.get("operators_result")
    if isinstance(result, t.Mapping) and "plan" in result:
        return "; ".join(list(result.get("plan") or [])
                         + [f"approved InstallPlan {name}" for name in result.get("approved") or []])
    if isinstance(result, t.Mapping):
        return "the run stopped before them"
    if run.config.get("operators_source") == "none":
        return "not managed by the site (site_operators_source none)"
    planned = run.results.get("site_settings")
    rendered = planned.get("operators") if isinstance(planned, t.Mapping) else None
    if not run.config.get("apply") and isinstance(rendered, t.Mapping):
        return "in the tree, before what they serve: " + "; ".join(
            list(rendered.get("lines") or []) + list(rendered.get("notes") or []))
    return "not reached" if run.config.get("apply") else "not run in render mode"


def _swap(run: Run) -> str:
    """Each node's swap; past a handful of nodes, the nodes of each size (one line at 500 nodes)."""
    swap = run.prereqs.get("swap") or {}
    planned = swap.get("nodes") or []
    if len(planned) <= SWAP_NODES_SHOWN:
        nodes = ", ".join(f"{node['name']}: {node['swap_mib']} MiB" for node in planned)
    else:
        sizes: dict[int, list[str]] = {}
        for node in planned:
            sizes.setdefault(node["swap_mib"], []).append(node["name"])
        nodes = f"{len(planned)} node(s): " + "; ".join(f"{size} MiB on {node_list(names, 3)}"
                                                        for size, names in sorted(sizes.items()))
    return f"swap plan: {swap.get('mechanism') or 'none'}; {nodes or 'no node'}"


def _requests(run: Run) -> str:
    if not run.config.get("apply"):
        return "API requests: none (render mode)"
    counted = [result["requests"] for name in CALLS
               if isinstance(result := run.results.get(name), t.Mapping) and isinstance(result.get("requests"), t.Mapping)]
    return (f"API requests: {sum(int(c.get('total') or 0) for c in counted)} "
            f"({sum(int(c.get('writes') or 0) for c in counted)} writes) in {len(counted)} cluster call(s)")


def _operands(run: Run, mode: str | None) -> str:
    operands = run.kubevirt.get("operands") if "operands" in run.kubevirt else run.operands
    named = ", ".join(f"{o.get('kind')} {o.get('metadata', {}).get('name')}"
                      + (f" in {o['metadata']['namespace']}" if "namespace" in o.get("metadata", {}) else " (cluster-scoped)")
                      for o in operands or [])
    return f"operands{' (built by HCO)' if mode == 'hco' else ''}: {named}"


def _release(run: Run) -> str:
    """The release profile whose rules computed the operands, and where it came from."""
    written = str(run.config.get("release") or "")
    try:
        profile = get_profile(written)
    except RenderError:
        return f"release profile: {written} (unknown)"
    return f"release profile: {profile.name} (HCO {profile.hco_version}), from {run.config.get('release_source') or 'site_release'}"


def _descheduler(run: Run, planned: t.Any) -> list[str]:
    """site_descheduler's line: what it wrote (or would), or that the live object already satisfies the rule."""
    chosen = planned.get("descheduler") if isinstance(planned, t.Mapping) else None
    if not chosen:
        return []
    applied = run.results.get("site_descheduler_applied")
    if chosen.get("object") is None:
        return [f"descheduler: {chosen.get('note')}: nothing to write"]
    if not isinstance(applied, t.Mapping) or applied.get("skipped"):
        done = "not reached" if run.config.get("apply") else "in the tree (instances)"
    else:
        changed = _acted(run, ("site_descheduler_applied",), "unchanged", False)
        done = (f"{'would change' if run.check_mode else 'changed'}" if changed else "unchanged")
    return [f"descheduler: {chosen.get('note')}: {done}"]


def _argocd(run: Run) -> list[str]:
    """A cluster alone: where Argo CD's health checks for its tree's kinds went (a fleet's: its own summary)."""
    written = run.results.get("site_argocd_written")
    if not isinstance(written, t.Mapping) or written.get("skipped") or not written.get("files"):
        return []
    would = " would be" if run.check_mode else ""
    line = (f"Argo CD health checks (argocd-cm keys to merge into Argo CD's cluster): "
            f"{written.get('dest')}/{written['files'][0]}, {len(written.get('written') or [])}{would} written")
    return [line]


def _operand_drift(planned: t.Any) -> str:
    """hco mode, apply mode: each operand someone changed outside HCO, field by field with who set it, as the plan
    read them before any write (_site_outside_hco): HCO puts its values back and counts it (KubeVirtCRModified)."""
    entries = planned.get("operands_edited") if isinstance(planned, t.Mapping) else None
    if entries is None:
        return "operands changed outside HCO: not looked for (only apply mode in hco mode reads HCO's operands)"
    said = f" - HCO puts back: {'; '.join(outside_hco.named(entry) for entry in entries)}" if entries else ""
    return f"operands changed outside HCO, read before any write (HCO reverts them): {len(entries)}{said}"


def _alerts(planned: t.Any) -> str:
    """The HCO alerts the plan predicts for this configuration (_site_alerts), each with its fix."""
    predicted = list((planned.get("alerts") if isinstance(planned, t.Mapping) else None) or [])
    return f"HCO alerts predicted: {'; '.join(predicted) if predicted else 'none'}"


def report(run: Run) -> list[str]:
    """Every line of the site's summary, in the order users read it."""
    out = [_head(run)]
    if run.unchecked:
        out.append(f"check mode: the operators are not installed by a check run, so the kinds they serve cannot be "
                   f"dry-run yet ({'; '.join(run.missing)}); the node prerequisites and KubeVirt are checked once the "
                   f"operators run")
    if run.config.get("apply"):
        prerequisites = stage("node prerequisites", [run.results.get(name) for name in PREREQUISITES])
        kubevirt = stage("KubeVirt", [run.results.get(name) for name in KUBEVIRT])
        # A removal goes the other way: KubeVirt first.
        ordered = [kubevirt, prerequisites] if run.config.get("state") == "absent" else [prerequisites, kubevirt]
        out += lines(ordered, check_mode=run.check_mode, drift_mode=str(run.config.get("drift") or "revert"),
                     failure=run.failure)
    planned = run.results.get("site_settings")
    # The plan already holds the prerequisites' and the render's warnings (it computed both); a later stage's copy of
    # one, or a warning it finds again with the live cluster, is the same warning: said once, in first-found order.
    warnings = list(dict.fromkeys(
        [*((planned.get("warnings") if isinstance(planned, t.Mapping) else None) or []),
         *(run.prereqs.get("warnings") or []), *(run.kubevirt.get("warnings") or []),
         *(run.config.get("removal_kept") or [])]))
    if not run.config.get("apply") and run.config.get("render_mode"):
        out.append(f"rendered for {run.config['render_mode']} mode: {run.config.get('render_mode_reason')}")
        out += _argocd(run)
    out += [_release(run), f"operators: {_operators(run)}", f"nodes: planned from {run.config.get('nodes_from') or 'the inventory'}",
            _swap(run),
            _alerts(planned), *_descheduler(run, planned),
            _operand_drift(planned),
            f"warnings: {'; '.join(warnings) if warnings else 'none'}", _requests(run),
            _operands(run, run.kubevirt.get("mode") or run.run_mode
                      or (run.config.get("render_mode") if not run.config.get("apply") else None)
                      or run.config.get("mode"))]
    return out
