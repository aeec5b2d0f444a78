# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.site_settings (documentation in plugins/modules)."""

from __future__ import annotations

import json
import os
import re
import typing as t

from ansible.utils.display import Display
from ansible.utils.vars import load_extra_vars

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import in_cluster
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.report import requests_made
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.bundles import Rendered
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _argocd_health as argocd_health
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_alerts as site_alerts
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_descheduler as site_descheduler
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_fleet as fleet
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_operators as site_operators
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_outside_hco as outside_hco
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_values as site_values
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops import FOLDERS, tree
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_compose import compose, for_removal
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_credentials import absolute, credential, kubeconfig_problems
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_live_nodes import live_nodes
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_nodes import FACTS, Host, holds_template, nodes_of
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_plan import operands_of, site_plan
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_reads import site_reads
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_release import choose as choose_release
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_settings import INTERNAL

PATHS = ("kubeconfig", "admin_kubeconfig", "render_dir", "nodes_snapshot")
display = Display()


def variable(problem: str) -> str:
    """The variable a problem names (``site_vm_networks`` of ``site_vm_networks[0].vlan: ...``)."""
    return re.split(r"[.\[:]", problem.removeprefix("hostvars["), maxsplit=1)[0]


def choose_mode(values: t.Mapping[str, t.Any], environ: t.Mapping[str, str]) -> tuple[bool, str, str, list[str]]:
    """Apply or render (site_action, and a credential at hand for auto), the credential found, why that mode, and
    what is wrong with it."""
    found = credential(values["kubeconfig"], environ)
    action = values["action"]
    # The pod's service account (a container group) is a credential for site_action: apply only: AWX on Kubernetes
    # runs every job in a pod, and auto must not turn a render job into an apply to the cluster AWX runs in.
    pod = not found and in_cluster.available(environ)
    if action == "apply" and pod:
        found = "the pod's service account (KUBERNETES_SERVICE_HOST)"
    apply = action == "apply" or (action == "auto" and bool(found))
    problems = []
    if action == "apply" and not found:
        problems.append("site_action: apply needs a credential: set site_kubeconfig, K8S_AUTH_KUBECONFIG, or "
                        "K8S_AUTH_HOST with K8S_AUTH_API_KEY (an AWX Kubernetes credential injects these), or run "
                        "in a pod with a service account")
    if values["state"] == "absent" and not apply:
        problems.append("site_state: absent removes what the site created on a cluster, so it needs apply mode: a "
                        "credential (site_kubeconfig, K8S_AUTH_KUBECONFIG, or K8S_AUTH_HOST with K8S_AUTH_API_KEY) "
                        f"and site_action auto or apply (it is {action})")
    reason = ("site_action is render" if action == "render"
              else f"site_action is apply, credential from {found}" if action == "apply"
              else f"a credential is set: {found}" if found
              else "no credential is set (site_kubeconfig, K8S_AUTH_KUBECONFIG, K8S_AUTH_HOST with K8S_AUTH_API_KEY)"
              + ("; the pod's service account is used with site_action: apply only" if pod else ""))
    return apply, found, reason, problems


def hco_owns_operands(values: t.Mapping[str, t.Any], running: t.Any) -> list[str]:
    """site_mode standalone writes the operands itself: refused where HCO runs, which owns them and would revert
    each write (counting it as KubeVirtCRModified)."""
    if values["mode"] != "standalone" or values["state"] != "present" or not running or running.component != "HCO":
        return []
    problem = (f"site_mode: standalone writes the operands itself, but HCO runs on this cluster ({running.where} "
               f"says {running.version}) and owns them: it would revert every write; set site_mode to hco (or auto)")
    return [problem]


def fleet_config(cluster: str | None, values: t.Mapping[str, t.Any], root: str, cwd: str,
                 apply: bool) -> tuple[dict[str, t.Any] | None, list[str]]:
    """In a fleet, the cluster's part of it as site_fleet reads it: its name, the render root and, to render, where
    that root sits in its repository (unknown: the fleet's GitOps files are not written, and a warning says so)."""
    if not cluster:
        return None, []
    gitops, warnings = fleet.repository(root, values, cwd) if not apply else ({}, [])
    return {"cluster": cluster, "root": root, "repository": gitops,
            "destination": values["argocd_cluster"] or cluster}, warnings


def said_origins(values: t.Mapping[str, t.Any], sources: t.Mapping[str, str]) -> list[str]:
    """Where each setting came from, printed with -v (AWX: verbosity 1) here rather than by a debug task of its own,
    which every run would pay for."""
    origins = [f"{name} = {json.dumps(values[name[len('site_'):]])} ({source})" for name, source in sources.items()]
    display.v("where each setting came from:\n" + "\n".join(f"  {origin}" for origin in origins))
    return origins


