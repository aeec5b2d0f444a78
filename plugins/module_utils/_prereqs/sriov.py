# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SR-IOV node policies and networks, with the sriov-network-operator's admission rules re-implemented.

Flavours differ: ``upstream`` (k8snetworkplumbingwg) and ``openshift`` (the OpenShift fork: another resource-name
rule, another supported-NIC list, resource prefix ``openshift.io``).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import json
import re
import typing as t

from .common import Problems, check_keys, check_label_map, control_plane_vm_nodes, node_list, path, selector_matches

KEYS = frozenset(("flavour", "operator_namespace", "supported_nics", "operator_config", "existing_policies", "policies",
                  "networks", "dev_mode", "allow_control_plane", "node_states"))
# SriovNetworkNodePolicy and SriovNetwork spec fields (their CRDs), plus the object's name and namespace.
POLICY_KEYS = frozenset(("name", "namespace", "state", "bridge", "deviceType", "eSwitchMode", "excludeTopology",
                         "externallyManaged", "isRdma", "linkType", "mtu", "needVhostNet", "nicSelector", "nodeSelector",
                         "numVfs", "priority", "resourceName", "vdpaType"))
NIC_SELECTOR_KEYS = frozenset(("deviceID", "netFilter", "pfNames", "rootDevices", "vendor"))
NETWORK_KEYS = frozenset(("name", "namespace", "state", "capabilities", "ipam", "linkState", "logFile", "logLevel", "maxTxRate",
                          "metaPlugins", "minTxRate", "networkNamespace", "resourceName", "spoofChk", "trust", "vlan",
                          "vlanProto", "vlanQoS"))

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
FLAVOURS: dict[str, dict[str, t.Any]] = {
    "upstream": {"name": "upstream", "namespace": "sriov-network-operator", "prefix": "openshift.io",
                 "resource_name": re.compile(r"^[a-zA-Z0-9]([a-zA-Z0-9_-]*[a-zA-Z0-9])?$")},
    # The fork checks ^[a-zA-Z0-9_]+$ only, with no length limit; beyond that the kubelet's rule is applied.
    "openshift": {"name": "openshift", "namespace": "openshift-sriov-network-operator", "prefix": "openshift.io",
                  "resource_name": re.compile(r"^[a-zA-Z0-9_]+$"), "unlimited": True},
}
MTU_RULE = "must be within 1-9216 (the config daemon cannot set a larger MTU on a PF, and the node fails)"
EXTENDED_RESOURCE_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
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


def check_input(problems: Problems, spec: t.Mapping[str, t.Any]) -> None:
    """Unknown keys in policies (with their nicSelector) and networks: the CRDs' spec fields plus name/namespace."""
    for index, policy in enumerate(spec.get("policies") or []):
        check_keys(problems, path("policies", index), policy, POLICY_KEYS)
        if isinstance(policy, dict):
            check_keys(problems, path("policies", index, "nicSelector"), policy.get("nicSelector"), NIC_SELECTOR_KEYS)
    for index, network in enumerate(spec.get("networks") or []):
        check_keys(problems, path("networks", index), network, NETWORK_KEYS)


