# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.site_settings (documentation in plugins/modules)."""

from __future__ import annotations

import os
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_settings as site_settings
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render import plain


def credential(given_kubeconfig: str, environ: t.Mapping[str, str]) -> str:
    """Which credential is at hand, named as the user set it ('' for none)."""
    if given_kubeconfig:
        return "site_kubeconfig"
    if environ.get("K8S_AUTH_KUBECONFIG", "").strip():
        return "K8S_AUTH_KUBECONFIG"
    if environ.get("K8S_AUTH_HOST", "").strip() and environ.get("K8S_AUTH_API_KEY", ""):
        return "K8S_AUTH_HOST and K8S_AUTH_API_KEY"
    return ""


class ActionModule(ControllerAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {
        "nodes": {"type": "list", "elements": "dict", "default": []},
        "nodes_group": {"type": "str"},
    }

    def inventory_nodes(self, group: str) -> list[dict[str, t.Any]]:
        """Each host of the group as a node: one pass over the inventory, however many hosts (a set_fact loop that
        grows a list re-templates it on every host)."""
        task_vars = self._task_vars or {}
        hostvars = task_vars.get("hostvars") or {}
        nodes = []
        for host in (task_vars.get("groups") or {}).get(group) or []:
            known = hostvars[host]
            node = {"name": host,
                    "memory": plain(self._templar.template(known.get("node_memory", "0"))),
                    "labels": plain(self._templar.template(known.get("node_labels", {}))),
                    "taints": plain(self._templar.template(known.get("node_taints", [])))}
            if known.get("node_provider"):   # a virtual platform changes what SR-IOV can select there
                node["provider"] = str(self._templar.template(known["node_provider"]))
            nodes.append(node)
        return nodes

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        task_vars = self._task_vars or {}
        provided = {name: plain(self._templar.template(value))
                    for name, value in task_vars.items() if name.startswith("site_")}
        settings = site_settings.normalize(provided)
        values = site_settings.effective(settings)
        found = credential(values["kubeconfig"], os.environ)
        action = values["action"]
        if action == "apply" and not found:
            settings.errors.append("site_action: apply needs a credential: set site_kubeconfig, K8S_AUTH_KUBECONFIG, "
                                   "or K8S_AUTH_HOST with K8S_AUTH_API_KEY (an AWX Kubernetes credential injects "
                                   "these)")
        if settings.errors:
            return {"failed": True, "errors": settings.errors,
                    "msg": f"{len(settings.errors)} problem(s) in the site settings, nothing done: "
                           + "; ".join(settings.errors)}
        apply = action == "apply" or (action == "auto" and bool(found))
        reason = ("site_action is render" if action == "render"
                  else f"site_action is apply, credential from {found}" if action == "apply"
                  else f"a credential is set: {found}" if found
                  else "no credential is set (site_kubeconfig, K8S_AUTH_KUBECONFIG, K8S_AUTH_HOST with "
                       "K8S_AUTH_API_KEY)")
        nodes = plain(args["nodes"]) + (self.inventory_nodes(args["nodes_group"]) if args["nodes_group"] else [])
        hyperconverged, prereqs_spec = site_settings.compose(settings, nodes)
        config = {**values, "apply": apply, "mode_reason": reason, "credential": found,
                  "output": values["render_dir"] or "rendered", "given": sorted(settings.given),
                  "hyperconverged": hyperconverged, "prereqs_spec": prereqs_spec}
        # Plain results, not ansible_facts: from ansible-core 2.20, facts read as top-level variables are deprecated.
        return {"config": config, "nodes": nodes, "apply": apply, "mode_reason": reason,
                "msg": f"{'apply' if apply else 'render'} mode - {reason}"}
