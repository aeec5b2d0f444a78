# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Linux bridges as nmstate NodeNetworkConfigurationPolicies, their NADs, and the live-migration network.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import ipaddress
import json
import typing as t

from .common import DNS_LABEL, LABEL_VALUE, Problems, check_label_map, path

WORKER_SELECTOR = {"node-role.kubernetes.io/worker": ""}
BRIDGE_RESOURCE_PREFIX = "bridge.network.kubevirt.io/"
RESOURCE_NAME_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName"


def _vlan_ranges(problems: Problems, where: str, entries: t.Any) -> list[tuple[int, int]]:
    """VLAN list entries: an id, or {min, max}; each within 1-4094, no overlaps."""
    ranges: list[tuple[int, int]] = []
    for index, entry in enumerate(entries or []):
        at = path(where, index)
        if isinstance(entry, dict):
            low, high = entry.get("min"), entry.get("max")
        else:
            low = high = entry
        if not (isinstance(low, int) and isinstance(high, int)) or isinstance(low, bool) or isinstance(high, bool):
            problems.error(at, "must be a VLAN id or {min, max} with both bounds")
            continue
        if not (1 <= low <= 4094 and 1 <= high <= 4094):
            problems.error(at, "VLAN ids must be within 1-4094")
        elif low > high:
            problems.error(at, f"min {low} is greater than max {high}")
        else:
            for other in ranges:
                if low <= other[1] and other[0] <= high:
                    problems.error(at, f"overlaps VLANs {other[0]}-{other[1]}")
            ranges.append((low, high))
    return ranges