def plan(spec: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    problems = Problems("sriov")
    flavour = spec.get("flavour", "openshift" if spec.get("platform") == "openshift" else "upstream")
    if flavour not in FLAVOURS:
        problems.error("flavour", "must be upstream or openshift")
        problems.raise_if_any()
    profile = FLAVOURS[flavour]
    namespace = spec.get("operator_namespace", profile["namespace"])
    nics = SUPPORTED_NICS[flavour]
    vf_models: dict[str, set[str]] | None = None   # unknown unless the cluster's list is given
    if spec.get("supported_nics"):  # the cluster's own ConfigMap data ("vendor pf-device vf-device" per entry)
        entries = spec["supported_nics"]
        nics, vf_models = {}, {}
        for entry in entries.values() if isinstance(entries, dict) else entries:
            fields = str(entry).split()
            if len(fields) < 2:
                problems.error("supported_nics", f"{entry!r} is not 'vendor pf-device vf-device'")
                continue
            nics.setdefault(fields[0], set()).add(fields[1])
            if len(fields) > 2:
                vf_models.setdefault(fields[0], set()).add(fields[2])
        problems.raise_if_any()   # every NIC check depends on the list: no knock-on errors
    objects: list[dict[str, t.Any]] = []
    operator_config = _operator_config(problems, spec.get("operator_config"), namespace)
    if operator_config:
        objects.append(operator_config)
    accepted: list[tuple[str, dict[str, t.Any]]] = [
        (f"existing policy {p.get('metadata', {}).get('name', i)}", p.get("spec", p))
        for i, p in enumerate(spec.get("existing_policies") or [])]
    resource_names = {p.get("resourceName") for _path, p in accepted}
    removed: list[dict[str, t.Any]] = []
    for index, policy in enumerate(spec.get("policies") or []):
        where = path("policies", index)
        if _absent(problems, where, policy):
            removed.append(_reference("SriovNetworkNodePolicy", policy, namespace))
            continue
        built = _policy(problems, where, policy, spec, profile, nics, accepted, vf_models)
        if built:
            built["metadata"]["namespace"] = policy.get("namespace", namespace)
            if built["metadata"]["namespace"] != namespace:
                problems.warn(f"{where}: policy {built['metadata']['name']} is created in namespace "
                              f"{built['metadata']['namespace']} but not used: the operator reads policies from "
                              f"{namespace} only")
            _reboot_warning(problems, where, built, spec)
            objects.append(built)
            accepted.append((f"policy {built['metadata']['name']}", built["spec"]))
            resource_names.add(built["spec"]["resourceName"])
    nads = []
    for index, network in enumerate(spec.get("networks") or []):
        if _absent(problems, path("networks", index), network):
            removed.append(_reference("SriovNetwork", network, namespace))
            continue
        built = _network(problems, path("networks", index), network, namespace, resource_names)
        if built:
            objects.append(built)
            nads.append(render_nad(built, profile["prefix"]))
    problems.raise_if_any()
    return {"objects": objects, "delete": removed, "generated_nads": nads, "warnings": problems.warnings,
            "flavour": flavour}


def _absent(problems: Problems, where: str, item: t.Any) -> bool:
    """``state: absent`` marks an object to delete (only if this collection's apply set created it)."""
    if not isinstance(item, dict):
        return False
    state = item.get("state", "present")
    if state not in ("present", "absent"):
        problems.error(path(where, "state"), "must be present or absent")
    if state == "absent" and not item.get("name"):
        problems.error(path(where, "name"), "required to say what to delete")
    return state == "absent" and bool(item.get("name"))


def _reference(kind: str, item: t.Mapping[str, t.Any], namespace: str) -> dict[str, t.Any]:
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": kind,
            "metadata": {"name": item["name"], "namespace": item.get("namespace", namespace)}}