def render_mode(values: t.Mapping[str, t.Any]) -> tuple[str, str]:
    """The ownership mode render mode writes for, and why: site_mode, or for auto the operators source - through OLM
    the site installs HCO, which builds the operands itself (standalone operands beside its HyperConverged would be
    fought over); otherwise the site writes the operands."""
    if values["mode"] != "auto":
        return values["mode"], f"site_mode is {values['mode']}"
    if values["operators_source"] == "olm":
        return "hco", "site_mode auto and site_operators_source olm: the site installs HCO, which builds the operands"
    return "standalone", (f"site_mode auto and site_operators_source {values['operators_source']}: the site writes "
                          "the operands")


def fetch(location: str) -> bytes:
    """A release file, read by the operators stage's fetcher, imported here only when one is read: it loads Ansible's
    HTTP and TLS stack, which a render without release files does not need."""
    from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._operators_fetch import fetch as read

    return read(location)


def site_objects(plan: t.Any) -> list[dict[str, t.Any]]:
    """What decides the operators the site needs (site.yml's operators_objects)."""
    return [*plan.prereqs["objects"], *plan.render["operands"], *(plan.expanded.get("objects") or [])]


def render_operators(values: t.Mapping[str, t.Any], plan: t.Any, errors: t.Sequence[str]) -> Rendered:
    """Render mode's operators, every release file read and checked here, before any file is written (apply mode's
    operators stage does it before its first write); with every other problem, unless a setting they read was
    refused or the plan could not be made."""
    if plan.prereqs is None or plan.render is None or plan.expanded is None or any(
            variable(problem).startswith(("site_operators_", "site_platform", "site_release", "site_hco_namespace"))
            for problem in errors):
        return Rendered((), (), (), ())
    return site_operators.rendered(values, plan.hyperconverged or {}, site_objects(plan), fetch)


def render_tree(values: t.Mapping[str, t.Any], plan: t.Any, operators: Rendered,
                descheduler: t.Mapping[str, t.Any] | None) -> dict[str, t.Any]:
    """What render mode writes: every object the cluster side would write in render_mode's mode, by stage, with the
    sync waves unless site_sync_waves is false; in the stages layout, each object's folder and every stage's. The
    KubeDescheduler (site_descheduler) is an operator's instance, as kubernetes-nmstate's NMState is."""
    kubevirt = [plan.expanded["hyperconverged"]] if render_mode(values)[0] == "hco" else list(plan.render["operands"])
    instances = [*operators.instances, *([descheduler] if descheduler else [])]
    placed = tree([("operators", operators.operators), ("instances", instances),
                   ("prerequisites", plan.prereqs["objects"]), ("kubevirt", kubevirt),
                   ("presets", plan.expanded.get("objects") or [])], annotate=values["sync_waves"])
    stages = values["render_layout"] == "stages"
    return {"objects": [obj for _stage, obj in placed],
            "folders": [FOLDERS[stage] for stage, _obj in placed] if stages else [],
            "kustomized": list(FOLDERS.values()) if stages else []}


def hco_mode_of(values: t.Mapping[str, t.Any], live: t.Any, apply: bool) -> bool:
    """The mode the cluster side will run: hco where site_mode says so, or with auto where HCO runs (apply mode) or
    is installed (through OLM)."""
    running_hco = bool(live.running and live.running.component == "HCO")
    return values["mode"] == "hco" or (values["mode"] == "auto" and (
        running_hco if apply else values["operators_source"] == "olm"))


def edited_outside_hco(values: t.Mapping[str, t.Any], hosts: t.Sequence[t.Mapping[str, t.Any]], live: t.Any,
                       hco_mode: bool) -> outside_hco.OutsideHCO:
    """hco mode, apply mode: the operands someone changed outside HCO, from the HyperConverged the cluster holds
    (none yet: HCO has built nothing to change)."""
    held = outside_hco.live_hyperconverged(live.hyperconvergeds, values["hco_namespace"])
    if not hco_mode or live.connection is None or held is None:
        return outside_hco.OutsideHCO()
    return outside_hco.changed(live.connection, lambda found: operands_of(values, found, hosts), held)


def predicted_alerts(values: t.Mapping[str, t.Any], plan: t.Any, hosts: t.Sequence[t.Mapping[str, t.Any]], live: t.Any,
                     hco_mode: bool, edited: outside_hco.OutsideHCO) -> list[str]:
    """The HCO alerts this configuration will raise (_site_alerts)."""
    # The site's own wasp-agent (before 1.16), in the namespace the node prerequisites give it.
    wasp = (plan.prereqs.get("swap") or {}).get("mechanism") == "wasp-agent"
    return site_alerts.predict(release=values["release"], hco_mode=hco_mode, render=plan.render, nodes=hosts,
                               workload_selector=values["workload_node_selector"],
                               overcommit=values["overcommit_percent"],
                               own_wasp_namespace=site_alerts.SITE_WASP_NAMESPACE if wasp else None,
                               inputs=live.alerts, edited=edited.entries)


