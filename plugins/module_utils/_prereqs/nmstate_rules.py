# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nmstate's own rules on a NodeNetworkConfigurationPolicy, checked before it is written: interface types and
states, linux-bridge STP and multicast options, port VLAN modes, one controller per port, the policy name, and
how its handler reads maxUnavailable (nmstate-rs and kubernetes-nmstate, at the profile's versions).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import copy
import difflib
import math
import re
import typing as t

from .._common.errors import Refused
from .._common.names import DNS1123_SUBDOMAIN, LABEL_VALUE
from .common import Problems, check_label_map, path

NNCP_API_VERSION = "nmstate.io/v1"
INTERFACE_TYPES = frozenset((
    "bond", "linux-bridge", "dummy", "ethernet", "hsr", "loopback", "mac-vlan", "mac-vtap", "ovs-bridge",
    "ovs-interface", "veth", "vlan", "vrf", "vxlan", "infiniband", "macsec", "ipsec", "xfrm", "ipvlan", "unknown"))
# nmstate's InterfaceState (serde kebab-case, exact case): every state it deserialises.
INTERFACE_STATES = frozenset(("up", "down", "absent", "ignore", "up-ignore", "down-ignore", "unknown"))
STP_RANGES = {"hello-time": (1, 10), "forward-delay": (2, 30), "max-age": (6, 40)}
DEFAULT_MAX_UNAVAILABLE = "50%"
# nmstate (rust/src/lib/ifaces/linux_bridge.rs, de_multicast_router): a string in any case, or the integer 0, 1 or 2.
MULTICAST_ROUTER_NAMES = ("auto", "disabled", "enabled")
_PERCENT = re.compile(r"^([+-]?\d+)%\Z")


def vlan_ranges(problems: Problems, where: str, entries: t.Any) -> list[tuple[int, int]]:
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


def scaled_max_unavailable(value: t.Any, matching_nodes: int) -> int:
    """Nodes nmstate configures at once, as its handler computes it (kubernetes-nmstate, pkg/node/nodes.go,
    ScaledMaxUnavailableNodeCount): an int, or a percentage of the matching nodes rounded up; a value it cannot read
    falls back to the default 50%; never below 1. A bool cannot be an int-or-string: the CRD refuses it."""
    if isinstance(value, bool):
        raise Refused(f"{value!r} is not an integer or a percentage")
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


def check_max_unavailable(problems: Problems, where: str, value: t.Any) -> None:
    """nmstate admits any int or string and never fails on it; say where it will not do what it seems to."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        problems.error(where, f"{value!r} must be a node count or a percentage such as \"50%\" (the NNCP CRD: "
                              "an int or a string)")
    elif _scaled(value, 100) is None:
        problems.warn(f"{where}: {value!r} is neither a node count nor a percentage: nmstate's handler falls back to "
                      f"its default {DEFAULT_MAX_UNAVAILABLE} (a node count is an integer, not a string)")
    elif (_scaled(value, 100) or 0) < 1:
        problems.warn(f"{where}: {value!r} allows no node at once: nmstate's handler configures one node at a time")


def stp_options(problems: Problems, where: str, stp: t.Any) -> dict[str, t.Any]:
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
    check_stp(problems, where, options, naming=lambda k: k.replace("-", "_"))
    return options


def check_stp(problems: Problems, where: str, stp: t.Mapping[str, t.Any],
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
        and bool(DNS1123_SUBDOMAIN.match(name))


def check_policy_name(problems: Problems, where: str, name: t.Any, existing_names: set[t.Any]) -> None:
    """nmstate's name rule holds on create only: a policy already on the cluster needs only the API server's."""
    if name in existing_names:
        if not (isinstance(name, str) and len(name) <= 253 and DNS1123_SUBDOMAIN.match(name)):
            problems.error(where, "must be a DNS-1123 subdomain")
    elif not _policy_name_ok(name):
        problems.error(where, POLICY_NAME_RULE)


def raw_policy(problems: Problems, where: str, policy: t.Any, ports_in_use: dict[str, str],
               existing_names: set[t.Any]) -> tuple[dict[str, t.Any], list[tuple[str, str]]] | None:
    """A hand-written NNCP (bonds, static addresses, ...): admission rules and nmstate's own rules."""
    if not isinstance(policy, dict):
        problems.error(where, "must be a NodeNetworkConfigurationPolicy mapping")
        return None
    if (policy.get("apiVersion"), policy.get("kind")) != (NNCP_API_VERSION, "NodeNetworkConfigurationPolicy"):
        problems.error(where, f"must have apiVersion {NNCP_API_VERSION} and kind NodeNetworkConfigurationPolicy")
    name = (policy.get("metadata") or {}).get("name")
    check_policy_name(problems, path(where, "metadata", "name"), name, existing_names)
    spec = policy.get("spec")
    if not isinstance(spec, dict):
        problems.error(path(where, "spec"), "must be a mapping")
        return None
    unknown = sorted(set(spec) - {"nodeSelector", "desiredState", "capture", "maxUnavailable"})
    for key in unknown:
        problems.error(path(where, "spec", key), "unknown field (nodeSelector, desiredState, capture, maxUnavailable)")
    check_label_map(problems, path(where, "spec", "nodeSelector"), spec.get("nodeSelector"))
    if "maxUnavailable" in spec:
        check_max_unavailable(problems, path(where, "spec", "maxUnavailable"), spec["maxUnavailable"])
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
    check_stp(problems, path(where, "bridge", "options", "stp"), options.get("stp") or {})
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
        vlan_ranges(problems, path(where, "trunk-tags"), entries)
