# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.site_fleet (documentation in plugins/modules)."""

from __future__ import annotations

import json
import os
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _argocd_health as argocd_health
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _gitops_fleet as gitops
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _manifest_files as manifest_files
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_fleet import Outcome, cluster_of, report

CLUSTERS = "kubevirt_clusters"
NODES = "kubevirt_nodes"


class ActionModule(ControllerAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {}

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        task_vars = self._task_vars or {}
        groups = task_vars.get("groups") or {}
        hostvars = task_vars["hostvars"]
        in_run = list(groups.get(CLUSTERS) or [])
        # As stored, not templated again: a cluster's plan holds every object of its tree.
        stored = {name: hostvars.raw_get(name) for name in in_run}
        names = sorted({*in_run, *(member for name in in_run for member in stored[name].get("fleet_clusters") or [])})
        outcomes = [Outcome(name, plain(stored[name].get("site_settings")) if name in stored else None,
                            plain(stored[name].get("site_summary")) if name in stored else None,
                            str(stored[name]["site_failed"]) if name in stored and stored[name].get("site_failed")
                            else None) for name in names]
        strays = [node for node in groups.get(NODES) or [] if cluster_of(hostvars.raw_get(node)) not in stored]
        lines, whole = report(outcomes, strays)
        result: dict[str, t.Any] = {"changed": False, "written": [], "removed": []}
        configs = [(outcome.name, (outcome.plan or {}).get("config") or {}) for outcome in outcomes]
        if whole and configs and not any(config.get("apply") for _name, config in configs):
            lines += self._gitops(configs, result)
        # Printed as a debug task's message is, without -v: it is the fleet's summary.
        result.update(msg=lines, _ansible_verbose_always=True)
        return result

    def _gitops(self, configs: t.Sequence[tuple[str, t.Mapping[str, t.Any]]], result: dict[str, t.Any]) -> list[str]:
        """Write the fleet's ApplicationSet and Flux chains, where every cluster agrees on where they go."""
        shared = {name: json.dumps({"root": config["fleet"]["root"], **config["fleet"]["repository"]}, sort_keys=True)
                  for name, config in configs}
        if len(set(shared.values())) > 1:
            said = "; ".join(f"{name}: {value}" for name, value in shared.items())
            return [(f"gitops files not written: the clusters disagree on site_render_dir or site_gitops_* (set them "
                    f"once for the fleet, in group_vars/kubevirt_clusters.yml): {said}")]
        unknown = [name for name, config in configs if not config["fleet"]["repository"]]
        if unknown:
            said = (f"gitops files not written: where the render sits in its repository is not known "
                    f"(site_gitops_path; the plan of {', '.join(unknown)} says why)")
            return [said]
        first = configs[0][1]["fleet"]
        root = first["root"]
        repository = gitops.Repository(**first["repository"])
        members = [gitops.Member(name, config["fleet"]["destination"], config["render_layout"] == "stages")
                   for name, config in configs]
        lines = []
        # The health checks Argo CD lacks for the trees' kinds, as argocd-cm keys to merge (server-side apply).
        argocd: list[dict[str, t.Any]] = [argocd_health.config_map()]
        if repository.url:
            argocd.append(gitops.application_set(members, repository))
        else:
            lines.append("gitops: no ApplicationSet: the render is in no Git work tree with an origin remote; set "
                         "site_gitops_repo_url")
        flux = [(member.name, obj) for member in members if member.stages for obj in gitops.flux_chain(member, repository)]
        flat = [member.name for member in members if not member.stages]
        if flat:
            lines.append(f"gitops: no Flux chain for {', '.join(flat)}: a flat tree is applied in one pass (Argo CD "
                         "orders it by sync waves); site_render_layout: stages gives Flux a Kustomization per stage")
        lines.append(self._write(os.path.join(root, "argocd"), argocd, [], result))
        lines.append(self._write(os.path.join(root, "flux"), [obj for _name, obj in flux],
                                 [name for name, _obj in flux], result))
        return lines

    def _write(self, dest: str, objects: list[dict[str, t.Any]], folders: list[str], result: dict[str, t.Any]) -> str:
        plan = manifest_files.plan(dest, objects, prune=True, folders=folders)
        if plan.errors:
            result["failed"] = True
            return f"gitops: nothing written in {dest}: " + "; ".join(plan.errors)
        if not plan.contents and not plan.remove and not os.path.isdir(dest):
            return f"gitops: nothing for {dest}"
        if not self._task.check_mode:
            manifest_files.apply(plan)
        result["changed"] = result["changed"] or plan.changed
        result["written"] += [os.path.join(dest, name) for name in plan.write]
        result["removed"] += [os.path.join(dest, name) for name in plan.remove]
        would = "would be " if self._task.check_mode else ""
        return (f"gitops: {len(plan.contents)} file(s) in {dest}: {len(plan.write)} {would}written, "
                f"{len(plan.remove)} {would}removed")
