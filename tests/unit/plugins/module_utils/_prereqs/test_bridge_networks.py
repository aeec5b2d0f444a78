# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The networks on a bridge and the live-migration network (vectors NAD of node-prereqs-examples.md)."""

from __future__ import annotations

import json

import pytest
from networking_specs import NODES, errors_of

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import bridges


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
    assert ("bridges[0].networks[0].vlan", "must be within 0-4094, got 4095") in problems
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


@pytest.mark.parametrize("version, accepted", [("1.7.1", False), ("v1.8.0", True), ("1.9", True)])
def test_vlan_with_trunk_depends_on_the_plugin_version(version, accepted):  # NAD-03
    spec = {"bridge_cni_version": version, "bridges": [{"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100,
                                                                                                     "max": 300}],
                                                        "networks": [{"name": "t", "namespace": "vms", "vlan": 100,
                                                                       "vlan_trunk": [{"id": 200}]}]}]}
    if not accepted:
        assert errors_of(spec) == {("bridges[0].networks[0].vlan_trunk",
                                    "vlan and vlan_trunk are mutually exclusive before bridge CNI v1.8.0")}
        return
    config = json.loads(bridges.plan(spec)["objects"][1]["spec"]["config"])
    assert (config["vlan"], config["vlanTrunk"], config["preserveDefaultVlan"]) == (100, [{"id": 200}], False)


def test_vlan_trunk_rules():  # NAD-03 without a version, NAD-04, NAD-05, uplink coverage
    problems = errors_of({"bridges": [{"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100, "max": 300}],
                                       "networks": [{"name": "t", "namespace": "vms", "vlan_trunk": [
                                           {"min_id": 300, "max_id": 200}, {"min_id": 10}, {"id": 400},
                                           {"min_id": 100, "max_id": 150}]}]}]})
    assert problems == {
        ("bridges[0].networks[0].vlan_trunk", ("set bridge_cni_version (the containernetworking plugins version on "
                                               "the nodes): trunk ports changed in v1.8.0")),
        ("bridges[0].networks[0].vlan_trunk[0]", "min_id 300 is greater than max_id 200"),
        ("bridges[0].networks[0].vlan_trunk[1]", "both min_id and max_id are required"),
        ("bridges[0].networks[0].vlan_trunk[2]", ("VLAN 400 is not trunked on the bridge uplink (add it to the "
                                                  "bridge's vlans)")),
    }


def test_nad_without_the_resource_annotation_warns():  # NAD-07
    result = bridges.plan({"nodes": NODES, "bridges": [{"name": "br1", "ports": ["eno1"], "networks": [
        {"name": "n", "namespace": "vms", "resource_annotation": False}]}]})
    assert "annotations" not in result["objects"][1]["metadata"]
    assert any("empty, unconnected br1" in w for w in result["warnings"])
    partial = bridges.plan({"nodes": NODES, "bridges": [{"name": "br1", "ports": ["eno1"], "networks": [
        {"name": "n", "namespace": "vms"}]}]})
    assert any("exists only on the nodes its node_selector matches" in w for w in partial["warnings"])


def test_every_bridge_nad_names_its_bridge():  # NAD-08: never the plugin default cni0
    result = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "networks": [
        {"name": "a", "namespace": "vms"}, {"name": "b", "namespace": "vms", "cni_type": "cnv-bridge"}]}]})
    assert [json.loads(n["spec"]["config"])["bridge"] for n in result["objects"][1:]] == ["br1", "br1"]
    assert any(p == "bridges[0].name" for p, _m in errors_of({"bridges": [{"ports": ["eno2"], "networks": [
        {"name": "a", "namespace": "vms"}]}]}))


def test_a_trunk_item_with_an_id_and_a_range_keeps_both():  # the bridge CNI applies both
    result = bridges.plan({"bridge_cni_version": "1.8.0", "bridges": [
        {"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100, "max": 300}], "networks": [
            {"name": "t", "namespace": "vms", "vlan_trunk": [{"id": 100, "min_id": 200, "max_id": 210},
                                                             {"min_id": 150, "max_id": 150}]}]}]})
    nad = next(o for o in result["objects"] if o["kind"] == "NetworkAttachmentDefinition")
    assert json.loads(nad["spec"]["config"])["vlanTrunk"] == [{"id": 100, "minID": 200, "maxID": 210}, {"id": 150}]


def test_the_migration_range_takes_the_whereabouts_start_end_form():
    result = bridges.plan({"migration_network": {"nic": "eno3", "range": "10.200.5.10-10.200.5.50/24"}})
    nad = result["objects"][0]
    assert json.loads(nad["spec"]["config"])["ipam"]["range"] == "10.200.5.10-10.200.5.50/24"
    problems = errors_of({"migration_network": {"nic": "eno3", "range": "10.200.5.50-10.200.6.10/24"},
                          "node_networks": ["10.0.0.0/16"]})
    message = "'10.200.5.50-10.200.6.10/24': 10.200.6.10 must follow 10.200.5.50 inside 10.200.5.0/24"
    assert problems == {("migration_network.range", message)}


def test_the_migration_network_is_previewed_too():
    result = bridges.plan({"migration_network": {"nic": "eno3", "range": "10.200.5.0/24",
                                                 "exclude": ["10.200.5.0/25"]}})
    assert [(p["nad"], p["first"], p["count"]) for p in result["address_preview"]] == [
        ("kubevirt-hyperconverged/migration-net", "10.200.5.128", 127)]
