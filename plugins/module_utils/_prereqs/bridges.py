# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Linux bridges as nmstate NodeNetworkConfigurationPolicies, their NADs, and the live-migration network: the
section's plan. nmstate's rules are in nmstate_rules.py, the checks against nodes and live policies in
nncp_cluster.py, the networks on a bridge and the migration network in bridge_networks.py.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import json
import typing as t

from .._common.names import HOST_NAME
from . import nads as raw_nads
from .bridge_networks import RESOURCE_NAME_ANNOTATION, bridge_nad, migration_nad
from .common import Problems, check_keys, check_label_map, path, selector_matches, version_tuple
from .nmstate_rules import NNCP_API_VERSION, check_max_unavailable, check_policy_name, raw_policy, stp_options, vlan_ranges
from .nncp_cluster import check_nodes, check_updates

WORKER_SELECTOR = {"node-role.kubernetes.io/worker": ""}
KEYS = frozenset(("bridges", "policies", "existing_policies", "migration_network", "node_networks", "ovn_bridge_nics",
                  "bridge_cni_version", "dns_probe_host", "disconnected", "nmstate_name", "nads",
                  "recreate_changed_capture"))
BRIDGE_KEYS = frozenset(("name", "policy_name", "state", "ports", "node_selector", "vlans", "native_vlan", "mtu", "stp",
                         "carries_node_ip", "max_unavailable", "networks", "copy_mac", "static_ip"))
