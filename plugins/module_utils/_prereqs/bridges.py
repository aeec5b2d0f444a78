# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Linux bridges as nmstate NodeNetworkConfigurationPolicies, their NADs, and the live-migration network.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import copy
import difflib
import ipaddress
import json
import math
import re
import typing as t

from . import nads as raw_nads
from .common import (
    DNS_LABEL,
    DNS_SUBDOMAIN,
    LABEL_VALUE,
    Problems,
    check_keys,
    check_label_map,
    path,
    selector_matches,
    type_name,
    version_tuple,
)

WORKER_SELECTOR = {"node-role.kubernetes.io/worker": ""}
KEYS = frozenset(("bridges", "policies", "existing_policies", "migration_network", "node_networks", "ovn_bridge_nics",
                  "bridge_cni_version", "dns_probe_host", "disconnected", "nmstate_name", "nads",
                  "recreate_changed_capture"))
BRIDGE_KEYS = frozenset(("name", "policy_name", "state", "ports", "node_selector", "vlans", "native_vlan", "mtu", "stp",
                         "carries_node_ip", "max_unavailable", "networks", "copy_mac", "static_ip"))
MIGRATION_KEYS = frozenset(("name", "namespace", "nic", "range", "exclude", "mtu", "nic_mtu"))
BRIDGE_RESOURCE_PREFIX = "bridge.network.kubevirt.io/"
RESOURCE_NAME_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName"
NNCP_API_VERSION = "nmstate.io/v1"
# NodeNetworkState and NodeNetworkConfigurationEnactment are served as v1beta1 only (nmstate.io/v1 is not).
NODE_NETWORK_STATE_API_VERSION = "nmstate.io/v1beta1"
INTERFACE_TYPES = frozenset((
    "bond", "linux-bridge", "dummy", "ethernet", "hsr", "loopback", "mac-vlan", "mac-vtap", "ovs-bridge",
    "ovs-interface", "veth", "vlan", "vrf", "vxlan", "infiniband", "macsec", "ipsec", "xfrm", "ipvlan", "unknown"))
# nmstate's InterfaceState (serde kebab-case, exact case): every state it deserialises.
INTERFACE_STATES = frozenset(("up", "down", "absent", "ignore", "up-ignore", "down-ignore", "unknown"))
STP_RANGES = {"hello-time": (1, 10), "forward-delay": (2, 30), "max-age": (6, 40)}
DEFAULT_MAX_UNAVAILABLE = "50%"
# The bridge CNI accepts vlan together with vlanTrunk (vlan = the trunk port's PVID) from plugins v1.8.0.
BRIDGE_CNI_VLAN_WITH_TRUNK = (1, 8)
MAX_NODE_SELECTOR_ENTRIES = 256
# nmstate (rust/src/lib/ifaces/linux_bridge.rs, de_multicast_router): a string in any case, or the integer 0, 1 or 2.
MULTICAST_ROUTER_NAMES = ("auto", "disabled", "enabled")
_PERCENT = re.compile(r"^([+-]?\d+)%$")
_DNS_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*\.?$")


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


def check_input(problems: Problems, spec: t.Mapping[str, t.Any]) -> None:
    """Unknown keys in the section's own structures (NNCP bodies are checked against nmstate's rules instead)."""
    for index, bridge in enumerate(spec.get("bridges") or []):
        check_keys(problems, path("bridges", index), bridge, BRIDGE_KEYS)
    check_keys(problems, "migration_network", spec.get("migration_network"), MIGRATION_KEYS)
    raw_nads.check_input(problems, spec.get("nads"))


