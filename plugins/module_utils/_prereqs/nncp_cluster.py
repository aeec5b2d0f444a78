# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The policies against the cluster they go to: the node inventory (NICs that must exist, NetworkManager, how
many nodes are configured at once) and the policies already there (nmstate's update rules).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .._common.errors import Refused
from .common import Problems, path, selector_matches
from .nmstate_rules import DEFAULT_MAX_UNAVAILABLE, scaled_max_unavailable


def check_nodes(problems: Problems, spec: t.Mapping[str, t.Any],
                policies: list[tuple[str, dict[str, t.Any], list[tuple[str, str]]]]) -> list[dict[str, t.Any]]:
    """Against the node inventory: NICs that must exist, NetworkManager on the nodes, and the rollout width."""
    nodes = spec.get("nodes")
    if not isinstance(nodes, list):
        return []
    rollout = []
    without_network_manager: dict[int, str] = {}
    for where, nncp, nics in policies:
        policy_spec = nncp["spec"]
        name = nncp["metadata"]["name"]
        selector = policy_spec.get("nodeSelector") or {}
        matching = [(i, n) for i, n in enumerate(nodes)
                    if isinstance(n, dict) and selector_matches(selector, n.get("labels") or {})]
        if not matching:
            problems.warn(f"{where}: policy {name} matches none of the given nodes: nmstate marks it Ignored "
                          "(NoMatchingNode) and configures nothing")
        for index, node in matching:
            if node.get("network_manager") is False:
                without_network_manager[index] = str(node.get("name"))
            known = node.get("nics")
            if known is None:
                continue
            for nic, at in nics:
                if nic not in known:
                    problems.error(at, f"{nic} does not exist on node {node.get('name')}: the enactment would fail "
                                       "(FailedToConfigure) and the policy turn Degraded")
        limit = policy_spec.get("maxUnavailable", DEFAULT_MAX_UNAVAILABLE)
        try:
            at_once = scaled_max_unavailable(limit, len(matching))
        except Refused:
            continue  # reported by the policy's own check
        rollout.append({"policy": name, "matching_nodes": len(matching), "nodes_at_once": at_once})
    for index, name in sorted(without_network_manager.items()):
        problems.error(path("nodes", index, "network_manager"),
                       f"node {name} does not run NetworkManager: kubernetes-nmstate configures the host through it "
                       "(systemd-networkd alone is not supported)")
    return rollout


def available_reason(policy: t.Mapping[str, t.Any]) -> str:
    """Reason of the policy's Available condition ("" while nmstate has not reported yet)."""
    for condition in (policy.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Available":
            return str(condition.get("reason") or "")
    return ""


def check_updates(problems: Problems, existing: t.Any,
                  policies: list[tuple[str, dict[str, t.Any], list[tuple[str, str]]]], recreate_allowed: bool
                  ) -> list[str]:
    """nmstate's update rules against the policies on the cluster: no spec change while a policy is progressing;
    ``capture`` cannot change at all: refused, as nmstate's webhook does, unless ``recreate_changed_capture`` asks
    to delete such a policy and create it again (returned names)."""
    live_by_name = {(p.get("metadata") or {}).get("name"): p for p in existing or [] if isinstance(p, dict)}
    recreate = []
    for where, nncp, _nics in policies:
        name = nncp["metadata"]["name"]
        live = live_by_name.get(name)
        if live is None:
            continue
        live_spec = live.get("spec") or {}
        desired_spec = nncp["spec"]
        # Keys we do not set may carry server defaults: compare what we set, and capture in any case.
        keys = {*desired_spec, "capture"}
        if all(live_spec.get(k) == desired_spec.get(k) for k in keys):
            continue
        reason = available_reason(live)
        if reason in ("", "ConfigurationProgressing"):
            problems.error(where, f"policy {name} is still in progress (Available reason "
                                  f"{reason or 'not reported yet'}): wait until it is Available or Degraded")
        elif (live_spec.get("capture") or {}) != (desired_spec.get("capture") or {}):
            if not recreate_allowed:
                problems.error(where, f"the capture of policy {name} changes, which nmstate's webhook refuses on "
                                      "update: set recreate_changed_capture: true to delete the policy and create it "
                                      "again, or give it a new name")
                continue
            recreate.append(name)
            problems.warn(f"{where}: the capture of policy {name} changes, which nmstate refuses on update: the "
                          "policy is deleted and created again (recreate_changed_capture)")
    return recreate
