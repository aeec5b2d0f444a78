# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Memory overcommit: swap sizing, the platform decision table, wasp-agent objects, MachineConfig/KubeletConfig.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import math
import typing as t
from decimal import Decimal

from .._common.golang import GoSyntaxError, quantity_value
from .common import (
    Problems,
    check_keys,
    check_label_map,
    control_plane_vm_nodes,
    path,
    selector_matches,
    version_tuple,
)
from .machine_configs import check_custom_pool, kubelet_config, machine_config_pool, swap_machine_config, swap_pools
from .wasp import wasp_objects, wasp_upgrade

MIB = Decimal(1024 * 1024)
WORKER_SELECTOR = {"node-role.kubernetes.io/worker": ""}
KEYS = frozenset(("overcommit_percent", "mechanism", "node_selector", "swap_behavior", "feature_gates", "hco_version",
                  "hco_api_version", "swap_file", "swap_device", "wasp", "encrypt", "pool"))
WASP_KEYS = frozenset(("namespace", "image", "csv", "related_images", "prometheus_rule", "extra_env", "upgrade_from",
                       "previous_kubelet_config"))
AUTOPILOT_ANNOTATION = "platform.kubevirt.io/autopilot"
AUTOPILOT_SWAP_FILE = "/var/tmp/ocpswap.file"
MECHANISMS = ("auto", "wasp-agent", "limited-swap", "autopilot")
# Where the autopilot's activation units look for swap, and the priority each is switched on with.
AUTOPILOT_ACTIVATION = {"file": {"what": AUTOPILOT_SWAP_FILE, "priority": 10},
                        "partition": {"what": "/dev/disk/by-partlabel/OCPSWAP", "priority": 100}}
HCO_API_VERSIONS = ("hco.kubevirt.io/v1beta1", "hco.kubevirt.io/v1")


def swap_mib(memory: t.Any, overcommit_percent: int) -> int:
    """NODE_SWAP = NODE_RAM x (overcommit/100 - 1), in MiB rounded up; 0 at or below 100 %."""
    ram = quantity_value(memory)
    swap = ram * (Decimal(overcommit_percent) / 100 - 1) / MIB
    return max(0, math.ceil(swap))


def check_input(problems: Problems, spec: t.Mapping[str, t.Any]) -> None:
    check_keys(problems, "wasp", spec.get("wasp"), WASP_KEYS)