def _policy(problems: Problems, where: str, policy: t.Any, spec: t.Mapping[str, t.Any], profile: dict[str, t.Any],
            nics: dict[str, set[str]], accepted: list[tuple[str, dict[str, t.Any]]],
            vf_models: dict[str, set[str]] | None = None) -> dict[str, t.Any] | None:
    if not isinstance(policy, dict) or not policy.get("name"):
        problems.error(where, "each policy needs a name")
        return None
    before = len(problems.errors)
    body = {k: v for k, v in policy.items() if k not in ("name", "namespace", "state")}
    if policy["name"] == "default":
        # The operator's own policy: its webhook does not validate it, and neither do we.
        problems.warn(f"{where}: policy 'default' is the operator's own and is not validated (its webhook skips it)")
        return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy",
                "metadata": {"name": "default"}, "spec": body}
    resource = body.get("resourceName")
    if not isinstance(resource, str) or (len(resource) > 63 and not profile.get("unlimited")) \
            or not profile["resource_name"].match(resource):
        hint = (" (the OpenShift operator allows letters, digits and '_' only)"
                if "-" in str(resource) and profile["name"] == "openshift" else "")
        problems.error(path(where, "resourceName"), f"resource name {resource!r} is invalid{hint}")
    elif len(resource) > 63 or not EXTENDED_RESOURCE_NAME.match(resource):
        # Deliberately earlier than the OpenShift webhook, which admits it: the kubelet refuses it later.
        problems.error(path(where, "resourceName"),
                       f"resource name {resource!r} is admitted by the OpenShift operator, but the kubelet would "
                       f"refuse the device plugin's registration (the ResourceName \"{profile['prefix']}/{resource}\" "
                       "is invalid: kubernetes pkg/kubelet/cm/devicemanager, IsExtendedResourceName, whose name part "
                       "is at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit) "
                       "and no VF would ever be allocatable")
    selector = check_label_map(problems, path(where, "nodeSelector"), body.get("nodeSelector"))
    if not selector:
        problems.error(path(where, "nodeSelector"), "required")
    num_vfs = body.get("numVfs")
    if not isinstance(num_vfs, int) or isinstance(num_vfs, bool) or num_vfs < 0:
        problems.error(path(where, "numVfs"), "required, an integer of at least 0")
        num_vfs = 0
    priority = body.setdefault("priority", 99)  # mutating webhook default: lowest priority
    if not isinstance(priority, int) or not 0 <= priority <= 99:
        problems.error(path(where, "priority"), "must be within 0-99")
    if "mtu" in body and (not isinstance(body["mtu"], int) or not 1 <= body["mtu"] <= 9216):
        problems.error(path(where, "mtu"), MTU_RULE)
    device_type = body.setdefault("deviceType", "vfio-pci")
    if device_type not in ("netdevice", "vfio-pci"):
        problems.error(path(where, "deviceType"), "must be netdevice or vfio-pci")
    elif device_type != "vfio-pci":
        problems.warn(f"{where}: KubeVirt VMs consume VFs bound to vfio-pci; netdevice VFs serve pods")
    link = body.get("linkType")
    if link is not None and link not in ("eth", "ETH", "ib", "IB"):
        problems.error(path(where, "linkType"), "must be eth or ib")
    if link in ("ib", "IB") and device_type == "netdevice":
        body["isRdma"] = True  # the webhook's mutation: an InfiniBand netdevice VF is always RDMA
    elif "isRdma" not in body:
        body["isRdma"] = False
    if device_type == "vfio-pci" and body.get("isRdma"):
        problems.error(path(where, "isRdma"), "RDMA mode is not supported with deviceType vfio-pci")
    switchdev = body.get("eSwitchMode") == "switchdev"
    if switchdev and link in ("ib", "IB"):
        problems.error(path(where, "eSwitchMode"), "switchdev mode is supported for ethernet link type only")
    if body.get("vdpaType") and (device_type != "netdevice" or not switchdev):
        problems.error(path(where, "vdpaType"), "vdpa requires deviceType netdevice and eSwitchMode switchdev")
    if body.get("bridge") and (not switchdev or body.get("externallyManaged")):
        problems.error(path(where, "bridge"), "software bridge management requires eSwitchMode switchdev and is "
                                              "incompatible with externallyManaged")
    nic = body.get("nicSelector") or {}
    _check_nic_selector(problems, path(where, "nicSelector"), nic, body, spec, nics, num_vfs)
    _check_nodes(problems, where, body, selector, spec, nics, num_vfs, vf_models)
    # The stored copy of this same policy (a re-run with the cluster's policies) is not an overlap: the operator
    # skips the object with the policy's own name.
    others = [(label, other) for label, other in accepted if label != f"existing policy {policy['name']}"]
    _check_overlaps(problems, where, body, others, num_vfs, _pf_aliases(spec.get("node_states")))
    if len(problems.errors) > before:
        return None
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy",
            "metadata": {"name": policy["name"]}, "spec": body}


