# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The networks on a bridge (bridge CNI NetworkAttachmentDefinitions: VLANs, trunks) and the live-migration network
(macvlan with whereabouts), as the CNI plugins read their configuration when a pod starts.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import ipaddress
import json
import typing as t

from .._common.names import DNS1123_LABEL
from . import nads as raw_nads
from .common import Problems, check_keys, path, type_name

BRIDGE_RESOURCE_PREFIX = "bridge.network.kubevirt.io/"
RESOURCE_NAME_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName"
# The bridge CNI accepts vlan together with vlanTrunk (vlan = the trunk port's PVID) from plugins v1.8.0.
BRIDGE_CNI_VLAN_WITH_TRUNK = (1, 8)
# What a network on a bridge may say (read by bridge_nad below).
BRIDGE_NAD_KEYS = ("name", "namespace", "cni_type", "vlan", "vlan_trunk", "hairpin", "promiscuous", "mtu",
                   "mac_spoof_check", "resource_annotation")


def bridge_nad(problems: Problems, where: str, nad: t.Any, bridge: str, trunk: list[tuple[int, int]],
               native: int | None, cni_version: tuple[int, int] | None) -> dict[str, t.Any] | None:
    if not isinstance(nad, dict):
        problems.error(where, "must be a mapping")
        return None
    check_keys(problems, where, nad, BRIDGE_NAD_KEYS)
    name = raw_nads.check_nad_name(problems, path(where, "name"), nad.get("name"))
    namespace = nad.get("namespace")
    if namespace is None:
        problems.error(path(where, "namespace"), "required: the namespace of the VMs that use this network")
    elif not isinstance(namespace, str) or not DNS1123_LABEL.match(namespace):
        problems.error(path(where, "namespace"), f"{namespace!r} is not a namespace name (a lower-case DNS label)")
    # ``bridge`` is always written: without it the plugin would create and use an unconnected cni0.
    config: dict[str, t.Any] = {"cniVersion": "0.3.1", "name": name, "type": nad.get("cni_type", "bridge"),
                                "bridge": bridge}
    vlan = nad.get("vlan")
    if vlan is not None:
        if not isinstance(vlan, int) or isinstance(vlan, bool):   # the type first: "100" is text, not out of range
            problems.error(path(where, "vlan"), f"must be a VLAN ID (a whole number), got {type_name(vlan)} {vlan!r}"
                           + (": write it without quotes" if isinstance(vlan, str) and vlan.strip().isdigit() else ""))
        elif not 0 <= vlan <= 4094:
            problems.error(path(where, "vlan"), f"must be within 0-4094, got {vlan}")
        elif vlan and not _trunked(vlan, trunk, native):
            problems.error(path(where, "vlan"), f"VLAN {vlan} is not trunked on the bridge uplink (add it to the "
                                                "bridge's vlans), so tagged traffic would be dropped")
        else:
            config["vlan"] = vlan
    if nad.get("vlan_trunk"):
        vm_trunk = _nad_trunk(problems, path(where, "vlan_trunk"), nad["vlan_trunk"], trunk, native)
        if cni_version is None:
            problems.error(path(where, "vlan_trunk"), "set bridge_cni_version (the containernetworking plugins "
                                                      "version on the nodes): trunk ports changed in v1.8.0")
        elif vlan and cni_version < BRIDGE_CNI_VLAN_WITH_TRUNK:
            problems.error(path(where, "vlan_trunk"), "vlan and vlan_trunk are mutually exclusive before bridge "
                                                      "CNI v1.8.0")
        config["vlanTrunk"] = vm_trunk
    config["preserveDefaultVlan"] = False  # explicit: the plugin default changed in v1.8.0
    if nad.get("hairpin") and nad.get("promiscuous"):
        problems.error(where, "hairpinMode and promiscMode cannot both be true")
    if nad.get("hairpin"):
        config["hairpinMode"] = True
    if nad.get("promiscuous"):
        config["promiscMode"] = True
    if nad.get("mtu") is not None:
        config["mtu"] = nad["mtu"]
    config["macspoofchk"] = bool(nad.get("mac_spoof_check", True))
    config["ipam"] = {}
    metadata: dict[str, t.Any] = {"name": name, "namespace": namespace}
    if nad.get("resource_annotation", True):
        metadata["annotations"] = {RESOURCE_NAME_ANNOTATION: BRIDGE_RESOURCE_PREFIX + bridge}
    else:
        problems.warn(f"{where}: without the {RESOURCE_NAME_ANNOTATION} annotation a VM may land on a node without "
                      f"{bridge}, where the CNI creates an empty, unconnected {bridge}")
    return {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition", "metadata": metadata,
            "spec": {"config": json.dumps(config, separators=(",", ":"))}}