def plan(spec: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Bridges (NNCPs + bridge NADs), hand-written NNCPs, the NMState probe setting and the optional live-migration
    network (macvlan + whereabouts NAD); every nmstate rule is checked before anything is returned."""
    problems = Problems("bridges")
    objects: list[dict[str, t.Any]] = []
    policies: list[tuple[str, dict[str, t.Any], list[tuple[str, str]]]] = []  # (where, NNCP, (NIC, where) ports)
    ports_in_use: dict[str, str] = {}
    ovn_nics = set(spec.get("ovn_bridge_nics") or [])
    version_text = spec.get("bridge_cni_version")
    cni_version = version_tuple(version_text, "bridge_cni_version", problems) if version_text else None
    existing_names = {(p.get("metadata") or {}).get("name") for p in spec.get("existing_policies") or []
                      if isinstance(p, dict)}
    for index, bridge in enumerate(spec.get("bridges") or []):
        where = path("bridges", index)
        built, nics = _bridge(problems, where, bridge, ports_in_use, ovn_nics, spec, cni_version, existing_names)
        if built:
            policies.append((where, built[0], nics))
            objects += built
    for index, policy in enumerate(spec.get("policies") or []):
        where = path("policies", index)
        checked = _raw_policy(problems, where, policy, ports_in_use, existing_names)
        if checked:
            policies.append((where, checked[0], checked[1]))
            objects.append(checked[0])
    for where, nncp, _nics in policies:
        selector = nncp["spec"].get("nodeSelector")
        if isinstance(selector, dict) and len(selector) > MAX_NODE_SELECTOR_ENTRIES:
            problems.error(path(where, "nodeSelector"), f"Too many: {len(selector)}: must have at most "
                                                        f"{MAX_NODE_SELECTOR_ENTRIES} items (the NNCP CRD)")
    rollout = _check_nodes(problems, spec, policies)
    recreate = _check_updates(problems, spec.get("existing_policies"), policies,
                              bool(spec.get("recreate_changed_capture")))
    nad_objects, removed, previews = raw_nads.plan(problems, spec.get("nads"))
    objects += nad_objects
    nmstate = _nmstate(problems, spec)
    if nmstate:
        objects.insert(0, nmstate)
    hyperconverged: dict[str, t.Any] = {}
    migration = spec.get("migration_network")
    if migration:
        before = len(problems.errors)
        nad = _migration_nad(problems, "migration_network", migration, spec)
        if nad and len(problems.errors) == before:
            objects.append(nad)
            hyperconverged = {"spec": {"liveMigrationConfig": {"network": nad["metadata"]["name"]}}}
            ipam = json.loads(nad["spec"]["config"])["ipam"]
            previews += [{"nad": f"{nad['metadata']['namespace']}/{nad['metadata']['name']}", **p}
                         for p in raw_nads.whereabouts_preview(problems, "migration_network", ipam)]
    problems.raise_if_any()
    return {"objects": objects, "hyperconverged": hyperconverged, "warnings": problems.warnings,
            "rollout": rollout, "recreate": recreate, "delete": removed, "address_preview": previews,
            "delete_first": [{"apiVersion": NNCP_API_VERSION, "kind": "NodeNetworkConfigurationPolicy",
                              "metadata": {"name": name}} for name in recreate]}


def scaled_max_unavailable(value: t.Any, matching_nodes: int) -> int:
    """Nodes nmstate configures at once, as its handler computes it (kubernetes-nmstate, pkg/node/nodes.go,
    ScaledMaxUnavailableNodeCount): an int, or a percentage of the matching nodes rounded up; a value it cannot read
    falls back to the default 50%; never below 1. A bool cannot be an int-or-string: the CRD refuses it."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not an integer or a percentage")
    count = _scaled(value, matching_nodes)
    if count is None:
        count = _scaled(DEFAULT_MAX_UNAVAILABLE, matching_nodes) or 0
    return max(count, 1)


def _scaled(value: t.Any, matching_nodes: int) -> int | None:
    """apimachinery's GetScaledValueFromIntOrPercent, rounding up: None where it returns an error."""
    if isinstance(value, int):
        return value
    match = _PERCENT.match(value) if isinstance(value, str) else None
    return math.ceil(matching_nodes * int(match.group(1)) / 100) if match else None


