# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site across a fleet: where a cluster's tree goes, whether a run holds all of a cluster's nodes, which nodes
the host play prepares, and the fleet's summary from what each cluster's run left. PRIVATE; no Ansible imports.

A run may hold part of a fleet: AWX job slicing gives each slice every n-th host of the inventory sorted by name
(ansible/awx 24.6.1, awx/main/models/inventory.py, Inventory.get_script_data), groups and all, so a slice can hold a cluster with only
some of its nodes, or nodes without their cluster. A cluster is planned from the whole of itself or not at all.
"""

from __future__ import annotations

import configparser
import dataclasses
import os
import re
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import node_list

CLUSTERS_FOLDER = "clusters"
# A cluster's outcome, as the fleet's summary counts them, in that order.
STATES = {"done": "done", "failed": "failed", "refused": "refused", "stopped": "stopped",
          "absent": "not in this run"}


def output(root: str, cluster: str | None) -> str:
    """A cluster's render directory: the root itself alone, ``ROOT/clusters/NAME`` in a fleet."""
    return os.path.join(root, CLUSTERS_FOLDER, cluster) if cluster else root


def _work_tree(directory: str) -> str | None:
    """The top of the Git work tree that holds ``directory`` (which may not exist yet), if any."""
    path = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _origin(top: str) -> str:
    """The origin remote's URL of the work tree, without any user or password it holds (never in a file we write)."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read(os.path.join(top, ".git", "config"), encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return ""
    url = parser.get('remote "origin"', "url", fallback="").strip()
    return re.sub(r"^([a-z][a-z0-9+.-]*://)[^/@]*@", r"\1", url)


def repository(root: str, values: t.Mapping[str, t.Any], cwd: str) -> tuple[dict[str, str], list[str]]:
    """Where a fleet's render root sits in its repository, for its GitOps files (site_gitops_*); when that cannot
    be known, nothing and the warning that says so (the trees are rendered; the files that point at them are not)."""
    top = _work_tree(root)
    path = str(values["gitops_path"]).strip("/")
    if not path:
        base = top or cwd
        relative = os.path.relpath(os.path.abspath(root), base)
        if relative.startswith(".."):
            warning = (f"site_gitops_path: the render directory {root} is neither in a Git work tree nor below the "
                       f"directory ansible-playbook runs in ({cwd}), so the fleet's ApplicationSet and Flux chains, "
                       "which name its path in the repository, are not written: set site_gitops_path to it")
            return {}, [warning]
        path = "" if relative == "." else relative.replace(os.sep, "/")
    url = values["gitops_repo_url"] or (_origin(top) if top else "")
    return {"url": url, "revision": values["gitops_revision"], "path": path,
            "project": values["argocd_project"]}, []


def partial_inventory(expected: t.Sequence[str], present: t.Sequence[str], *, apply: bool,
                      snapshot: bool) -> list[str]:
    """The problem of a run that holds only some of the cluster's nodes (a sliced job): apply mode and a snapshot
    plan from every Node of the cluster, so they need none of them; a render from the inventory's facts would plan
    a smaller cluster, so it refuses."""
    missing = sorted(set(expected) - set(present))
    if not missing or apply or snapshot:
        return []
    problem = (f"fleet_nodes: this run's inventory holds {len(expected) - len(missing)} of the cluster's "
               f"{len(expected)} nodes ({node_list(missing)} missing: a sliced AWX job, or an inventory source that "
               "failed); a render from part of them would plan a smaller cluster: render without slicing, or set "
               "site_nodes_snapshot to plan from the cluster's Nodes")
    return [problem]


# The host play's settings: one play rolls every cluster's nodes, with the first planned cluster's values.
ROLLOUT = {"site_node_batch": "100%", "site_node_max_fail_percentage": 0}


def rollout_warnings(settings: t.Mapping[str, t.Mapping[str, t.Any]]) -> list[str]:
    """A warning for each host-play setting the fleet's clusters (their variables by name) do not agree on."""
    warnings = []
    for name, default in ROLLOUT.items():
        values = {cluster: str(given.get(name, default)) for cluster, given in sorted(settings.items())}
        if len(set(values.values())) > 1:
            said = ", ".join(f"{cluster}: {value}" for cluster, value in values.items())
            warnings.append(f"{name}: the fleet's clusters set different values ({said}); one host play prepares "
                            "every cluster's nodes, with the first cluster's value: set it once for the fleet "
                            "(group_vars/kubevirt_clusters.yml)")
    return warnings


def cluster_of(host_vars: t.Mapping[str, t.Any]) -> str:
    """The host of a node's cluster: its fleet cluster, or localhost where the site configures one cluster."""
    return str(host_vars.get("fleet_cluster") or "localhost")


def prepares(plan: t.Any) -> bool:
    """Whether a cluster's plan (its site_settings result) has the host play prepare its nodes: apply mode, to
    configure."""
    config = plan.get("config") if isinstance(plan, t.Mapping) and not plan.get("failed") else None
    return isinstance(config, t.Mapping) and bool(config.get("apply")) and config.get("state") == "present"


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one cluster's run left: its plan (site_settings), its summary task's result, where it stopped."""
    name: str
    plan: t.Mapping[str, t.Any] | None
    summary: t.Mapping[str, t.Any] | None
    failure: str | None


def _line(outcome: Outcome) -> tuple[str, str]:
    """(state, line) of one cluster."""
    plan = outcome.plan
    if plan is None:
        return "absent", f"{outcome.name}: not in this run (a sliced job or --limit): nothing done there"
    if plan.get("failed"):
        problems = list(plan.get("errors") or [plan.get("msg") or "the plan failed"])
        return "refused", (f"{outcome.name}: refused before any write, {len(problems)} problem(s): "
                           + "; ".join(str(problem) for problem in problems))
    lines = list((outcome.summary or {}).get("msg") or [])
    if not lines:
        return "stopped", f"{outcome.name}: planned; stopped before its cluster side (see its host play)"
    release = next((line for line in lines if str(line).startswith("release profile: ")), "")
    said = f"{outcome.name}: {lines[0]}" + (f"; {release}" if release else "")
    if outcome.failure or (outcome.summary or {}).get("failed"):
        return "failed", (f"{said}; FAILED: {outcome.failure or 'see its summary'} - its summary says what was "
                          "written; run again with --limit " + outcome.name + " to resume (its lock and apply sets "
                          "are its own)")
    return "done", said


def report(outcomes: t.Sequence[Outcome], strays: t.Sequence[str]) -> tuple[list[str], bool]:
    """The fleet's summary lines, and whether every cluster of the fleet was in the run and done."""
    if not outcomes:
        return ["fleet: no cluster (the inventory has no host in kubevirt_clusters)"], False
    states: dict[str, list[str]] = {}
    lines = []
    for outcome in outcomes:
        state, line = _line(outcome)
        states.setdefault(state, []).append(outcome.name)
        lines.append(line)
    counts = ", ".join(f"{len(states[state])} {STATES[state]}" for state in STATES if state in states)
    head = f"fleet: {len(outcomes)} cluster(s): {counts}"
    if strays:
        lines.append(f"nodes not prepared: {node_list(sorted(strays))}: their cluster is not in this run (a sliced "
                     "job holds only some hosts: slice by cluster - see the fleet guide)")
    return [head, *lines], set(states) <= {"done"}
