# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bridges, NADs and the migration network (vectors NN and NAD of node-prereqs-examples.md)."""

from __future__ import annotations

import json

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import bridges
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError


def errors_of(spec):
    with pytest.raises(PrerequisiteError) as failure:
        bridges.plan(spec)
    return {(e.path, e.message) for e in failure.value.errors}


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
    assert ("bridges[0].policy_name", "must be at most 63 characters in label-value format") in problems
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


def test_vlan_bridge_nad():  # NAD-01
    result = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "vlans": [100], "networks": [
        {"name": "vlan100-net", "namespace": "vms", "vlan": 100}]}]})
    nad = result["objects"][1]
    assert (nad["apiVersion"], nad["kind"], nad["metadata"]["namespace"]) == \
        ("k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition", "vms")
    assert nad["metadata"]["annotations"] == {"k8s.v1.cni.cncf.io/resourceName": "bridge.network.kubevirt.io/br1"}
    assert json.loads(nad["spec"]["config"]) == {"cniVersion": "0.3.1", "name": "vlan100-net", "type": "bridge",
                                                 "bridge": "br1", "vlan": 100, "preserveDefaultVlan": False,
                                                 "macspoofchk": True, "ipam": {}}


def test_nad_rules():  # NAD-02, NAD-06, untrunked VLAN
    problems = errors_of({"bridges": [{"name": "br1", "ports": ["eno2"], "vlans": [100], "networks": [
        {"name": "a", "namespace": "vms", "vlan": 4095},
        {"name": "b", "namespace": "vms", "vlan": 300},
        {"name": "c", "namespace": "vms", "hairpin": True, "promiscuous": True},
        {"name": "0bad", "namespace": "vms"}]}]})
    assert ("bridges[0].networks[0].vlan", "must be within 0-4094") in problems
    assert any(p == "bridges[0].networks[1].vlan" and "not trunked" in m for p, m in problems)
    assert ("bridges[0].networks[2]", "hairpinMode and promiscMode cannot both be true") in problems
    assert any(p == "bridges[0].networks[3].name" for p, _msg in problems)


def test_migration_network():  # NAD-09
    result = bridges.plan({"hco_namespace": "openshift-cnv",
                           "migration_network": {"nic": "eno3", "range": "10.200.5.0/24"}})
    nad = result["objects"][0]
    assert (nad["metadata"]["name"], nad["metadata"]["namespace"]) == ("migration-net", "openshift-cnv")
    assert json.loads(nad["spec"]["config"]) == {"cniVersion": "0.3.1", "name": "migration-net", "type": "macvlan",
                                                 "master": "eno3", "mode": "bridge",
                                                 "ipam": {"type": "whereabouts", "range": "10.200.5.0/24"}}
    assert result["hyperconverged"] == {"spec": {"liveMigrationConfig": {"network": "migration-net"}}}


def test_migration_network_rules():  # NAD-10, NAD-11, NAD-14
    problems = errors_of({"hco_namespace": "openshift-cnv", "node_networks": ["10.200.0.0/16"],
                          "migration_network": {"nic": "eno3", "range": "10.200.5.0/24", "namespace": "default",
                                                "mtu": 9000, "nic_mtu": 1500}})
    expected = {"migration_network.namespace", "migration_network.range", "migration_network.mtu"}
    assert {p for p, _msg in problems} == expected


@pytest.mark.parametrize("range_text, exclude, first", [
    ("192.168.2.0/24", ["192.168.2.0/28"], "192.168.2.16"),   # NAD-12
    ("192.168.2.225/28", [], "192.168.2.225"),                # NAD-13
    ("10.0.0.0/31", [], None),
])
def test_whereabouts_first_address(range_text, exclude, first):
    assert bridges.whereabouts_first_address(range_text, exclude) == first