def _max_unavailable(problems: Problems, where: str, value: t.Any) -> None:
    """nmstate admits any int or string and never fails on it; say where it will not do what it seems to."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        problems.error(where, f"{value!r} must be a node count or a percentage such as \"50%\" (the NNCP CRD: "
                              "an int or a string)")
    elif _scaled(value, 100) is None:
        problems.warn(f"{where}: {value!r} is neither a node count nor a percentage: nmstate's handler falls back to "
                      f"its default {DEFAULT_MAX_UNAVAILABLE} (a node count is an integer, not a string)")
    elif (_scaled(value, 100) or 0) < 1:
        problems.warn(f"{where}: {value!r} allows no node at once: nmstate's handler configures one node at a time")


def _bridge(problems: Problems, where: str, bridge: t.Any, ports_in_use: dict[str, str], ovn_nics: set[str],
            spec: t.Mapping[str, t.Any], cni_version: tuple[int, int] | None,
            existing_names: set[t.Any]) -> tuple[list[dict[str, t.Any]], list[tuple[str, str]]]:
    if not isinstance(bridge, dict):
        problems.error(where, "must be a mapping")
        return [], []
    name = bridge.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 15:
        problems.error(path(where, "name"), "a Linux interface name of 1-15 characters is required")
        name = str(name)
    policy_name = bridge.get("policy_name", f"{name}-policy")
    _check_policy_name(problems, path(where, "policy_name"), policy_name, existing_names)
    state = bridge.get("state", "present")
    if state not in ("present", "absent"):
        problems.error(path(where, "state"), "must be present or absent")
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
    stp = _stp_options(problems, path(where, "stp"), bridge.get("stp", False))
    carries_ip = bool(bridge.get("carries_node_ip"))
    if carries_ip and len(ports) != 1:
        problems.error(path(where, "ports"), "a bridge that takes over the node IP needs exactly one port")
    policy_spec: dict[str, t.Any] = {"nodeSelector": selector}
    if "max_unavailable" in bridge:
        _max_unavailable(problems, path(where, "max_unavailable"), bridge["max_unavailable"])
        policy_spec["maxUnavailable"] = bridge["max_unavailable"]
    nics = [(port, path(where, "ports")) for port in ports]
    if state == "absent":
        # Deleting an NNCP never reverts it: removal is a policy that sets the bridge absent (and, for a bridge that
        # held the node IP, gives the address back to the NIC in the same policy).
        interfaces: list[dict[str, t.Any]] = [{"name": name, "type": "linux-bridge", "state": "absent"}]
        if carries_ip and ports:
            interfaces.append({"name": ports[0], "type": "ethernet", "state": "up",
                               "ipv4": {"enabled": True, "dhcp": True}})
        if bridge.get("networks"):
            problems.error(path(where, "networks"), "a bridge being removed cannot carry networks")
        policy_spec["desiredState"] = {"interfaces": interfaces}
        problems.warn(f"{where}: keep policy {policy_name} (state absent) until every node reports it Available; "
                      "deleting it earlier leaves the bridge on the nodes")
        return [_nncp(policy_name, policy_spec)], nics
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
    interface["bridge"] = {"options": {"stp": stp}, "port": port_entries}
    if mtu is not None:
        interface["mtu"] = mtu
    if carries_ip:
        # Keep the node's address: same MAC (same DHCP lease), DHCP on the bridge, NIC attached without IP.
        policy_spec["capture"] = {
            "default-gw": 'routes.running.destination=="0.0.0.0/0"',
            "base-iface": 'interfaces.name==capture.default-gw.routes.running.0.next-hop-interface',
        }
        if bridge.get("copy_mac", True):
            interface["mac-address"] = "{{ capture.base-iface.interfaces.0.mac-address }}"
        else:
            problems.warn(f"{where}: copy_mac is false: the bridge gets its own MAC, DHCP may hand out another "
                          "address, the connectivity probes fail and nmstate rolls back (up to 480 s)")
        interface["ipv4"] = {"enabled": True, "dhcp": True}
        interface["ipv6"] = {"enabled": False}
        if bridge.get("static_ip"):
            problems.error(path(where, "static_ip"), "static node addresses must be moved by hand-written policy; "
                                                     "carries_node_ip supports DHCP nodes only")
        nics = []  # the port is resolved on each node from its default route
    else:
        interface["ipv4"] = {"enabled": False}
        interface["ipv6"] = {"enabled": False}
    policy_spec["desiredState"] = {"interfaces": [interface]}
    objects = [_nncp(policy_name, policy_spec)]
    for nad_index, nad in enumerate(bridge.get("networks") or []):
        built = _bridge_nad(problems, path(where, "networks", nad_index), nad, name, trunk, native, cni_version)
        if built:
            objects.append(built)
    if bridge.get("networks") and partially_selected(selector, spec.get("nodes")):
        problems.warn(f"{where}: bridge {name} exists only on the nodes its node_selector matches; the NADs keep "
                      f"the {RESOURCE_NAME_ANNOTATION} annotation so VMs are scheduled only there")
    return objects, nics


def partially_selected(selector: t.Mapping[str, str], nodes: t.Any) -> bool:
    """True when the node inventory is known and some node does not match the selector."""
    if not isinstance(nodes, list):
        return False
    return not all(selector_matches(selector, n.get("labels") or {}) for n in nodes if isinstance(n, dict))


def _nncp(name: str, spec: dict[str, t.Any]) -> dict[str, t.Any]:
    return {"apiVersion": NNCP_API_VERSION, "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": name},
            "spec": spec}


def _stp_options(problems: Problems, where: str, stp: t.Any) -> dict[str, t.Any]:
    """``stp`` is a bool, or {enabled, hello_time, forward_delay, max_age, priority} in nmstate's ranges."""
    if isinstance(stp, bool):
        return {"enabled": stp}
    if not isinstance(stp, dict):
        problems.error(where, "must be true, false or a mapping of STP options")
        return {"enabled": False}
    options: dict[str, t.Any] = {"enabled": bool(stp.get("enabled", True))}
    for key, value in stp.items():
        nm_key = str(key).replace("_", "-")
        if key == "enabled":
            continue
        if nm_key not in (*STP_RANGES, "priority"):
            problems.error(path(where, str(key)), "unknown STP option (hello_time, forward_delay, max_age, priority)")
            continue
        options[nm_key] = value
    _check_stp(problems, where, options, naming=lambda k: k.replace("-", "_"))
    return options