def plan(spec: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Decide the mechanism for the platform and version and build everything it needs."""
    problems = Problems("swap")
    platform = spec.get("platform", "kubernetes")
    if platform not in ("kubernetes", "openshift"):
        problems.error("platform", "must be kubernetes or openshift")
    overcommit = spec.get("overcommit_percent", 100)
    if not isinstance(overcommit, int) or isinstance(overcommit, bool) or overcommit < 10:
        problems.error("overcommit_percent", "must be an integer of at least 10 (HyperConverged schema minimum)")
        overcommit = 100
    mechanism = spec.get("mechanism", "auto")
    if mechanism not in MECHANISMS:
        problems.error("mechanism", f"must be one of {', '.join(MECHANISMS)}")
    # The size does not depend on the version, only the mechanism does: without overcommit none is needed.
    version = version_tuple(spec.get("version"), "version", problems) \
        if overcommit > 100 or spec.get("version") is not None else (0, 0)
    selector = check_label_map(problems, "node_selector", spec.get("node_selector", WORKER_SELECTOR))
    swap_nodes = _size_nodes(spec, selector, overcommit, problems)
    selected = [n for n in spec.get("nodes") or []
                if isinstance(n, dict) and n.get("name") and selector_matches(selector, n.get("labels") or {})]
    if overcommit > 100:
        control_plane_vm_nodes(problems, "node_selector", selected,
                               "swap there is provisioned by a MachineConfig for the master pool, which reboots them"
                               if platform == "openshift" else
                               "the swap role adds a swap file there and restarts their kubelet")
    result: dict[str, t.Any] = {"mechanism": "none", "overcommit_percent": overcommit, "nodes": swap_nodes,
                                "swap_mib": max((n["swap_mib"] for n in swap_nodes), default=0),
                                "kubelet_config": {}, "objects": [], "hyperconverged": {}, "warnings": []}
    if len({n["swap_mib"] for n in swap_nodes}) > 1 and platform == "openshift":
        problems.warn("selected nodes differ in memory; the MachineConfig provisions the largest size "
                      f"({result['swap_mib']} MiB) on every node of the pool")
    api_version = spec.get("hco_api_version", HCO_API_VERSIONS[0])
    if api_version not in HCO_API_VERSIONS:
        problems.error("hco_api_version", f"must be one of {', '.join(HCO_API_VERSIONS)}")
    density = {"higherWorkloadDensity": {"memoryOvercommitPercentage": overcommit}}
    # v1 (HCO 1.18+) moved the field under spec.virtualization.
    result["hyperconverged"] = {"spec": {"virtualization": density} if api_version.endswith("/v1") else density}
    result["delete_first"] = []
    result["encrypt"] = _encrypt(spec, platform, problems)
    if overcommit > 100 and not problems.errors:
        if platform == "openshift":
            custom = check_custom_pool(spec, selected, problems)
            result["pools"] = swap_pools(spec, selected, problems)
            if not problems.errors:
                _openshift(spec, version, mechanism, result, problems)
                if custom is not None:
                    result["objects"].insert(0, machine_config_pool(custom))
        elif spec.get("pool") is not None:
            check_custom_pool(spec, selected, problems)
        else:
            _kubernetes(spec, version, mechanism, swap_nodes, result, problems)
    problems.raise_if_any()
    result["warnings"] = problems.warnings
    return result


def _size_nodes(spec: t.Mapping[str, t.Any], selector: dict[str, str], overcommit: int,
                problems: Problems) -> list[dict[str, t.Any]]:
    nodes = spec.get("nodes") or []
    sized = []
    matched = 0   # a selected node whose memory is refused is still selected: no second error about the selector
    for index, node in enumerate(nodes):
        where = path("nodes", index)
        if not isinstance(node, dict) or not node.get("name"):
            problems.error(where, "each node needs a name")
            continue
        if not selector_matches(selector, node.get("labels") or {}):
            continue
        matched += 1
        if node.get("memory") is None:   # never read as zero: without overcommit no swap is sized from it
            if overcommit > 100:
                problems.error(path(where, "memory"), f"required: {node['name']} runs VMs and memory is overcommitted "
                                                      f"to {overcommit} %, so its swap is sized from its memory")
            else:
                sized.append({"name": node["name"], "memory_mib": None, "swap_mib": 0})
            continue
        try:
            size = swap_mib(node.get("memory"), overcommit)
        except (GoSyntaxError, ArithmeticError):
            problems.error(path(where, "memory"), f"{node.get('memory')!r} is not a memory quantity")
            continue
        entry = {"name": node["name"], "memory_mib": int(quantity_value(node["memory"]) / MIB), "swap_mib": size}
        if node.get("disk_free") is not None:
            try:
                free_mib = int(quantity_value(node["disk_free"]) / MIB)
            except (GoSyntaxError, ArithmeticError):
                problems.error(path(where, "disk_free"), f"{node['disk_free']!r} is not a quantity")
            else:
                if size > free_mib:
                    problems.error(path(where, "disk_free"), f"node {node['name']} needs {size} MiB of swap but "
                                                             f"reports only {free_mib} MiB free")
        sized.append(entry)
    if overcommit > 100 and nodes and not matched:
        problems.error("node_selector", "selects none of the given nodes")
    return sized


def _encrypt(spec: t.Mapping[str, t.Any], platform: str, problems: Problems) -> bool:
    """Whether the host swap role encrypts the file (plain dm-crypt, random key per boot: example SU-05)."""
    encrypt = spec.get("encrypt", False)
    if not isinstance(encrypt, bool):
        problems.error("encrypt", "must be true or false")
        return False
    if encrypt and platform == "openshift":
        problems.error("encrypt", "the MachineConfig swap file is not encrypted; on OpenShift encrypt the node "
                                  "disks at installation instead")
    return encrypt


def _kubernetes(spec: t.Mapping[str, t.Any], version: tuple[int, int], mechanism: str,
                nodes: list[dict[str, t.Any]], result: dict[str, t.Any], problems: Problems) -> None:
    behavior = spec.get("swap_behavior")
    wanted_wasp = mechanism == "wasp-agent"
    if wanted_wasp and behavior == "LimitedSwap":
        problems.error("swap_behavior", "wasp-agent and kubelet swapBehavior LimitedSwap are mutually exclusive")
        return
    if wanted_wasp:
        for index, node in enumerate(spec.get("nodes") or []):
            if isinstance(node, dict) and node.get("name") in {n["name"] for n in nodes}:
                if node.get("runtime", "cri-o") != "cri-o":
                    problems.error(path("nodes", index, "runtime"), "wasp-agent needs CRI-O (it installs a CRI-O "
                                                                    "OCI hook); use mechanism limited-swap")
                if str(node.get("cgroup", "v2")) != "v2":
                    problems.error(path("nodes", index, "cgroup"), "wasp-agent needs cgroup v2")
        result["mechanism"] = "wasp-agent"
        result["kubelet_config"] = {"failSwapOn": False}
        result["objects"] = wasp_objects(spec.get("wasp") or {}, openshift=False, problems=problems)
        return
    behavior = behavior or "LimitedSwap"
    if behavior == "UnlimitedSwap" and version >= (1, 30):
        problems.error("swap_behavior", "UnlimitedSwap was removed in Kubernetes 1.30 (use LimitedSwap)")
        return
    if behavior not in ("LimitedSwap", "NoSwap", "UnlimitedSwap"):
        problems.error("swap_behavior", "must be LimitedSwap or NoSwap")
        return
    gates = dict(spec.get("feature_gates") or {})
    if version >= (1, 34) and gates.get("NodeSwap") is False:
        problems.error("feature_gates.NodeSwap", "NodeSwap is GA and locked on since Kubernetes 1.34")
    if version >= (1, 30) and behavior == "LimitedSwap":
        for index, node in enumerate(spec.get("nodes") or []):
            if isinstance(node, dict) and node.get("name") in {n["name"] for n in nodes} \
                    and str(node.get("cgroup", "v2")) != "v2":
                problems.error(path("nodes", index, "cgroup"), f"node {node['name']} uses cgroup v1: the kubelet "
                                                               "refuses LimitedSwap there since Kubernetes 1.30")
    config: dict[str, t.Any] = {"failSwapOn": False}
    if version < (1, 28):
        problems.warn(f"NodeSwap is alpha in Kubernetes {version[0]}.{version[1]}: not for production")
        gates["NodeSwap"] = True
    elif version < (1, 30):
        gates["NodeSwap"] = True
    if version >= (1, 28):
        config["memorySwap"] = {"swapBehavior": behavior}
    if gates and version < (1, 34):
        config["featureGates"] = gates
    result["mechanism"] = "kubelet-limited-swap"
    result["kubelet_config"] = config


def _openshift(spec: t.Mapping[str, t.Any], version: tuple[int, int], mechanism: str,
               result: dict[str, t.Any], problems: Problems) -> None:
    if version < (4, 16):
        problems.error("version", "memory overcommit with swap needs OpenShift 4.16 or later")
        return
    if mechanism == "limited-swap":
        problems.error("mechanism", "on OpenShift the kubelet's LimitedSwap comes from virt-platform-autopilot: "
                                    "use mechanism autopilot (HCO 1.18+) or wasp-agent")
        return
    hco = version_tuple(spec.get("hco_version", "1.16" if version >= (4, 20) else "1.14"), "hco_version", problems)
    ignition = "3.4.0" if version <= (4, 18) else "3.5.0"
    size = result["swap_mib"]
    if mechanism == "autopilot":
        if hco < (1, 18):
            problems.error("hco_version", "the autopilot swap mode needs HCO 1.18 or later")
            return
        result["mechanism"] = "autopilot"
        device = spec.get("swap_device", "file")
        if device not in AUTOPILOT_ACTIVATION:
            problems.error("swap_device", "must be file or partition")
            return
        result["activation"] = dict(AUTOPILOT_ACTIVATION[device])
        if device == "file":
            result["objects"] = [swap_machine_config(size, AUTOPILOT_SWAP_FILE, ignition, activate=False, pool=pool)
                                 for pool in result["pools"]]
        else:
            # A partition is laid out when the node is installed; the MCO cannot repartition a running node.
            problems.warn("swap_device partition: every selected node needs a GPT partition labelled OCPSWAP "
                          f"(at least {size} MiB), created at installation")
        result["hyperconverged"].setdefault("metadata", {})["annotations"] = {AUTOPILOT_ANNOTATION: "swap-enable"}
        return
    swap_file = spec.get("swap_file", "/var/tmp/swapfile")
    objects: list[dict[str, t.Any]] = []
    for pool in result["pools"]:
        if version <= (4, 20):
            # From 4.21 the MCO refuses failSwapOn/swapBehavior in a KubeletConfig; workers default to failSwapOn:
            # false.
            objects.append(kubelet_config(pool))
            problems.warn(f"KubeletConfigs of one pool are exclusive: merge failSwapOn: false into an existing {pool} "
                          "KubeletConfig instead of adding a second one")
        elif pool == "master":
            problems.warn("OpenShift 4.21+ takes no failSwapOn in a KubeletConfig: check that the master pool's "
                          "kubelet runs with failSwapOn: false before VMs swap on the control plane")
        objects.append(swap_machine_config(size, swap_file, ignition, activate=True, pool=pool))
    if hco >= (1, 16):
        # HCO deploys wasp-agent itself when memoryOvercommitPercentage > 100 (hco_version defaults to the release
        # the OpenShift version ships); a second, manual agent would duplicate its DaemonSet and SCC.
        result["mechanism"] = "wasp-agent-hco"
    else:
        result["mechanism"] = "wasp-agent"
        objects += wasp_objects(spec.get("wasp") or {}, openshift=True, problems=problems)
        result["delete_first"] = wasp_upgrade(spec.get("wasp") or {}, problems)
    result["objects"] = objects
