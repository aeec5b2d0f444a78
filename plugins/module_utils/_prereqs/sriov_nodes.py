# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SR-IOV policies against the nodes: the NICs the operator discovered (SriovNetworkNodeState), each flavour's
supported-NIC list, virtual platforms, PF names with their VF ranges, and policies that overlap.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import re
import typing as t

from .common import Problems, control_plane_vm_nodes, node_list, path, selector_matches

_UPSTREAM_NICS = {
    "8086": ("158a 158b 1572 1563 10c9 1589 1581 15ff 0d58 1583 1592 1593 159b 1599 1591 188a 124d 124c 579c 579d "
             "579e 12d2 12d3 1249 124a"),
    "15b3": "1013 1015 1017 1019 101b 101d 101f 1021 1023 1025 a2d6 a2dc",
    "14e4": "16d7 1750", "1077": "1654", "1af4": "1000 1041", "177d": "b200 b100 b600 b900 ba00", "1d0f": "ec20",
}
_OPENSHIFT_ADDED = {"8086": "10fb 154d 1528", "15b3": "1007", "1077": "8070 1656", "1dd8": "1002", "14e4": "1751"}
_OPENSHIFT_REMOVED = {"8086": "10c9 1589 188a 1249 124a", "15b3": "1025", "177d": "b200 b100 b600"}


def _nic_table(flavour: str) -> dict[str, set[str]]:
    table = {vendor: set(devices.split()) for vendor, devices in _UPSTREAM_NICS.items()}
    if flavour == "openshift":
        for vendor, devices in _OPENSHIFT_ADDED.items():
            table.setdefault(vendor, set()).update(devices.split())
        for vendor, devices in _OPENSHIFT_REMOVED.items():
            table[vendor] -= set(devices.split())
    return table


SUPPORTED_NICS = {flavour: _nic_table(flavour) for flavour in ("upstream", "openshift")}
INTEL, MELLANOX = "8086", "15b3"
MELLANOX_MAX_VFS = 128


def go_atoi(text: str) -> int | None:
    """Go's strconv.Atoi, which the webhook reads range bounds with: an optional sign, then digits (``+3`` is 3)."""
    return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None


def parse_pf_name(entry: str, num_vfs: int) -> tuple[str, tuple[int, int] | None, str | None]:
    """(pf, (start, end) or None for the whole PF, error message or None)."""
    if "#" not in entry:
        return entry, None, None
    if entry.count("#") != 1:
        return entry, None, f"incorrect separator character usage in PF name {entry}"
    pf, _sep, spec = entry.partition("#")
    bounds = spec.split("-")
    if len(bounds) != 2:
        return pf, None, f"incorrect range character usage in PF name {entry}"
    start, end = go_atoi(bounds[0]), go_atoi(bounds[1])
    if start is None:
        return pf, None, f"start range is incorrect in PF name {entry}"
    if end is None:
        return pf, None, f"end range is incorrect in PF name {entry}"
    if end < start:
        return pf, None, f"end range shall not be smaller than start range in PF name {entry}"
    if end >= num_vfs:
        return pf, None, f"end range exceeds the maximum VF index ({num_vfs - 1}) in PF name {entry}"
    return pf, (start, end), None