def _check_stp(problems: Problems, where: str, stp: t.Mapping[str, t.Any],
               naming: t.Callable[[str], str] = str) -> None:
    for key, (low, high) in STP_RANGES.items():
        if key in stp:
            value = stp[key]
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                problems.error(path(where, naming(key)), f"{value!r} is not in range [{low},{high}]")
    priority = stp.get("priority")
    if priority is not None and (not isinstance(priority, int) or not 0 <= priority <= 65535):
        problems.error(path(where, "priority"), "must be within 0-65535")


# nmstate's webhook puts the name in a label (at most 63 characters, label-value format); the API server wants a
# DNS-1123 subdomain: both hold only for lower case letters, digits, '-' and '.'.
POLICY_NAME_RULE = ("must be at most 63 characters of lower case letters, digits, '-' and '.' (a DNS-1123 subdomain "
                    "that nmstate can also use as a label value)")


def _policy_name_ok(name: t.Any) -> bool:
    return isinstance(name, str) and 0 < len(name) <= 63 and bool(LABEL_VALUE.match(name)) \
        and bool(DNS_SUBDOMAIN.match(name))


def _check_policy_name(problems: Problems, where: str, name: t.Any, existing_names: set[t.Any]) -> None:
    """nmstate's name rule holds on create only: a policy already on the cluster needs only the API server's."""
    if name in existing_names:
        if not (isinstance(name, str) and len(name) <= 253 and DNS_SUBDOMAIN.match(name)):
            problems.error(where, "must be a DNS-1123 subdomain")
    elif not _policy_name_ok(name):
        problems.error(where, POLICY_NAME_RULE)


def _raw_policy(problems: Problems, where: str, policy: t.Any, ports_in_use: dict[str, str],
                existing_names: set[t.Any]) -> tuple[dict[str, t.Any], list[tuple[str, str]]] | None:
    """A hand-written NNCP (bonds, static addresses, ...): admission rules and nmstate's own rules."""
    if not isinstance(policy, dict):
        problems.error(where, "must be a NodeNetworkConfigurationPolicy mapping")
        return None
    if (policy.get("apiVersion"), policy.get("kind")) != (NNCP_API_VERSION, "NodeNetworkConfigurationPolicy"):
        problems.error(where, f"must have apiVersion {NNCP_API_VERSION} and kind NodeNetworkConfigurationPolicy")
    name = (policy.get("metadata") or {}).get("name")
    _check_policy_name(problems, path(where, "metadata", "name"), name, existing_names)
    spec = policy.get("spec")
    if not isinstance(spec, dict):
        problems.error(path(where, "spec"), "must be a mapping")
        return None
    unknown = sorted(set(spec) - {"nodeSelector", "desiredState", "capture", "maxUnavailable"})
    for key in unknown:
        problems.error(path(where, "spec", key), "unknown field (nodeSelector, desiredState, capture, maxUnavailable)")
    check_label_map(problems, path(where, "spec", "nodeSelector"), spec.get("nodeSelector"))
    if "maxUnavailable" in spec:
        _max_unavailable(problems, path(where, "spec", "maxUnavailable"), spec["maxUnavailable"])
    capture = spec.get("capture") or {}
    if not isinstance(capture, dict) or not all(isinstance(v, str) for v in capture.values()):
        problems.error(path(where, "spec", "capture"), "must map capture names to nmpolicy expressions")
    nics = check_desired_state(problems, path(where, "spec", "desiredState"), spec.get("desiredState"), ports_in_use)
    return copy.deepcopy(policy), nics