def _check_nic_selector(problems: Problems, where: str, nic: t.Mapping[str, t.Any], body: t.Mapping[str, t.Any],
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
        if not re.match(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$", str(address)):
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


def _check_nodes(problems: Problems, where: str, body: t.Mapping[str, t.Any], selector: dict[str, str],
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


def _pf_aliases(states: t.Any) -> dict[str, str]:
    """Each PF altname the nodes report, mapped to the PF's name: the webhook compares resolved names."""
    aliases: dict[str, str] = {}
    for interfaces in (states or {}).values() if isinstance(states, dict) else ():
        for iface in interfaces or []:
            if isinstance(iface, dict) and iface.get("name"):
                for alt in iface.get("altNames") or []:
                    aliases[str(alt)] = str(iface["name"])
    return aliases


def _check_overlaps(problems: Problems, where: str, body: t.Mapping[str, t.Any],
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


def _network(problems: Problems, where: str, network: t.Any, namespace: str,
             resource_names: set[t.Any]) -> dict[str, t.Any] | None:
    if not isinstance(network, dict) or not network.get("name"):
        problems.error(where, "each network needs a name")
        return None
    before = len(problems.errors)
    body = {k: v for k, v in network.items() if k not in ("name", "namespace", "state")}
    network_namespace = network.get("namespace", namespace)
    if network_namespace != namespace and body.get("networkNamespace"):
        problems.error(path(where, "networkNamespace"), f"networkNamespace is allowed only for a SriovNetwork in the "
                                                        f"operator namespace {namespace}")
    if not body.get("resourceName"):
        problems.error(path(where, "resourceName"), "required")
    elif body["resourceName"] not in resource_names:
        # Networks are often managed apart from the policies; the operator accepts them, so only say it.
        problems.warn(f"{where}: no policy in this run or in existing_policies provides resource "
                      f"{body['resourceName']!r}; pods and VMs using the network wait until one does")
    checks = (("vlan", 0, 4094), ("vlanQoS", 0, 7), ("minTxRate", 0, None), ("maxTxRate", 0, None))
    for field, low, high in checks:
        value = body.get(field)
        if value is not None and (not isinstance(value, int) or value < low or (high is not None and value > high)):
            problems.error(path(where, field), f"must be an integer within {low}-{high if high is not None else 'inf'}")
    if body.get("minTxRate") and body.get("maxTxRate") and body["minTxRate"] > body["maxTxRate"]:
        problems.error(path(where, "minTxRate"), "must not exceed maxTxRate")
    for field, allowed in (("spoofChk", ("on", "off")), ("trust", ("on", "off")),
                           ("linkState", ("auto", "enable", "disable")),
                           ("vlanProto", ("802.1q", "802.1Q", "802.1ad", "802.1AD"))):
        if field in body and body[field] not in allowed:
            problems.error(path(where, field), f"must be one of {', '.join(allowed)}")
    for field in ("ipam", "capabilities"):  # JSON strings in the CRD; a mapping is written out for the user
        if field in body and not isinstance(body[field], str):
            body[field] = json.dumps(body[field], separators=(",", ":"))
        if body.get(field):
            _check_json(problems, path(where, field), body[field])
    if "metaPlugins" in body:
        if isinstance(body["metaPlugins"], list):
            body["metaPlugins"] = ",".join(json.dumps(p, separators=(",", ":")) for p in body["metaPlugins"])
        if body["metaPlugins"]:
            _check_json(problems, path(where, "metaPlugins"), body["metaPlugins"], plugins=True)
    if body.get("logLevel", "") not in LOG_LEVELS:
        problems.error(path(where, "logLevel"), f"must be one of {', '.join(repr(v) for v in LOG_LEVELS)}")
    if len(problems.errors) > before:
        return None
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetwork",
            "metadata": {"name": network["name"], "namespace": network_namespace}, "spec": body}


LOG_LEVELS = ("panic", "error", "warning", "info", "debug", "")


def _check_json(problems: Problems, where: str, text: t.Any, plugins: bool = False) -> None:
    """A JSON string the operator pastes into the generated CNI config: an object, or (metaPlugins) the plugin
    objects that follow sriov in the conflist's plugins list, comma-separated."""
    try:
        value = json.loads(f"[{text}]" if plugins else str(text))
    except ValueError as exc:
        problems.error(where, f"is not valid JSON ({exc}): the operator would render a broken CNI config")
        return
    if plugins and not all(isinstance(p, dict) and p.get("type") for p in value):
        problems.error(where, "must be CNI plugin objects, each with a type")
    elif not plugins and not isinstance(value, dict):
        problems.error(where, "must be a JSON object")


OPERATOR_CONFIG_FIELDS = frozenset((
    "configDaemonNodeSelector", "enableInjector", "enableOperatorWebhook", "logLevel", "disableDrain",
    "configurationMode", "useCDI", "disablePlugins", "featureGates", "configDaemonEnvVars"))


def _operator_config(problems: Problems, config: t.Any, namespace: str) -> dict[str, t.Any] | None:
    """The SriovOperatorConfig: the operator only reads the one named ``default`` in its own namespace."""
    if config is None:
        return None
    if not isinstance(config, dict):
        problems.error("operator_config", "must be a mapping")
        return None
    name = config.get("name", "default")
    if name != "default":
        problems.error("operator_config.name", f"only default SriovOperatorConfig in {namespace} namespace is used")
    body = {k: v for k, v in config.items() if k != "name"}
    for key in sorted(set(body) - OPERATOR_CONFIG_FIELDS):
        problems.error(path("operator_config", key), "unknown SriovOperatorConfig field")
    level = body.get("logLevel")
    if level is not None and (not isinstance(level, int) or not 0 <= level <= 2):
        problems.error("operator_config.logLevel", "must be within 0-2")
    if body.get("configurationMode", "daemon") not in ("daemon", "systemd"):
        problems.error("operator_config.configurationMode", "must be daemon or systemd")
    check_label_map(problems, "operator_config.configDaemonNodeSelector", body.get("configDaemonNodeSelector"))
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovOperatorConfig",
            "metadata": {"name": "default", "namespace": namespace}, "spec": body}


IOMMU_KERNEL_ARGS = {"intel": "intel_iommu=on iommu=pt", "amd": "iommu=pt"}


def _reboot_warning(problems: Problems, where: str, policy: t.Mapping[str, t.Any],
                    spec: t.Mapping[str, t.Any]) -> None:
    """vfio-pci needs the IOMMU: the config daemon adds kernel arguments, which drains and reboots each node."""
    if policy["spec"].get("deviceType") != "vfio-pci":
        return
    selector = policy["spec"].get("nodeSelector") or {}
    nodes = spec.get("nodes")
    if nodes is None:
        problems.warn(f"{where}: vfio-pci needs the IOMMU: on nodes without it the config daemon adds the kernel "
                      f"arguments {IOMMU_KERNEL_ARGS['intel']} (Intel) or {IOMMU_KERNEL_ARGS['amd']} (AMD), then "
                      "drains and reboots each selected node")
        return
    without: dict[str, list[str]] = {}   # kernel arguments -> the nodes that get them: one warning each
    for node in nodes:
        # Only a node known to lack it: where the inventory does not say, the preflight role checks the node itself.
        if isinstance(node, dict) and selector_matches(selector, node.get("labels") or {}) \
                and node.get("iommu") is False:
            vendor = str(node.get("cpu_vendor", "intel")).lower()
            without.setdefault(IOMMU_KERNEL_ARGS.get(vendor, IOMMU_KERNEL_ARGS["intel"]), []).append(str(node.get("name")))
    for arguments, names in without.items():
        subject = f"node {names[0]} has" if len(names) == 1 else f"nodes {node_list(names)} have"
        problems.warn(f"{where}: {subject} no IOMMU enabled: the config daemon adds the kernel arguments {arguments}, "
                      f"then drains and reboots {'it' if len(names) == 1 else 'each'}")


def render_nad(network: t.Mapping[str, t.Any], prefix: str) -> dict[str, t.Any]:
    """The NetworkAttachmentDefinition the operator generates from a SriovNetwork (for review, not applied)."""
    spec = network["spec"]
    meta = network["metadata"]
    target = spec.get("networkNamespace") or meta["namespace"]
    plugin: dict[str, t.Any] = {"type": "sriov", "vlan": spec.get("vlan", 0), "vlanQoS": spec.get("vlanQoS", 0)}
    for field, key in (("spoofChk", "spoofchk"), ("trust", "trust"), ("vlanProto", "vlanProto"),
                       ("minTxRate", "min_tx_rate"), ("maxTxRate", "max_tx_rate")):
        if field in spec:
            plugin[key] = spec[field]
    if spec.get("capabilities"):
        plugin["capabilities"] = json.loads(spec["capabilities"])
    if spec.get("linkState"):
        plugin["link_state"] = spec["linkState"]
    for field in ("logLevel", "logFile"):  # passed on only when set
        if spec.get(field):
            plugin[field] = spec[field]
    # The operator strips every whitespace character from the ipam string, even inside its values.
    plugin["ipam"] = json.loads("".join(spec["ipam"].split())) if spec.get("ipam") else {}
    config: dict[str, t.Any] = {"cniVersion": "1.0.0", "name": meta["name"]}
    if spec.get("metaPlugins"):  # a conflist: sriov first, then the chained plugins
        config["plugins"] = [plugin, *json.loads(f"[{spec['metaPlugins']}]")]
    else:
        config.update(plugin)
    return {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
            "metadata": {"name": meta["name"], "namespace": target, "annotations": {
                "k8s.v1.cni.cncf.io/resourceName": f"{prefix}/{spec['resourceName']}",
                "sriovnetwork.openshift.io/owner-ref": f"SriovNetwork.sriovnetwork.openshift.io/{meta['namespace']}/"
                                                       f"{meta['name']}"}},
            "spec": {"config": json.dumps(config, separators=(",", ":"))}}
