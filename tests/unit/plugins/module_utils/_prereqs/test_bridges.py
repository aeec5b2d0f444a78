# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bridges, NADs and the migration network (vectors NN and NAD of node-prereqs-examples.md)."""

from __future__ import annotations

from networking_specs import bridge_with_port, errors_of, raw_policy

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import bridges


def test_simple_vm_bridge():  # NN-01
    nncp = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"]}]})["objects"][0]
    assert nncp["apiVersion"] == "nmstate.io/v1" and nncp["kind"] == "NodeNetworkConfigurationPolicy"
    assert nncp["spec"]["nodeSelector"] == {"node-role.kubernetes.io/worker": ""}
    assert nncp["spec"]["desiredState"]["interfaces"] == [{
        "name": "br1", "type": "linux-bridge", "state": "up", "ipv4": {"enabled": False},
        "ipv6": {"enabled": False}, "bridge": {"options": {"stp": {"enabled": False}}, "port": [{"name": "eno2"}]}}]


def test_trunk_and_native_vlan():  # NN-02, NN-03
    trunk = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100, "max": 200}]}]})
    port = trunk["objects"][0]["spec"]["desiredState"]["interfaces"][0]["bridge"]["port"][0]
    assert port == {"name": "eno2", "vlan": {"mode": "trunk", "trunk-tags": [{"id-range": {"min": 100, "max": 200}}]}}
    native = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100, "max": 200}],
                                        "native_vlan": 10}]})
    vlan = native["objects"][0]["spec"]["desiredState"]["interfaces"][0]["bridge"]["port"][0]["vlan"]
    assert (vlan["mode"], vlan["enable-native"], vlan["tag"]) == ("trunk", True, 10)


def test_vlan_and_port_rules():  # NN-08, NN-09, NN-13, NN-14
    problems = errors_of({"bridges": [
        {"name": "br1", "ports": ["eno2"], "vlans": [150, {"min": 100, "max": 200}], "policy_name": "x" * 64},
        {"name": "br2", "ports": ["eno2"], "node_selector": {"role": "bad value!"}},
    ]})
    assert ("bridges[0].vlans[1]", "overlaps VLANs 150-150") in problems
    assert any(p == "bridges[0].policy_name" and "at most 63 characters" in m for p, m in problems)
    assert ("bridges[1].ports", ("port eno2 is already a port of bridge br1 (an interface can belong to one controller "
                                 "only)")) in problems
    assert ("bridges[1].node_selector.role", "value 'bad value!' is not a valid label value") in problems


def test_bridge_over_the_default_route_nic():  # NN-21
    nncp = bridges.plan({"bridges": [{"name": "brext", "ports": ["eno1"], "carries_node_ip": True}]})["objects"][0]
    assert nncp["spec"]["capture"]["default-gw"] == 'routes.running.destination=="0.0.0.0/0"'
    assert "next-hop-interface" in nncp["spec"]["capture"]["base-iface"]
    interface = nncp["spec"]["desiredState"]["interfaces"][0]
    assert interface["mac-address"] == "{{ capture.base-iface.interfaces.0.mac-address }}"
    assert interface["ipv4"] == {"enabled": True, "dhcp": True}
    assert interface["bridge"]["port"] == [{"name": "{{ capture.base-iface.interfaces.0.name }}"}]


def test_ovn_primary_nic_is_refused():  # NN-23
    problems = errors_of({"platform": "openshift", "ovn_bridge_nics": ["eno1"],
                          "bridges": [{"name": "br1", "ports": ["eno1"]}]})
    assert any("br-ex" in message for _path, message in problems)


def test_removing_a_bridge_is_a_policy_with_state_absent():  # NN-18
    result = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "state": "absent"}]})
    assert result["objects"][0]["spec"]["desiredState"]["interfaces"] == [
        {"name": "br1", "type": "linux-bridge", "state": "absent"}]
    assert any("deleting it earlier leaves the bridge" in w for w in result["warnings"])
    restore = bridges.plan({"bridges": [{"name": "brext", "ports": ["eno1"], "state": "absent",
                                         "carries_node_ip": True}]})["objects"][0]
    assert restore["spec"]["desiredState"]["interfaces"][1] == {
        "name": "eno1", "type": "ethernet", "state": "up", "ipv4": {"enabled": True, "dhcp": True}}


def test_not_copying_the_mac_is_flagged():  # NN-22
    result = bridges.plan({"bridges": [{"name": "brext", "ports": ["eno1"], "carries_node_ip": True,
                                        "copy_mac": False}]})
    interface = result["objects"][0]["spec"]["desiredState"]["interfaces"][0]
    assert "mac-address" not in interface
    assert any("rolls back" in w for w in result["warnings"])


def test_dns_probe_host_for_disconnected_sites():  # NN-25
    warned = bridges.plan({"disconnected": True, "bridges": [{"name": "br1", "ports": ["eno2"]}]})
    assert [o["kind"] for o in warned["objects"]] == ["NodeNetworkConfigurationPolicy"]
    assert any("skips it" in w for w in warned["warnings"])
    probed = bridges.plan({"disconnected": True, "dns_probe_host": "dns.example.lan"})
    assert probed["objects"] == [{"apiVersion": "nmstate.io/v1", "kind": "NMState", "metadata": {"name": "nmstate"},
                                  "spec": {"probeConfiguration": {"dns": {"host": "dns.example.lan"}}}}]
    assert probed["warnings"] == []
    assert errors_of({"dns_probe_host": "not a name!"}) == {("dns_probe_host", "'not a name!' is not a DNS name")}


def test_more_than_256_node_selector_entries_are_refused_as_the_crd_does():
    policy = raw_policy([bridge_with_port({})])
    policy["spec"]["nodeSelector"] = {f"example.com/l{i}": "" for i in range(257)}
    assert errors_of({"policies": [policy]}) == {
        ("policies[0].nodeSelector", "Too many: 257: must have at most 256 items (the NNCP CRD)")}
    policy["spec"]["nodeSelector"].popitem()
    assert bridges.plan({"policies": [policy]})["objects"]