def findings(values: t.Mapping[str, t.Any], plan: t.Any, hosts: t.Sequence[t.Mapping[str, t.Any]], live: t.Any,
             apply: bool, descheduler: t.Any, operators: Rendered, alone: bool) -> tuple[dict[str, t.Any], list[str]]:
    """What the plan tells beyond itself: the HCO alerts and the operands edited outside HCO (read before any
    write), the KubeDescheduler site_descheduler writes and, in render mode, the tree; and their warnings."""
    hco_mode = hco_mode_of(values, live, apply)
    edited = edited_outside_hco(values, hosts, live, hco_mode)
    found: dict[str, t.Any] = {
        "alerts": predicted_alerts(values, plan, hosts, live, hco_mode, edited),
        "operands_edited": list(edited.entries) if apply and hco_mode else None,
        "descheduler": {"object": descheduler.object, "note": descheduler.note} if descheduler else None}
    if not apply:
        # A cluster alone gets Argo CD's health checks beside its tree (a fleet's go to its root once, site_fleet).
        found["tree"] = {**render_tree(values, plan, operators, descheduler.object if descheduler else None),
                         "argocd": [argocd_health.config_map()] if alone else []}
        found["operators"] = {"lines": list(operators.lines), "notes": list(operators.notes)}
    return found, list(edited.warnings)


