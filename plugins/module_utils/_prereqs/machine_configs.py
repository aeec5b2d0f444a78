# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""OpenShift's node configuration for swap: the MachineConfigPools it goes to (a custom pool checked as the
Machine Config Operator checks it), the KubeletConfig and the MachineConfig that makes the swap file.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .._common.names import DNS1123_LABEL
from .common import (
    Problems,
    is_control_plane,
)


def swap_pools(spec: t.Mapping[str, t.Any], selected: t.Sequence[t.Mapping[str, t.Any]], problems: Problems) -> list[str]:
    """The MachineConfigPools the VM nodes are in: master for control-plane nodes (a compact or single-node cluster,
    whose worker pool is empty), the custom pool of O(pool) or else worker for the others. A MachineConfig reaches
    every node of its pool."""
    custom = spec.get("pool")
    role = "worker" if custom is None else str(custom)
    pools = sorted({"master" if is_control_plane(n) else role for n in selected}) or [role]
    members_label = f"node-role.kubernetes.io/{role}"
    others = [str(n.get("name")) for n in spec.get("nodes") or [] if isinstance(n, dict) and n not in selected
              and not is_control_plane(n) and members_label in (n.get("labels") or {})]
    if custom is None and others:
        problems.warn(f"the worker pool's MachineConfig reaches every worker: {', '.join(others)} get swap too "
                      "although node_selector leaves them out; set swap.pool to give the VM nodes a custom "
                      "MachineConfigPool")
    elif others:
        problems.warn(f"{', '.join(others)} carry {members_label}, so the {role} pool's MachineConfig gives them swap "
                      "too although node_selector leaves them out")
    return pools


def check_custom_pool(spec: t.Mapping[str, t.Any], selected: t.Sequence[t.Mapping[str, t.Any]],
                      problems: Problems) -> str | None:
    """O(pool): a custom MachineConfigPool for the selected workers (OpenShift only). A node joins it by its
    node-role label, which this collection does not set on Nodes: the inventory must show it."""
    custom = spec.get("pool")
    if custom is None:
        return None
    if not isinstance(custom, str) or not DNS1123_LABEL.match(custom) or len(custom) > 63:
        problems.error("pool", "must be a MachineConfigPool name: lower-case letters, digits and '-', at most 63")
        return None
    if custom in ("worker", "master"):
        problems.error("pool", f"{custom} is a built-in pool; leave pool unset to use it")
        return None
    if spec.get("platform", "kubernetes") != "openshift":
        problems.error("pool", "MachineConfigPools exist on OpenShift only; leave pool unset on Kubernetes")
        return None
    label = f"node-role.kubernetes.io/{custom}"
    unlabelled = [str(n.get("name")) for n in selected
                  if not is_control_plane(n) and label not in (n.get("labels") or {})]
    if unlabelled:
        problems.error("pool", f"the label {label}, by which a node joins the {custom} pool, is missing on "
                               f"{', '.join(unlabelled)}: label them (oc label node NAME {label}=) and list it in "
                               "their node_labels")
    return custom


def machine_config_pool(name: str) -> dict[str, t.Any]:
    """A custom pool as OpenShift documents it: the worker MachineConfigs plus its own, for nodes labelled with its
    role; the pools.operator label is what a KubeletConfig selects it by."""
    return {
        "apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
        "metadata": {"name": name, "labels": {f"pools.operator.machineconfiguration.openshift.io/{name}": ""}},
        "spec": {
            "machineConfigSelector": {"matchExpressions": [{
                "key": "machineconfiguration.openshift.io/role", "operator": "In", "values": ["worker", name]}]},
            "nodeSelector": {"matchLabels": {f"node-role.kubernetes.io/{name}": ""}},
        },
    }


def kubelet_config(pool: str = "worker") -> dict[str, t.Any]:
    return {
        "apiVersion": "machineconfiguration.openshift.io/v1", "kind": "KubeletConfig",
        "metadata": {"name": f"{pool}-swap"},
        "spec": {"machineConfigPoolSelector": {"matchLabels": {
            f"pools.operator.machineconfiguration.openshift.io/{pool}": ""}},
            "kubeletConfig": {"failSwapOn": False}},
    }


def swap_machine_config(size_mib: int, swap_file: str, ignition: str, *, activate: bool,
                        pool: str = "worker") -> dict[str, t.Any]:
    """Provisioning and activation as separate units, so swap is back on after every reboot."""
    provision = (
        f"[Unit]\nDescription=Provision the swap file\nConditionPathExists=!{swap_file}\n"
        "[Service]\nType=oneshot\n"
        f"ExecStart=/bin/sh -c 'fallocate -l {size_mib}M {swap_file} && chmod 600 {swap_file} && mkswap {swap_file}'\n"
        "[Install]\nWantedBy=kubelet-dependencies.target\n"
    )
    units: list[dict[str, t.Any]] = [{"name": "swap-provision.service", "enabled": True, "contents": provision}]
    if activate:
        units.append({"name": "swap-enable.service", "enabled": True, "contents": (
            "[Unit]\nDescription=Activate the swap file on every boot\nAfter=swap-provision.service\n"
            f"Requires=swap-provision.service\nConditionPathExists={swap_file}\nBefore=kubelet-dependencies.target\n"
            f"[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/sh -c 'swapon --show=NAME --noheadings "
            f"| grep -qx {swap_file} || swapon {swap_file}'\n"
            "[Install]\nRequiredBy=kubelet-dependencies.target\n")})
        units.append({"name": "system.slice", "dropins": [{"name": "10-no-swap.conf", "contents":
                                                           "[Slice]\nMemorySwapMax=0\n"}]})
    return {
        "apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
        "metadata": {"name": f"90-{pool}-swap", "labels": {"machineconfiguration.openshift.io/role": pool}},
        "spec": {"config": {"ignition": {"version": ignition}, "systemd": {"units": units}}},
    }