def _trunked(vlan: int, trunk: list[tuple[int, int]], native: int | None) -> bool:
    return vlan == native or any(low <= vlan <= high for low, high in trunk)


def _nad_trunk(problems: Problems, where: str, entries: t.Any, trunk: list[tuple[int, int]],
               native: int | None) -> list[dict[str, int]]:
    """The bridge CNI's vlanTrunk: {id} or {minID, maxID} (both bounds, min <= max, 1-4094), each on the uplink."""
    result: list[dict[str, int]] = []
    if not isinstance(entries, list):
        problems.error(where, "must be a list of {id} or {min_id, max_id}")
        return result
    for index, entry in enumerate(entries):
        at = path(where, index)
        entry = entry if isinstance(entry, dict) else {"id": entry}
        # The bridge CNI applies an item's id and its minID-maxID range both, when both are given.
        ranged = "min_id" in entry or "max_id" in entry or "id" not in entry
        if ranged and (entry.get("min_id") is None or entry.get("max_id") is None):
            problems.error(at, "both min_id and max_id are required")
            continue
        spans = ([(entry["id"], entry["id"])] if "id" in entry else []) + (
            [(entry["min_id"], entry["max_id"])] if ranged else [])
        problem = next(filter(None, (_trunk_problem(low, high, trunk, native) for low, high in spans)), None)
        if problem:
            problems.error(at, problem)
            continue
        item: dict[str, int] = {"id": entry["id"]} if "id" in entry else {}
        if ranged:
            low, high = entry["min_id"], entry["max_id"]
            item.update({"id": low} if low == high and not item else {"minID": low, "maxID": high})
        result.append(item)
    return result


def _trunk_problem(low: t.Any, high: t.Any, trunk: list[tuple[int, int]], native: int | None) -> str | None:
    if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 4094 for v in (low, high)):
        return "VLAN ids must be within 1-4094"
    if low > high:
        return f"min_id {low} is greater than max_id {high}"
    missing = [v for v in range(low, high + 1) if not _trunked(v, trunk, native)]
    return f"VLAN {missing[0]} is not trunked on the bridge uplink (add it to the bridge's vlans)" if missing else None


def _whereabouts_range(problems: Problems, where: str, text: t.Any) -> ipaddress._BaseNetwork | None:
    """The network a whereabouts range lies in (None, with the error, when it is no range)."""
    parsed = raw_nads.parse_range(problems, where, text)
    return parsed[0] if parsed else None


def _network(problems: Problems, where: str, text: t.Any) -> ipaddress._BaseNetwork | None:
    try:
        return ipaddress.ip_network(str(text), strict=False)
    except ValueError:
        problems.error(where, f"{text!r} is not a CIDR")
        return None


def migration_nad(problems: Problems, where: str, migration: t.Mapping[str, t.Any],
                  spec: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
    name = raw_nads.check_nad_name(problems, path(where, "name"), migration.get("name", "migration-net"))
    hco_namespace = spec.get("hco_namespace", "kubevirt-hyperconverged")
    namespace = migration.get("namespace", hco_namespace)
    if namespace != hco_namespace:
        problems.error(path(where, "namespace"), f"the migration network must be in the HCO namespace "
                                                 f"{hco_namespace}, where virt-handler runs")
    master = migration.get("nic")
    if not isinstance(master, str) or not master:
        problems.error(path(where, "nic"), "the dedicated NIC (macvlan master) is required")
    network = _whereabouts_range(problems, path(where, "range"), migration.get("range"))
    if network is not None:
        for index, other in enumerate(spec.get("node_networks") or []):
            existing = _network(problems, path("node_networks", index), other)
            if existing is not None and existing.version == network.version and network.overlaps(existing):
                problems.error(path(where, "range"), f"{network} overlaps the node network {existing}: migration "
                                                     "addresses would collide with the nodes'")
        for index, entry in enumerate(migration.get("exclude") or []):
            _network(problems, path(where, "exclude", index), entry)
    mtu = migration.get("mtu")
    master_mtu = migration.get("nic_mtu")
    if mtu is not None and master_mtu is not None and mtu > master_mtu:
        problems.error(path(where, "mtu"), f"macvlan MTU {mtu} exceeds the MTU {master_mtu} of {master}")
    ipam: dict[str, t.Any] = {"type": "whereabouts", "range": str(migration.get("range"))}
    if migration.get("exclude"):
        ipam["exclude"] = list(migration["exclude"])
    config: dict[str, t.Any] = {"cniVersion": "0.3.1", "name": name, "type": "macvlan", "master": master,
                                "mode": "bridge"}
    if mtu is not None:
        config["mtu"] = mtu
    config["ipam"] = ipam
    return {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"config": json.dumps(config, separators=(",", ":"))}}