class ActionModule(ControllerAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {
        "nodes": {"type": "list", "elements": "dict", "default": []},
        "nodes_group": {"type": "str"},
        "kubeconfigs": {"type": "list", "elements": "str", "default": ["kubeconfig"],
                        "choices": ["kubeconfig", "admin_kubeconfig"]},
        "cluster": {"type": "str"},
        "cluster_nodes": {"type": "list", "elements": "str", "default": []},
    }

    def inventory_hosts(self, group: str) -> list[Host]:
        """Each host of the group with its node_* variables: one pass over the inventory, however many hosts (a
        set_fact loop that grows a list re-templates it on every host). Only the facts the site reads are templated,
        and only where they hold a template: the other node_* names are needed for the typo check alone, and a
        500-node inventory's labels and resources (the nodes inventory's) are plain data."""
        task_vars = self._task_vars or {}
        hostvars = task_vars.get("hostvars")
        hosts: list[Host] = []
        if hostvars is None:
            return hosts
        for host in (task_vars.get("groups") or {}).get(group) or []:
            known = hostvars.raw_get(host)
            # A template is rendered in the host's own context (hostvars[host]), not this task's.
            facts = {name: (plain(self._templar.template(hostvars[host][name])) if holds_template(known[name])
                            else plain(known[name])) if name in FACTS else None
                     for name in known if name.startswith("node_")}
            hosts.append(Host(host, facts))
        return hosts

    def fleet_warnings(self) -> list[str]:
        """What the fleet's clusters disagree on that one play of the run applies to all (their variables as
        stored: a cluster whose value is a template is compared as written)."""
        task_vars = self._task_vars or {}
        clusters = (task_vars.get("groups") or {}).get("kubevirt_clusters") or []
        stored = {name: task_vars["hostvars"].raw_get(name) for name in clusters}
        return fleet.rollout_warnings({name: {key: value for key, value in found.items() if key in fleet.ROLLOUT}
                                       for name, found in stored.items()})

    def settings(self) -> tuple[t.Any, dict[str, t.Any], str]:
        """The site_* settings as given (templated, typed: survey answers are strings), their effective values with
        the paths made absolute, and the directory they are relative to."""
        task_vars = self._task_vars or {}
        # The playbooks' own site_* names are not settings; site_config is a play var over this task's result.
        provided = {name: plain(self._templar.template(value))
                    for name, value in task_vars.items() if name.startswith("site_") and name not in INTERNAL}
        settings = site_values.normalize(provided, frozenset(load_extra_vars(self._loader)))
        values = site_values.effective(settings)
        cwd = os.getcwd()
        values.update({name: absolute(values[name], cwd) for name in PATHS})
        return settings, values, cwd

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        # One pass, longer than most, on purpose: each check's problems decide what the next one checks (a refused
        # setting is planned with its default, and what depends on it is not reported again); the steps themselves
        # are the _site_* modules.
        settings, values, cwd = self.settings()
        errors = list(settings.errors)
        for name in args["kubeconfigs"]:
            context_name = "context" if name == "kubeconfig" else "admin_context"
            errors += kubeconfig_problems(f"site_{name}", values[name], values[context_name],
                                          f"site_{context_name}", cwd)
        apply, found, reason, mode_problems = choose_mode(values, os.environ)
        connectable = len(errors) == len(settings.errors) and not mode_problems
        errors += mode_problems
        # The cluster's Nodes where they can be known: read in apply mode (a credential that is wrong is named
        # above, not again), from the snapshot in render mode.
        live = live_nodes(values, apply and connectable, os.environ, args["kubeconfigs"][0])
        errors += live.problems
        # The release profile: the one the cluster runs (apply mode), which a site_release set must match.
        chosen = choose_release(values["release"], "site_release" in settings.given, values["release_mismatch"],
                                live.running)
        errors += chosen.problems
        values["release"] = chosen.release
        errors += hco_owns_operands(values, live.running)
        listed = self.inventory_hosts(args["nodes_group"]) if args["nodes_group"] else []
        errors += fleet.partial_inventory(args["cluster_nodes"], [host.name for host in listed], apply=apply,
                                          snapshot=bool(values["nodes_snapshot"]))
        inventory, node_problems, node_warnings = nodes_of(
            listed,
            overcommit_percent=values["overcommit_percent"], workload_selector=values["workload_node_selector"],
            live=live.nodes, prefer=values["node_facts"], source=live.source)
        hosts = plain(args["nodes"]) + inventory
        errors += node_problems
        hyperconverged, prereqs_spec = compose(settings, hosts)
        removal_spec, kept = for_removal(prereqs_spec) if values["state"] == "absent" else (prereqs_spec, [])
        # A setting already refused is planned with its default: what the plan says of it would only repeat it.
        refused = {variable(problem) for problem in errors}
        plan = site_plan(values, hyperconverged, prereqs_spec, removal_spec, hosts, refused)
        errors += [problem for problem in plan.problems if variable(problem) not in refused]
        descheduler = site_descheduler.wanted(values, live.alerts if apply else None)
        errors += list(descheduler.problems) if descheduler else []
        operators = render_operators(values, plan, errors) if not apply else Rendered((), (), (), ())
        errors += operators.problems
        sources = site_values.effective_sources(settings)
        cluster = args["cluster"]
        root = values["render_dir"] or os.path.join(cwd, "rendered")
        in_fleet, fleet_warnings = fleet_config(cluster, values, root, cwd, apply)
        if errors:
            whose = f"cluster {cluster}'s inventory, nothing done in it" if cluster else "the site's inventory, nothing done"
            return {"failed": True, "errors": errors, **({"requests": live.requests} if live.requests else {}),
                    "msg": f"{len(errors)} problem(s) in {whose}: " + "; ".join(errors)}
        rendered_for, rendered_why = render_mode(values)
        config = {**values, "apply": apply, "mode_reason": reason, "credential": found, "removal_kept": kept,
                  "operator_names": dict(site_operators.SITE_NAMES),
                  "render_mode": rendered_for, "render_mode_reason": rendered_why,
                  "nodes_from": live.source or "the inventory", "release_source": chosen.source,
                  # Only a removal reads it; a configuration's copy would be a second copy of every node in the result.
                  "removal_spec": removal_spec if values["state"] == "absent" else None,
                  "output": fleet.output(root, cluster), "fleet": in_fleet, "given": sorted(settings.given),
                  "hyperconverged": hyperconverged, "prereqs_spec": prereqs_spec}
        origins = said_origins(values, sources)
        # Plain results, not ansible_facts: from ansible-core 2.20, facts read as top-level variables are deprecated.
        # The plan as the later tasks read it (site_prereqs, site_hyperconverged, site_expanded, site_render): made
        # here, where validating it computed it anyway, rather than again by three tasks of every run.
        result = {"config": config, "nodes": hosts, "apply": apply, "mode_reason": reason, "sources": sources,
                  "origins": origins, "prereqs": plan.prereqs, "hyperconverged": plan.hyperconverged,
                  "expanded": plan.expanded, "render": plan.render,
                  "reads": site_reads(values["state"], removal_spec, plan),
                  "msg": f"{'apply' if apply else 'render'} mode - {reason}"}
        told, told_warnings = findings(values, plan, hosts, live, apply, descheduler, operators, in_fleet is None)
        result.update(told)
        if live.requests:
            result["requests"] = requests_made(live.connection) if live.connection else live.requests
        warnings = [*live.warnings, *told_warnings, *chosen.warnings, *node_warnings, *plan.warnings, *fleet_warnings,
                    *(self.fleet_warnings() if cluster and apply else [])]
        if warnings:
            result["warnings"] = warnings
        return result