def plan(spec: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Bridges (NNCPs + bridge NADs) and the optional live-migration network (macvlan + whereabouts NAD)."""
    problems = Problems("bridges")
    objects: list[dict[str, t.Any]] = []
    ports_in_use: dict[str, str] = {}
    ovn_nics = set(spec.get("ovn_bridge_nics") or [])
    for index, bridge in enumerate(spec.get("bridges") or []):
        objects += _bridge(problems, path("bridges", index), bridge, ports_in_use, ovn_nics)
    hyperconverged: dict[str, t.Any] = {}
    migration = spec.get("migration_network")
    if migration:
        nad = _migration_nad(problems, "migration_network", migration, spec)
        if nad:
            objects.append(nad)
            hyperconverged = {"spec": {"liveMigrationConfig": {"network": nad["metadata"]["name"]}}}
    problems.raise_if_any()
    return {"objects": objects, "hyperconverged": hyperconverged, "warnings": problems.warnings}


def _bridge(problems: Problems, where: str, bridge: t.Any, ports_in_use: dict[str, str],
            ovn_nics: set[str]) -> list[dict[str, t.Any]]:
    if not isinstance(bridge, dict):
        problems.error(where, "must be a mapping")
        return []
    name = bridge.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 15:
        problems.error(path(where, "name"), "a Linux interface name of 1-15 characters is required")
        name = str(name)
    policy_name = bridge.get("policy_name", f"{name}-policy")
    if len(policy_name) > 63 or not LABEL_VALUE.match(policy_name):
        problems.error(path(where, "policy_name"), "must be at most 63 characters in label-value format")
    ports = bridge.get("ports") or []
    if not ports or not all(isinstance(p, str) and p for p in ports):
        problems.error(path(where, "ports"), "list the NIC(s) to attach")
        ports = [p for p in ports if isinstance(p, str)]
    for port in ports:
        if port in ports_in_use:
            problems.error(path(where, "ports"), f"port {port} is already a port of bridge {ports_in_use[port]} "
                                                 "(an interface can belong to one controller only)")
        ports_in_use[port] = name
        if port in ovn_nics:
            problems.error(path(where, "ports"), f"{port} is a port of the OVN-Kubernetes bridge br-ex: use a second "
                                                 "NIC, or an OVN localnet secondary network (ovn.bridge-mappings)")
    selector = check_label_map(problems, path(where, "node_selector"), bridge.get("node_selector", WORKER_SELECTOR))
    trunk = _vlan_ranges(problems, path(where, "vlans"), bridge.get("vlans"))
    native = bridge.get("native_vlan")
    if native is not None and (not isinstance(native, int) or not 1 <= native <= 4094):
        problems.error(path(where, "native_vlan"), "must be a VLAN id within 1-4094")
    if native is not None and not trunk:
        problems.error(path(where, "native_vlan"), "a native VLAN needs trunked vlans on the port")
    mtu = bridge.get("mtu")
    if mtu is not None and (not isinstance(mtu, int) or not 1280 <= mtu <= 9216):
        problems.error(path(where, "mtu"), "must be within 1280-9216 (IPv6 needs at least 1280)")
    carries_ip = bool(bridge.get("carries_node_ip"))
    if carries_ip and len(ports) != 1:
        problems.error(path(where, "ports"), "a bridge that takes over the node IP needs exactly one port")
    interface: dict[str, t.Any] = {"name": name, "type": "linux-bridge", "state": "up"}
    port_entries = []
    for port in ports:
        entry: dict[str, t.Any] = {"name": "{{ capture.base-iface.interfaces.0.name }}" if carries_ip else port}
        if trunk:
            vlan: dict[str, t.Any] = {"mode": "trunk", "trunk-tags": [
                {"id": low} if low == high else {"id-range": {"min": low, "max": high}} for low, high in trunk]}
            if native is not None:
                vlan["enable-native"] = True
                vlan["tag"] = native
            entry["vlan"] = vlan
        port_entries.append(entry)
    interface["bridge"] = {"options": {"stp": {"enabled": bool(bridge.get("stp", False))}}, "port": port_entries}
    if mtu is not None:
        interface["mtu"] = mtu
    spec: dict[str, t.Any] = {"nodeSelector": selector}
    if carries_ip:
        # Keep the node's address: same MAC (same DHCP lease), DHCP on the bridge, NIC attached without IP.
        spec["capture"] = {
            "default-gw": 'routes.running.destination=="0.0.0.0/0"',
            "base-iface": 'interfaces.name==capture.default-gw.routes.running.0.next-hop-interface',
        }
        interface["mac-address"] = "{{ capture.base-iface.interfaces.0.mac-address }}"
        interface["ipv4"] = {"enabled": True, "dhcp": True}
        interface["ipv6"] = {"enabled": False}
        if bridge.get("static_ip"):
            problems.error(path(where, "static_ip"), "static node addresses must be moved by hand-written policy; "
                                                     "carries_node_ip supports DHCP nodes only")
    else:
        interface["ipv4"] = {"enabled": False}
        interface["ipv6"] = {"enabled": False}
    spec["desiredState"] = {"interfaces": [interface]}
    objects = [{"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
                "metadata": {"name": policy_name}, "spec": spec}]
    for nad_index, nad in enumerate(bridge.get("networks") or []):
        built = _bridge_nad(problems, path(where, "networks", nad_index), nad, name, trunk, native)
        if built:
            objects.append(built)
    return objects


def _nad_name(problems: Problems, where: str, name: t.Any) -> str:
    if not isinstance(name, str) or len(name) > 253 or not DNS_LABEL.match(name) or name.startswith("0"):
        problems.error(where, "must be a lower-case DNS label not starting with 0 (multus admission rule)")
    return str(name)


def _bridge_nad(problems: Problems, where: str, nad: t.Any, bridge: str, trunk: list[tuple[int, int]],
                native: int | None) -> dict[str, t.Any] | None:
    if not isinstance(nad, dict):
        problems.error(where, "must be a mapping")
        return None
    name = _nad_name(problems, path(where, "name"), nad.get("name"))
    namespace = nad.get("namespace")
    if not isinstance(namespace, str) or not DNS_LABEL.match(namespace):
        problems.error(path(where, "namespace"), "a namespace is required")
    config: dict[str, t.Any] = {"cniVersion": "0.3.1", "name": name, "type": nad.get("cni_type", "bridge"),
                                "bridge": bridge}
    vlan = nad.get("vlan")
    if vlan is not None:
        if not isinstance(vlan, int) or isinstance(vlan, bool) or not 0 <= vlan <= 4094:
            problems.error(path(where, "vlan"), "must be within 0-4094")
        elif vlan and not any(low <= vlan <= high for low, high in trunk) and vlan != native:
            problems.error(path(where, "vlan"), f"VLAN {vlan} is not trunked on the bridge uplink (add it to the "
                                                "bridge's vlans), so tagged traffic would be dropped")
        else:
            config["vlan"] = vlan
    if nad.get("vlan_trunk"):
        problems.error(path(where, "vlan_trunk"), "trunked VM ports depend on the bridge CNI version on the nodes "
                                                  "(changed in plugins v1.8.0); not generated")
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
    return {
        "apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
        "metadata": {"name": name, "namespace": namespace,
                     "annotations": {RESOURCE_NAME_ANNOTATION: BRIDGE_RESOURCE_PREFIX + bridge}},
        "spec": {"config": json.dumps(config, separators=(",", ":"))},
    }


def _network(problems: Problems, where: str, text: t.Any) -> ipaddress._BaseNetwork | None:
    try:
        return ipaddress.ip_network(str(text), strict=False)
    except ValueError:
        problems.error(where, f"{text!r} is not a CIDR")
        return None


def _migration_nad(problems: Problems, where: str, migration: t.Mapping[str, t.Any],
                   spec: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
    name = _nad_name(problems, path(where, "name"), migration.get("name", "migration-net"))
    hco_namespace = spec.get("hco_namespace", "kubevirt-hyperconverged")
    namespace = migration.get("namespace", hco_namespace)
    if namespace != hco_namespace:
        problems.error(path(where, "namespace"), f"the migration network must be in the HCO namespace "
                                                 f"{hco_namespace}, where virt-handler runs")
    master = migration.get("nic")
    if not isinstance(master, str) or not master:
        problems.error(path(where, "nic"), "the dedicated NIC (macvlan master) is required")
    network = _network(problems, path(where, "range"), migration.get("range"))
    if network is not None:
        for index, other in enumerate(spec.get("node_networks") or []):
            existing = _network(problems, path("node_networks", index), other)
            if existing is not None and existing.version == network.version and network.overlaps(existing):
                problems.error(path(where, "range"), f"{network} overlaps the node network {existing}")
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


def whereabouts_first_address(range_text: str, exclude: t.Sequence[str] = ()) -> str | None:
    """The address whereabouts hands out first: lowest free, network/broadcast and excluded ones skipped."""
    if "-" in range_text:
        start_text, _sep, prefix = range_text.partition("-")
        network = ipaddress.ip_network(f"{start_text}/{prefix.split('/')[-1]}", strict=False)
        start = ipaddress.ip_address(start_text)
    else:
        network = ipaddress.ip_network(range_text, strict=False)
        start = ipaddress.ip_address(range_text.split("/")[0])
    excluded = [ipaddress.ip_network(e, strict=False) for e in exclude]
    if network.num_addresses <= 2:
        return None
    address = type(network.network_address)  # keeps IPv6 ranges IPv6 when counting in integers
    for number in range(max(int(start), int(network.network_address) + 1), int(network.broadcast_address)):
        candidate = address(number)
        if not any(candidate in e for e in excluded):
            return str(candidate)
    return None