def check_nic_selector(problems: Problems, where: str, nic: t.Mapping[str, t.Any], body: t.Mapping[str, t.Any],
                       spec: t.Mapping[str, t.Any], nics: dict[str, set[str]], num_vfs: int) -> None:
    keys = ("vendor", "deviceID", "pfNames", "rootDevices", "netFilter")
    if not any(nic.get(k) for k in keys):
        problems.error(where, "at least one of vendor, deviceID, pfNames, rootDevices or netFilter must be set")
        return
    if nic.get("netFilter"):
        clashing = [k for k in ("vendor", "deviceID", "pfNames", "rootDevices") if nic.get(k)]
        if clashing or body.get("eSwitchMode") or body.get("bridge"):
            problems.error(where, "netFilter cannot be combined with " + ", ".join(clashing or ["eSwitchMode/bridge"]))
        if body.get("linkType") not in (None, "eth", "ETH"):
            problems.error(where, "netFilter supports linkType eth only")
    vendor, device = nic.get("vendor"), nic.get("deviceID")
    if not spec.get("dev_mode"):
        if vendor and vendor not in nics:
            problems.error(path(where, "vendor"), f"vendor {vendor} is not supported")
        elif vendor and device and device not in nics[vendor]:
            problems.error(path(where, "deviceID"), f"vendor/device {vendor}/{device} is not supported")
        elif device and not vendor and not any(device in devices for devices in nics.values()):
            problems.error(path(where, "deviceID"), f"device {device} is not supported")
    for index, entry in enumerate(nic.get("pfNames") or []):
        message = parse_pf_name(str(entry), num_vfs)[2]
        if message:
            problems.error(path(where, "pfNames", index), message)
    for index, address in enumerate(nic.get("rootDevices") or []):
        if not re.match(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\Z", str(address)):
            problems.error(path(where, "rootDevices", index), f"{address!r} is not a full PCI address "
                                                              "(domain:bus:device.function, e.g. 0000:86:00.1): the "
                                                              "operator would match no NIC with it")


def _selected_interfaces(nic: t.Mapping[str, t.Any], interfaces: t.Sequence[t.Mapping[str, t.Any]],
                         num_vfs: int) -> list[t.Mapping[str, t.Any]]:
    pf_names = {parse_pf_name(str(p), max(num_vfs, 1))[0] for p in nic.get("pfNames") or []}
    chosen = []
    for iface in interfaces:
        if nic.get("vendor") and iface.get("vendor") != nic["vendor"]:
            continue
        if nic.get("deviceID") and iface.get("deviceID") != nic["deviceID"]:
            continue
        names = {iface.get("name"), *(iface.get("altNames") or [])}
        if pf_names and not names & pf_names:
            continue
        if nic.get("rootDevices") and iface.get("pciAddress") not in nic["rootDevices"]:
            continue
        chosen.append(iface)
    return chosen


# The operator's PlatformMap: a node whose providerID contains one of these is a virtual machine whose NICs are VFs.
VIRTUAL_PLATFORMS = ("openstack",)


def is_virtual(node: t.Mapping[str, t.Any]) -> bool:
    """From the node inventory's ``provider`` (a platform name or the node's spec.providerID)."""
    provider = str(node.get("provider") or "").lower()
    return any(platform in provider for platform in VIRTUAL_PLATFORMS)


def _model_accepted(iface: t.Mapping[str, t.Any], node: t.Mapping[str, t.Any], nic: t.Mapping[str, t.Any],
                    nics: dict[str, set[str]], vf_models: dict[str, set[str]] | None) -> bool:
    """The webhook's model check: a supported PF model; on a virtual node also a supported VF model that the
    policy's netFilter selects (the cloud attached the VF; nothing is created)."""
    vendor, device = str(iface.get("vendor")), iface.get("deviceID")
    if device in nics.get(vendor, set()):
        return True
    return bool(is_virtual(node) and nic.get("netFilter") and nic["netFilter"] == iface.get("netFilter")
                and (vf_models is None or device in vf_models.get(vendor, set())))


def check_nodes(problems: Problems, where: str, body: t.Mapping[str, t.Any], selector: dict[str, str],
                spec: t.Mapping[str, t.Any], nics: dict[str, set[str]], num_vfs: int,
                vf_models: dict[str, set[str]] | None = None) -> None:
    nodes = spec.get("nodes")
    if nodes is None:
        return
    matched = [n for n in nodes if selector and selector_matches(selector, n.get("labels") or {})]
    # The SR-IOV operator itself has no control-plane rule: a schedulable control plane (compact, single node) runs
    # VMs and gets VFs, with a warning; allow_control_plane: true says the drain/reboot there is known and expected.
    if not spec.get("allow_control_plane"):
        control_plane_vm_nodes(problems, path(where, "nodeSelector"), matched,
                               "the SR-IOV config daemon drains and reboots them to create the VFs (and to enable "
                               "the IOMMU)")
    if not matched:
        problems.error(path(where, "nodeSelector"), "no matched node is selected by the nodeSelector")
        return
    virtual = [str(n.get("name")) for n in matched if is_virtual(n)]
    if virtual and not (body.get("nicSelector") or {}).get("netFilter"):
        problems.warn(f"{where}: node(s) {node_list(virtual)} are virtual machines (provider): their NICs are VFs "
                      "the cloud attached, which the operator selects by netFilter (openstack/NetworkID:<id>)")
    states = spec.get("node_states")
    if states is None:
        return
    nic = body.get("nicSelector") or {}
    any_selected = False
    for node in matched:
        for iface in _selected_interfaces(nic, states.get(node.get("name"), []), num_vfs):
            if not _model_accepted(iface, node, nic, nics, vf_models):
                continue
            any_selected = True
            name = iface.get("name")
            if num_vfs == 0:
                problems.error(path(where, "numVfs"), f"numVfs(0) in CR {body.get('resourceName')} is not allowed")
            if iface.get("vendor") == INTEL and iface.get("totalvfs") is not None and num_vfs > iface["totalvfs"]:
                problems.error(path(where, "numVfs"), f"numVfs({num_vfs}) exceed the maximum allowed value("
                                                      f"{iface['totalvfs']}) interface({name})")
            if iface.get("vendor") == MELLANOX and num_vfs > MELLANOX_MAX_VFS:
                problems.error(path(where, "numVfs"), f"numVfs({num_vfs}) exceed the maximum allowed value("
                                                      f"{MELLANOX_MAX_VFS}) for Mellanox interface({name})")
            if body.get("vdpaType") and iface.get("vendor") != MELLANOX:
                problems.error(path(where, "vdpaType"), "vdpa is supported on Mellanox NICs only")
            if body.get("externallyManaged"):
                if num_vfs > int(iface.get("numVfs") or 0):
                    problems.error(path(where, "numVfs"), f"externally managed: {name} has only "
                                                          f"{iface.get('numVfs') or 0} VFs")
                if body.get("mtu") and iface.get("mtu") and body["mtu"] > iface["mtu"]:
                    problems.error(path(where, "mtu"), f"externally managed: MTU above the PF MTU {iface['mtu']}")
                if body.get("linkType") and iface.get("linkType") \
                        and str(body["linkType"]).lower() != str(iface["linkType"]).lower():
                    problems.error(path(where, "linkType"), f"externally managed: linkType {body['linkType']} differs "
                                                            f"from the link type of {name} ({iface['linkType']})")
    if not any_selected:
        problems.error(path(where, "nicSelector"), "no supported NIC is selected by the nicSelector on the "
                                                   "matched nodes")


def pf_aliases(states: t.Any) -> dict[str, str]:
    """Each PF altname the nodes report, mapped to the PF's name: the webhook compares resolved names."""
    aliases: dict[str, str] = {}
    for interfaces in (states or {}).values() if isinstance(states, dict) else ():
        for iface in interfaces or []:
            if isinstance(iface, dict) and iface.get("name"):
                for alt in iface.get("altNames") or []:
                    aliases[str(alt)] = str(iface["name"])
    return aliases


def check_overlaps(problems: Problems, where: str, body: t.Mapping[str, t.Any],
                   accepted: list[tuple[str, dict[str, t.Any]]], num_vfs: int, aliases: dict[str, str]) -> None:
    nic = body.get("nicSelector") or {}

    def resolved(entries: t.Any, vfs: int) -> list[tuple[str, tuple[int, int] | None, str | None]]:
        parsed = [parse_pf_name(str(p), vfs) for p in entries or []]
        return [(aliases.get(pf, pf), vf_range, error) for pf, vf_range, error in parsed]

    mine = resolved(nic.get("pfNames"), num_vfs)
    for label, other in accepted:
        other_nic = other.get("nicSelector") or {}
        if not _same_nodes(body.get("nodeSelector") or {}, other.get("nodeSelector") or {}):
            continue
        theirs = resolved(other_nic.get("pfNames"), int(other.get("numVfs") or 0) or 1)
        for pf, vf_range, _err in mine:
            clash = next(((r, e) for p, r, e in theirs if p == pf), None)
            if clash is None:
                continue
            other_range = clash[0]
            whole_mine, whole_theirs = vf_range is None, other_range is None
            if whole_mine and whole_theirs:
                problems.error(path(where, "nicSelector", "pfNames"), f"PF {pf} is overlapped with {label}")
            elif not whole_mine and not whole_theirs and vf_range and other_range \
                    and vf_range[0] <= other_range[1] and other_range[0] <= vf_range[1]:
                problems.error(path(where, "nicSelector", "pfNames"),
                               f"VF index range in {pf}#{vf_range[0]}-{vf_range[1]} is overlapped with {label}")
            if bool(body.get("externallyManaged")) != bool(other.get("externallyManaged")):
                problems.error(path(where, "externallyManaged"), f"externallyManaged is inconsistent with {label}")
            break
        for device in set(nic.get("rootDevices") or []) & set(other_nic.get("rootDevices") or []):
            problems.error(path(where, "nicSelector", "rootDevices"), f"root device {device} is overlapped with "
                                                                      f"{label}")
        if other.get("resourceName") == body.get("resourceName") and \
                bool(other.get("excludeTopology")) != bool(body.get("excludeTopology")):
            problems.error(path(where, "excludeTopology"), f"excludeTopology differs from {label}, which uses the "
                                                           "same resourceName")


def _same_nodes(left: t.Mapping[str, str], right: t.Mapping[str, str]) -> bool:
    """Selectors that can select one node (no key with different values); the webhook compares per node."""
    return all(right[k] == v for k, v in left.items() if k in right)