MIGRATION_KEYS = frozenset(("name", "namespace", "nic", "range", "exclude", "mtu", "nic_mtu"))
MAX_NODE_SELECTOR_ENTRIES = 256


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
        checked = raw_policy(problems, where, policy, ports_in_use, existing_names)
        if checked:
            policies.append((where, checked[0], checked[1]))
            objects.append(checked[0])
    for where, nncp, _nics in policies:
        selector = nncp["spec"].get("nodeSelector")
        if isinstance(selector, dict) and len(selector) > MAX_NODE_SELECTOR_ENTRIES:
            problems.error(path(where, "nodeSelector"), f"Too many: {len(selector)}: must have at most "
                                                        f"{MAX_NODE_SELECTOR_ENTRIES} items (the NNCP CRD)")
    rollout = check_nodes(problems, spec, policies)
    recreate = check_updates(problems, spec.get("existing_policies"), policies,
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
        nad = migration_nad(problems, "migration_network", migration, spec)
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


def _bridge(problems: Problems, where: str, bridge: t.Any, ports_in_use: dict[str, str], ovn_nics: set[str],
            spec: t.Mapping[str, t.Any], cni_version: tuple[int, int] | None,
            existing_names: set[t.Any]) -> tuple[list[dict[str, t.Any]], list[tuple[str, str]]]:
    """One bridge: its policy and its networks, and the NICs the nodes must have (with where they were named)."""
    if not isinstance(bridge, dict):
        problems.error(where, "must be a mapping")
        return [], []
    name = bridge.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 15:
        problems.error(path(where, "name"), "a Linux interface name of 1-15 characters is required")
        name = str(name)
    policy_name = bridge.get("policy_name", f"{name}-policy")
    check_policy_name(problems, path(where, "policy_name"), policy_name, existing_names)
    state = bridge.get("state", "present")
    if state not in ("present", "absent"):
        problems.error(path(where, "state"), "must be present or absent")
    ports = _ports(problems, where, bridge, name, ports_in_use, ovn_nics)
    selector = check_label_map(problems, path(where, "node_selector"), bridge.get("node_selector", WORKER_SELECTOR))
    trunk = vlan_ranges(problems, path(where, "vlans"), bridge.get("vlans"))
    native = bridge.get("native_vlan")
    if native is not None and (not isinstance(native, int) or not 1 <= native <= 4094):
        problems.error(path(where, "native_vlan"), "must be a VLAN id within 1-4094")
    if native is not None and not trunk:
        problems.error(path(where, "native_vlan"), "a native VLAN needs trunked vlans on the port")
    mtu = bridge.get("mtu")
    if mtu is not None and (not isinstance(mtu, int) or not 1280 <= mtu <= 9216):
        problems.error(path(where, "mtu"), "must be within 1280-9216 (IPv6 needs at least 1280)")
    stp = stp_options(problems, path(where, "stp"), bridge.get("stp", False))
    carries_ip = bool(bridge.get("carries_node_ip"))
    if carries_ip and len(ports) != 1:
        problems.error(path(where, "ports"), "a bridge that takes over the node IP needs exactly one port")
    policy_spec: dict[str, t.Any] = {"nodeSelector": selector}
    if "max_unavailable" in bridge:
        check_max_unavailable(problems, path(where, "max_unavailable"), bridge["max_unavailable"])
        policy_spec["maxUnavailable"] = bridge["max_unavailable"]
    nics = [(port, path(where, "ports")) for port in ports]
    if state == "absent":
        policy_spec["desiredState"] = {"interfaces": _absent_interfaces(problems, where, bridge, name, ports)}
        problems.warn(f"{where}: keep policy {policy_name} (state absent) until every node reports it Available; "
                      "deleting it earlier leaves the bridge on the nodes")
        return [_nncp(policy_name, policy_spec)], nics
    interface: dict[str, t.Any] = {"name": name, "type": "linux-bridge", "state": "up", "bridge": {
        "options": {"stp": stp}, "port": [_port(p, carries_ip, trunk, native) for p in ports]}}
    if mtu is not None:
        interface["mtu"] = mtu
    if carries_ip:
        _take_node_ip(problems, where, bridge, interface, policy_spec)
        nics = []  # the port is resolved on each node from its default route
    else:
        interface["ipv4"] = {"enabled": False}
        interface["ipv6"] = {"enabled": False}
    policy_spec["desiredState"] = {"interfaces": [interface]}
    objects = [_nncp(policy_name, policy_spec)]
    for nad_index, nad in enumerate(bridge.get("networks") or []):
        built = bridge_nad(problems, path(where, "networks", nad_index), nad, name, trunk, native, cni_version)
        if built:
            objects.append(built)
    if bridge.get("networks") and partially_selected(selector, spec.get("nodes")):
        problems.warn(f"{where}: bridge {name} exists only on the nodes its node_selector matches; the NADs keep "
                      f"the {RESOURCE_NAME_ANNOTATION} annotation so VMs are scheduled only there")
    return objects, nics


def _ports(problems: Problems, where: str, bridge: t.Mapping[str, t.Any], name: str, ports_in_use: dict[str, str],
           ovn_nics: set[str]) -> list[str]:
    """The bridge's NICs: each in one controller only, none of them OVN-Kubernetes' br-ex port."""
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
    return list(ports)


def _absent_interfaces(problems: Problems, where: str, bridge: t.Mapping[str, t.Any], name: str,
                       ports: list[str]) -> list[dict[str, t.Any]]:
    """Deleting an NNCP never reverts it: removal is a policy that sets the bridge absent (and, for a bridge that
    held the node IP, gives the address back to the NIC in the same policy)."""
    interfaces: list[dict[str, t.Any]] = [{"name": name, "type": "linux-bridge", "state": "absent"}]
    if bridge.get("carries_node_ip") and ports:
        interfaces.append({"name": ports[0], "type": "ethernet", "state": "up", "ipv4": {"enabled": True, "dhcp": True}})
    if bridge.get("networks"):
        problems.error(path(where, "networks"), "a bridge being removed cannot carry networks")
    return interfaces


def _port(port: str, carries_ip: bool, trunk: list[tuple[int, int]], native: int | None) -> dict[str, t.Any]:
    """A bridge port; trunked VLANs (and the native one) when the bridge has them."""
    entry: dict[str, t.Any] = {"name": "{{ capture.base-iface.interfaces.0.name }}" if carries_ip else port}
    if trunk:
        vlan: dict[str, t.Any] = {"mode": "trunk", "trunk-tags": [
            {"id": low} if low == high else {"id-range": {"min": low, "max": high}} for low, high in trunk]}
        if native is not None:
            vlan["enable-native"] = True
            vlan["tag"] = native
        entry["vlan"] = vlan
    return entry


def _take_node_ip(problems: Problems, where: str, bridge: t.Mapping[str, t.Any], interface: dict[str, t.Any],
                  policy_spec: dict[str, t.Any]) -> None:
    """Keep the node's address on a bridge over its default-route NIC: same MAC (same DHCP lease), DHCP on the
    bridge, the NIC attached without IP (captured from the node's routes)."""
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


def partially_selected(selector: t.Mapping[str, str], nodes: t.Any) -> bool:
    """True when the node inventory is known and some node does not match the selector."""
    if not isinstance(nodes, list):
        return False
    return not all(selector_matches(selector, n.get("labels") or {}) for n in nodes if isinstance(n, dict))


def _nncp(name: str, spec: dict[str, t.Any]) -> dict[str, t.Any]:
    return {"apiVersion": NNCP_API_VERSION, "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": name},
            "spec": spec}


def _nmstate(problems: Problems, spec: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
    """The NMState singleton, when the DNS probe host must change (disconnected sites)."""
    host = spec.get("dns_probe_host")
    if host is None:
        if spec.get("disconnected"):
            problems.warn("disconnected: the DNS probe (root-servers.net) does not pass before the change, so nmstate "
                          "skips it; set dns_probe_host to a name the site's DNS resolves to keep that safety net")
        return None
    if not isinstance(host, str) or not HOST_NAME.match(host):
        problems.error("dns_probe_host", f"{host!r} is not a DNS name")
        return None
    return {"apiVersion": "nmstate.io/v1", "kind": "NMState", "metadata": {"name": spec.get("nmstate_name", "nmstate")},
            "spec": {"probeConfiguration": {"dns": {"host": host}}}}