def check_desired_state(problems: Problems, where: str, desired: t.Any,
                        ports_in_use: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """nmstate's rules for interfaces: types and states, linux-bridge STP ranges, port VLAN modes, the default
    PVID, one controller per port, no IP on a port. Returns the ports that must be NICs on the nodes."""
    ports_in_use = {} if ports_in_use is None else ports_in_use
    interfaces = desired.get("interfaces") if isinstance(desired, dict) else None
    if not isinstance(interfaces, list) or not interfaces:
        problems.error(path(where, "interfaces"), "list at least one interface")
        return []
    defined: set[str] = set()
    ip_enabled: dict[str, str] = {}
    ports: list[tuple[str, str, str]] = []  # (port, controller, where)
    for index, interface in enumerate(interfaces):
        at = path(where, "interfaces", index)
        if not isinstance(interface, dict) or not isinstance(interface.get("name"), str):
            problems.error(at, "each interface needs a name")
            continue
        name = interface["name"]
        defined.add(name)
        kind = interface.get("type")
        if kind is not None and kind not in INTERFACE_TYPES:
            # Deliberately earlier than nmstate, which parses any string (InterfaceType::Other) and fails on the
            # node when NetworkManager is asked for a type it has no setting for: the enactment fails.
            near = difflib.get_close_matches(str(kind), sorted(INTERFACE_TYPES), n=1)
            problems.error(path(at, "type"), f"unknown interface type {kind!r}: nmstate admits it, but the node's "
                                             "apply fails (NetworkManager has no such type) and the policy turns "
                                             "Degraded" + (f" (did you mean {near[0]}?)" if near else ""))
        if interface.get("state", "up") not in INTERFACE_STATES:
            problems.error(path(at, "state"), f"must be one of nmstate's states: {', '.join(sorted(INTERFACE_STATES))}")
        for family in ("ipv4", "ipv6"):
            if isinstance(interface.get(family), dict) and interface[family].get("enabled"):
                ip_enabled[name] = path(at, family, "enabled")
        mtu = interface.get("mtu")
        if isinstance(mtu, int) and mtu < 1280 and (interface.get("ipv6") or {}).get("enabled"):
            problems.error(path(at, "mtu"), "IPv6 needs an MTU of at least 1280")
        if kind == "linux-bridge" and interface.get("state", "up") != "absent":
            ports += _check_linux_bridge(problems, at, name, interface.get("bridge") or {})
        elif kind == "bond":
            aggregation = interface.get("link-aggregation") or {}
            for port_index, port in enumerate(aggregation.get("port") or aggregation.get("ports") or []):
                ports.append((str(port), name, path(at, "link-aggregation", "port", port_index)))
    nics = []
    for port, controller, at in ports:
        owner = ports_in_use.get(port)
        if owner is not None and owner != controller:
            problems.error(at, f"Port {port} is overbooked by two controllers: {owner} and {controller}")
        ports_in_use[port] = controller
        if port in ip_enabled:
            problems.error(ip_enabled[port], f"{port} cannot have IP enabled while attached to controller "
                                             f"{controller}")
        if port not in defined and "{{" not in port:
            nics.append((port, at))
    return nics


def _check_linux_bridge(problems: Problems, where: str, name: str,
                        bridge: t.Mapping[str, t.Any]) -> list[tuple[str, str, str]]:
    options = bridge.get("options") or {}
    if "multicast-router" in options and not _multicast_router(options["multicast-router"]):
        problems.error(path(where, "bridge", "options", "multicast-router"),
                       f"Invalid linux bridge multicast_router type {options['multicast-router']}, "
                       "expecting 0|1|2 or auto|disabled|enabled (nmstate)")
    _check_stp(problems, path(where, "bridge", "options", "stp"), options.get("stp") or {})
    if "group-forward-mask" in options and "group-fwd-mask" in options \
            and options["group-forward-mask"] != options["group-fwd-mask"]:
        problems.error(path(where, "bridge", "options"), "group-forward-mask and its alias group-fwd-mask differ")
    port_list = bridge.get("port") or []
    filtering = any(isinstance(p, dict) and p.get("vlan") for p in port_list)
    pvid = options.get("vlan-default-pvid")
    if pvid not in (None, 1) and not filtering:
        problems.error(path(where, "bridge", "options", "vlan-default-pvid"),
                       f"a default PVID of {pvid} needs VLAN filtering (a port with vlan configuration)")
    ports = []
    for index, port in enumerate(port_list):
        at = path(where, "bridge", "port", index)
        if not isinstance(port, dict) or not isinstance(port.get("name"), str):
            problems.error(at, "each port needs a name")
            continue
        ports.append((port["name"], name, at))
        if port.get("vlan"):
            _check_port_vlan(problems, path(at, "vlan"), port["vlan"])
    return ports


def _multicast_router(value: t.Any) -> bool:
    if isinstance(value, str):
        return value.lower() in MULTICAST_ROUTER_NAMES
    return isinstance(value, int) and not isinstance(value, bool) and value in (0, 1, 2)


def _check_port_vlan(problems: Problems, where: str, vlan: t.Any) -> None:
    if not isinstance(vlan, dict):
        problems.error(where, "must be a mapping")
        return
    mode = vlan.get("mode", "access")
    tags = vlan.get("trunk-tags")
    tag = vlan.get("tag")
    if mode not in ("trunk", "access"):
        problems.error(path(where, "mode"), "must be trunk or access")
    elif mode == "trunk":
        if not tags:
            problems.error(path(where, "trunk-tags"), "trunk mode needs trunk-tags")
        if tag and not vlan.get("enable-native"):
            problems.error(path(where, "tag"), "a tag in trunk mode needs enable-native: true")
    else:
        if vlan.get("enable-native"):
            problems.error(path(where, "enable-native"), "enable-native is not allowed in access mode")
        if tags:
            problems.error(path(where, "trunk-tags"), "access mode cannot have trunk-tags")
    if tag is not None and (not isinstance(tag, int) or isinstance(tag, bool) or not 0 <= tag <= 4094):
        problems.error(path(where, "tag"), "must be a VLAN id within 0-4094")
    entries = []
    for index, entry in enumerate(tags or []):
        if isinstance(entry, dict) and "id" in entry:
            entries.append(entry["id"])
        elif isinstance(entry, dict) and isinstance(entry.get("id-range"), dict):
            entries.append({"min": entry["id-range"].get("min"), "max": entry["id-range"].get("max")})
        else:
            problems.error(path(where, "trunk-tags", index), "must be {id: N} or {id-range: {min, max}}")
            entries.append({"min": None, "max": None})
    if tags:
        _vlan_ranges(problems, path(where, "trunk-tags"), entries)


def _check_nodes(problems: Problems, spec: t.Mapping[str, t.Any],
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
        except ValueError:
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


def _check_updates(problems: Problems, existing: t.Any,
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


def _nmstate(problems: Problems, spec: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
    """The NMState singleton, when the DNS probe host must change (disconnected sites)."""
    host = spec.get("dns_probe_host")
    if host is None:
        if spec.get("disconnected"):
            problems.warn("disconnected: the DNS probe (root-servers.net) does not pass before the change, so nmstate "
                          "skips it; set dns_probe_host to a name the site's DNS resolves to keep that safety net")
        return None
    if not isinstance(host, str) or not _DNS_NAME.match(host):
        problems.error("dns_probe_host", f"{host!r} is not a DNS name")
        return None
    return {"apiVersion": "nmstate.io/v1", "kind": "NMState", "metadata": {"name": spec.get("nmstate_name", "nmstate")},
            "spec": {"probeConfiguration": {"dns": {"host": host}}}}


# What a network on a bridge may say (read by _bridge_nad below).
BRIDGE_NAD_KEYS = ("name", "namespace", "cni_type", "vlan", "vlan_trunk", "hairpin", "promiscuous", "mtu",
                   "mac_spoof_check", "resource_annotation")


def _bridge_nad(problems: Problems, where: str, nad: t.Any, bridge: str, trunk: list[tuple[int, int]],
                native: int | None, cni_version: tuple[int, int] | None) -> dict[str, t.Any] | None:
    if not isinstance(nad, dict):
        problems.error(where, "must be a mapping")
        return None
    check_keys(problems, where, nad, BRIDGE_NAD_KEYS)
    name = raw_nads.check_nad_name(problems, path(where, "name"), nad.get("name"))
    namespace = nad.get("namespace")
    if namespace is None:
        problems.error(path(where, "namespace"), "required: the namespace of the VMs that use this network")
    elif not isinstance(namespace, str) or not DNS_LABEL.match(namespace):
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


def _migration_nad(problems: Problems, where: str, migration: t.Mapping[str, t.Any],
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


def whereabouts_first_address(range_text: str, exclude: t.Sequence[str] = ()) -> str | None:
    """The address whereabouts hands out first: lowest free, network/broadcast and excluded ones skipped."""
    preview = raw_nads.whereabouts_preview(Problems("bridges"), "range", {"range": range_text, "exclude": list(exclude)})
    return preview[0]["first"] if preview else None
