# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bridges, NADs and the migration network (vectors NN and NAD of node-prereqs-examples.md)."""

from __future__ import annotations

import json

import pytest
import vectors

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


@pytest.mark.parametrize("range_text, exclude, first", [
    ("192.168.2.0/24", ["192.168.2.0/28"], "192.168.2.16"),   # NAD-12
    ("192.168.2.225/28", [], "192.168.2.225"),                # NAD-13
    ("10.0.0.0/31", [], None),
])
def test_whereabouts_first_address(range_text, exclude, first):
    assert bridges.whereabouts_first_address(range_text, exclude) == first


def raw_policy(interfaces, name="raw-policy", **spec):
    return {"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": name},
            "spec": {"nodeSelector": {"node-role.kubernetes.io/worker": ""}, "desiredState": {"interfaces": interfaces},
                     **spec}}


def bridge_with_port(port, **options):
    return {"name": "br1", "type": "linux-bridge", "state": "up",
            "bridge": {"options": options, "port": [dict({"name": "eno2"}, **port)]}}


@pytest.mark.parametrize("vlan, where, message", [
    ({"mode": "trunk", "tag": 10, "trunk-tags": [{"id": 20}]}, "tag",
     "a tag in trunk mode needs enable-native: true"),                                            # NN-04
    ({"mode": "access", "enable-native": True}, "enable-native",
     "enable-native is not allowed in access mode"),                                              # NN-05
    ({"mode": "access", "tag": 10, "trunk-tags": [{"id": 20}]}, "trunk-tags",
     "access mode cannot have trunk-tags"),                                                       # NN-06
    ({"mode": "trunk"}, "trunk-tags", "trunk mode needs trunk-tags"),                             # NN-07
    ({"mode": "trunk", "trunk-tags": [{"id": 150}, {"id-range": {"min": 100, "max": 200}}]}, "trunk-tags[1]",
     "overlaps VLANs 150-150"),                                                                   # NN-08
])
def test_port_vlan_rules_of_hand_written_policies(vlan, where, message):
    problems = errors_of({"policies": [raw_policy([bridge_with_port({"vlan": vlan})])]})
    assert problems == {(f"policies[0].spec.desiredState.interfaces[0].bridge.port[0].vlan.{where}", message)}


def test_valid_port_vlans_pass():  # NN-02/NN-03 shapes written by hand
    trunk = {"mode": "trunk", "enable-native": True, "tag": 10, "trunk-tags": [{"id-range": {"min": 100, "max": 200}}]}
    result = bridges.plan({"policies": [raw_policy([bridge_with_port({"vlan": trunk})])]})
    assert result["objects"][0]["spec"]["desiredState"]["interfaces"][0]["bridge"]["port"][0]["vlan"] == trunk
    assert bridges.plan({"policies": [raw_policy([bridge_with_port({"vlan": {"mode": "access", "tag": 5}})])]})


def test_port_with_ip_enabled_is_refused():  # NN-10
    problems = errors_of({"policies": [raw_policy([
        bridge_with_port({}), {"name": "eno2", "type": "ethernet", "state": "up", "ipv4": {"enabled": True}}])]})
    assert problems == {("policies[0].spec.desiredState.interfaces[1].ipv4.enabled",
                         "eno2 cannot have IP enabled while attached to controller br1")}


def test_port_overbooked_between_hand_written_and_generated_bridges():  # NN-09 across both inputs
    problems = errors_of({"bridges": [{"name": "br1", "ports": ["eno2"]}],
                          "policies": [raw_policy([dict(bridge_with_port({}), name="br2")])]})
    assert problems == {("policies[0].spec.desiredState.interfaces[0].bridge.port[0]",
                         "Port eno2 is overbooked by two controllers: br1 and br2")}


@pytest.mark.parametrize("stp, bad", [
    ({"hello-time": 0}, "hello-time"), ({"hello-time": 11}, "hello-time"),                       # NN-11
    ({"forward-delay": 1}, "forward-delay"), ({"forward-delay": 31}, "forward-delay"),
    ({"max-age": 5}, "max-age"), ({"max-age": 41}, "max-age"),
])
def test_stp_timer_ranges(stp, bad):
    problems = errors_of({"policies": [raw_policy([bridge_with_port({}, stp=dict(stp, enabled=True))])]})
    low, high = bridges.STP_RANGES[bad]
    assert problems == {(f"policies[0].spec.desiredState.interfaces[0].bridge.options.stp.{bad}",
                         f"{stp[bad]} is not in range [{low},{high}]")}
    generated = errors_of({"bridges": [{"name": "br1", "ports": ["eno2"],
                                        "stp": {bad.replace("-", "_"): stp[bad]}}]})
    assert {p for p, _m in generated} == {f"bridges[0].stp.{bad.replace('-', '_')}"}


def test_stp_options_of_a_generated_bridge():
    nncp = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"],
                                      "stp": {"hello_time": 1, "forward_delay": 30, "max_age": 6}}]})["objects"][0]
    options = nncp["spec"]["desiredState"]["interfaces"][0]["bridge"]["options"]
    assert options == {"stp": {"enabled": True, "hello-time": 1, "forward-delay": 30, "max-age": 6}}


def test_default_pvid_needs_vlan_filtering():  # NN-12
    problems = errors_of({"policies": [raw_policy([bridge_with_port({}, **{"vlan-default-pvid": 5})])]})
    assert problems == {("policies[0].spec.desiredState.interfaces[0].bridge.options.vlan-default-pvid",
                         "a default PVID of 5 needs VLAN filtering (a port with vlan configuration)")}
    filtered = bridge_with_port({"vlan": {"mode": "access", "tag": 5}}, **{"vlan-default-pvid": 5})
    assert bridges.plan({"policies": [raw_policy([filtered])]})["objects"]


def test_hand_written_policy_admission_rules():  # NN-13, NN-14 on hand-written policies
    policy = raw_policy([bridge_with_port({})], name="p" * 64)
    policy["spec"]["nodeSelector"] = {"role": "bad value!"}
    policy["spec"]["surprise"] = True
    assert {p for p, _m in errors_of({"policies": [policy]})} == {
        "policies[0].metadata.name", "policies[0].spec.nodeSelector.role", "policies[0].spec.surprise"}


def live(policy, reason, **spec_changes):
    current = json.loads(json.dumps(policy))
    current["spec"].update(spec_changes)
    current["status"] = {"conditions": [{"type": "Available", "status": "Unknown" if reason else "True",
                                         "reason": reason}]} if reason is not None else {}
    return current


def test_no_update_while_the_policy_is_progressing():  # NN-15
    desired = {"bridges": [{"name": "br1", "ports": ["eno2"], "mtu": 9000}]}
    before = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"]}]})["objects"][0]
    for reason in ("ConfigurationProgressing", None):
        problems = errors_of(dict(desired, existing_policies=[live(before, reason)]))
        assert len(problems) == 1
        path, message = problems.pop()
        assert path == "bridges[0]" and message.startswith("policy br1-policy is still in progress")
    settled = bridges.plan(dict(desired, existing_policies=[live(before, "SuccessfullyConfigured")]))
    assert settled["recreate"] == [] and settled["objects"][0]["spec"]["desiredState"]["interfaces"][0]["mtu"] == 9000
    unchanged = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"]}],
                              "existing_policies": [live(before, "ConfigurationProgressing")]})
    assert unchanged["recreate"] == []


def test_a_capture_change_is_refused_as_nmstate_refuses_it():  # NN-16
    before = bridges.plan({"bridges": [{"name": "brext", "ports": ["eno1"]}]})["objects"][0]
    changed = {"bridges": [{"name": "brext", "ports": ["eno1"], "carries_node_ip": True}],
               "existing_policies": [live(before, "SuccessfullyConfigured")]}
    [(where, message)] = errors_of(changed)
    assert where == "bridges[0]" and "capture field" not in message
    assert "the capture of policy brext-policy changes, which nmstate's webhook refuses on update" in message


def test_a_capture_change_recreates_the_policy_when_asked():  # NN-16: delete + recreate, by choice
    before = bridges.plan({"bridges": [{"name": "brext", "ports": ["eno1"]}]})["objects"][0]
    result = bridges.plan({"bridges": [{"name": "brext", "ports": ["eno1"], "carries_node_ip": True}],
                           "existing_policies": [live(before, "SuccessfullyConfigured")],
                           "recreate_changed_capture": True})
    assert result["recreate"] == ["brext-policy"]
    assert result["delete_first"] == [{"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
                                       "metadata": {"name": "brext-policy"}}]
    assert any("deleted and created again" in w for w in result["warnings"])


NODES = [{"name": "w1", "labels": {"node-role.kubernetes.io/worker": ""}, "nics": ["eno1", "eno2"]},
         {"name": "w2", "labels": {"node-role.kubernetes.io/worker": ""}, "nics": ["eno1"]},
         {"name": "cp1", "labels": {"node-role.kubernetes.io/control-plane": ""}}]


def test_selector_matching_no_node_warns():  # NN-17
    result = bridges.plan({"nodes": NODES, "bridges": [{"name": "br1", "ports": ["eno1"],
                                                        "node_selector": {"rack": "r9"}}]})
    assert any("matches none of the given nodes" in w and "NoMatchingNode" in w for w in result["warnings"])
    assert result["rollout"] == [{"policy": "br1-policy", "matching_nodes": 0, "nodes_at_once": 1}]


def test_removing_a_bridge_is_a_policy_with_state_absent():  # NN-18
    result = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "state": "absent"}]})
    assert result["objects"][0]["spec"]["desiredState"]["interfaces"] == [
        {"name": "br1", "type": "linux-bridge", "state": "absent"}]
    assert any("deleting it earlier leaves the bridge" in w for w in result["warnings"])
    restore = bridges.plan({"bridges": [{"name": "brext", "ports": ["eno1"], "state": "absent",
                                         "carries_node_ip": True}]})["objects"][0]
    assert restore["spec"]["desiredState"]["interfaces"][1] == {
        "name": "eno1", "type": "ethernet", "state": "up", "ipv4": {"enabled": True, "dhcp": True}}


def test_missing_nic_on_a_selected_node_is_refused():  # NN-19
    problems = errors_of({"nodes": NODES, "bridges": [{"name": "br1", "ports": ["eno2"]}],
                          "policies": [raw_policy([dict(bridge_with_port({}, stp={"enabled": False}),
                                                        name="br6", bridge={"port": [{"name": "eth666"}]})])]})
    assert problems == {
        ("bridges[0].ports", ("eno2 does not exist on node w2: the enactment would fail (FailedToConfigure) and the "
                              "policy turn Degraded")),
        ("policies[0].spec.desiredState.interfaces[0].bridge.port[0]",
         "eth666 does not exist on node w1: the enactment would fail (FailedToConfigure) and the policy turn Degraded"),
        ("policies[0].spec.desiredState.interfaces[0].bridge.port[0]",
         "eth666 does not exist on node w2: the enactment would fail (FailedToConfigure) and the policy turn Degraded"),
    }


@pytest.mark.parametrize("matching, value, at_once", [
    (10, "50%", 5),    # NN-20: the default
    (3, "50%", 2),     # NN-20b: percentages round up
    (3, 0, 1),         # NN-20c: never below one node
    (3, "0%", 1),
    (4, 3, 3),
])
def test_rollout_width(matching, value, at_once):
    assert bridges.scaled_max_unavailable(value, matching) == at_once
    nodes = [{"name": f"w{i}", "labels": {"node-role.kubernetes.io/worker": ""}} for i in range(matching)]
    bridge = {"name": "br1", "ports": ["eno2"]}
    if value != "50%":
        bridge["max_unavailable"] = value
    result = bridges.plan({"nodes": nodes, "bridges": [bridge]})
    assert result["rollout"] == [{"policy": "br1-policy", "matching_nodes": matching, "nodes_at_once": at_once}]
    assert ("maxUnavailable" in result["objects"][0]["spec"]) == (value != "50%")


@pytest.mark.parametrize("matching, value, at_once", [
    (10, "half", 5),   # kubernetes-nmstate ScaledMaxUnavailableNodeCount: unreadable -> the default 50%
    (10, "5", 5),      # a number in a string is no percentage for GetScaledValueFromIntOrPercent: the default too
    (3, -1, 1),        # below one node -> one node
    (4, "150%", 6),    # read as written; more than the matching nodes means all of them
])
def test_the_rollout_width_follows_nmstates_handler_for_odd_values(matching, value, at_once):
    assert bridges.scaled_max_unavailable(value, matching) == at_once


@pytest.mark.parametrize("value, says", [("half", "falls back to its default 50%"), ("50", "falls back"),
                                         (-1, "one node at a time"), ("0%", "one node at a time")])
def test_odd_max_unavailable_is_admitted_as_nmstate_admits_it_with_a_warning(value, says):
    result = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "max_unavailable": value}]})
    assert result["objects"][0]["spec"]["maxUnavailable"] == value
    assert [w for w in result["warnings"] if w.startswith("bridges[0].max_unavailable:") and says in w]


@pytest.mark.parametrize("value", [True, 1.5, ["1"]])
def test_max_unavailable_the_crd_refuses_is_refused(value):
    assert {p for p, _m in errors_of({"bridges": [{"name": "br1", "ports": ["eno2"], "max_unavailable": value}]})} \
        == {"bridges[0].max_unavailable"}


def test_not_copying_the_mac_is_flagged():  # NN-22
    result = bridges.plan({"bridges": [{"name": "brext", "ports": ["eno1"], "carries_node_ip": True,
                                        "copy_mac": False}]})
    interface = result["objects"][0]["spec"]["desiredState"]["interfaces"][0]
    assert "mac-address" not in interface
    assert any("rolls back" in w for w in result["warnings"])


def test_nodes_without_network_manager_are_refused_once():  # NN-24
    nodes = [dict(NODES[0], network_manager=False), NODES[1]]
    problems = errors_of({"nodes": nodes, "bridges": [{"name": "br1", "ports": ["eno1"]},
                                                      {"name": "br2", "ports": ["eno2"], "node_selector": {}}]})
    assert {p for p, _m in problems} == {"nodes[0].network_manager", "bridges[1].ports"}


def test_dns_probe_host_for_disconnected_sites():  # NN-25
    warned = bridges.plan({"disconnected": True, "bridges": [{"name": "br1", "ports": ["eno2"]}]})
    assert [o["kind"] for o in warned["objects"]] == ["NodeNetworkConfigurationPolicy"]
    assert any("skips it" in w for w in warned["warnings"])
    probed = bridges.plan({"disconnected": True, "dns_probe_host": "dns.example.lan"})
    assert probed["objects"] == [{"apiVersion": "nmstate.io/v1", "kind": "NMState", "metadata": {"name": "nmstate"},
                                  "spec": {"probeConfiguration": {"dns": {"host": "dns.example.lan"}}}}]
    assert probed["warnings"] == []
    assert errors_of({"dns_probe_host": "not a name!"}) == {("dns_probe_host", "'not a name!' is not a DNS name")}


def test_node_network_state_is_read_as_v1beta1():  # NN-26, against the real CRD
    crd = vectors.load(vectors.CRD_DIR / "nodenetworkstates.nmstate.io.yaml")
    served = {f"{crd['spec']['group']}/{v['name']}" for v in crd["spec"]["versions"] if v["served"]}
    assert bridges.NODE_NETWORK_STATE_API_VERSION in served
    assert "nmstate.io/v1" not in served


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


@pytest.mark.parametrize("name", ["br_1-policy", "Br1-policy", "-br1", "x" * 64, "br1..policy"])
def test_a_policy_name_the_api_server_or_nmstate_refuses_is_refused(name):
    problems = errors_of({"bridges": [{"name": "br1", "ports": ["eno2"], "policy_name": name}]})
    assert any(p == "bridges[0].policy_name" and "at most 63 characters" in m and "DNS-1123 subdomain" in m
               for p, m in problems)


def test_a_dotted_policy_name_is_fine():
    result = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "policy_name": "site.br1-policy"}]})
    assert result["objects"][0]["metadata"]["name"] == "site.br1-policy"


def test_more_than_256_node_selector_entries_are_refused_as_the_crd_does():
    policy = raw_policy([bridge_with_port({})])
    policy["spec"]["nodeSelector"] = {f"example.com/l{i}": "" for i in range(257)}
    assert errors_of({"policies": [policy]}) == {
        ("policies[0].nodeSelector", "Too many: 257: must have at most 256 items (the NNCP CRD)")}
    policy["spec"]["nodeSelector"].popitem()
    assert bridges.plan({"policies": [policy]})["objects"]


@pytest.mark.parametrize("value, accepted", [
    ("auto", True), ("disabled", True), ("enabled", True), (2, True), (0, True), ("always", False), (3, False),
    # nmstate's de_multicast_router: FromStr lower-cases the string; integers only as integers.
    ("Enabled", True), ("AUTO", True), ("1", False), (True, False)])
def test_multicast_router_takes_nmstates_values_only(value, accepted):
    policy = raw_policy([bridge_with_port({}, **{"multicast-router": value})])
    if accepted:
        assert bridges.plan({"policies": [policy]})["objects"]
    else:
        assert {p for p, _m in errors_of({"policies": [policy]})} == {
            "policies[0].spec.desiredState.interfaces[0].bridge.options.multicast-router"}


@pytest.mark.parametrize("state, accepted", [("ignore", True), ("up-ignore", True), ("down-ignore", True),
                                             ("unknown", True), ("Up", False), ("removed", False)])
def test_interface_states_are_nmstates_exact_names(state, accepted):
    policy = raw_policy([{"name": "eno9", "type": "ethernet", "state": state}])
    if accepted:
        assert bridges.plan({"policies": [policy]})["objects"]
    else:
        assert {p for p, _m in errors_of({"policies": [policy]})} == {
            "policies[0].spec.desiredState.interfaces[0].state"}


def test_an_unknown_interface_type_names_the_later_failure_and_the_likely_type():
    [(where, message)] = errors_of({"policies": [raw_policy([{"name": "br9", "type": "linux-brige"}])]})
    assert where == "policies[0].spec.desiredState.interfaces[0].type"
    assert "the policy turns Degraded" in message and message.endswith("(did you mean linux-bridge?)")


def test_nmstates_name_rule_holds_on_create_only():
    long_name = "a" * 70   # a DNS-1123 subdomain, too long for nmstate's label: refused on create
    assert {p for p, _m in errors_of({"policies": [raw_policy([bridge_with_port({})], name=long_name)]})} == {
        "policies[0].metadata.name"}
    stored = raw_policy([bridge_with_port({})], name=long_name)
    update = bridges.plan({"policies": [raw_policy([bridge_with_port({})], name=long_name)],
                           "existing_policies": [live(stored, "SuccessfullyConfigured")]})
    assert update["objects"][0]["metadata"]["name"] == long_name
    assert {p for p, _m in errors_of({"policies": [raw_policy([bridge_with_port({})], name="Bad_Name")],
                                      "existing_policies": [live(raw_policy([bridge_with_port({})], name="Bad_Name"),
                                                                 "SuccessfullyConfigured")]})} == {
        "policies[0].metadata.name"}   # the API server's own rule still holds


def raw_nad(config, name="ext", namespace="vms", **extra):
    return {"name": name, "namespace": namespace, "config": config, **extra}


def test_a_raw_single_plugin_config_becomes_a_nad_as_given():
    config = {"cniVersion": "0.4.0", "name": "other-name", "type": "bridge", "bridge": "br-ext",
              "preserveDefaultVlan": True}
    result = bridges.plan({"nads": [raw_nad(config, resource_name="bridge.network.kubevirt.io/br-ext")]})
    [nad] = result["objects"]
    assert nad["metadata"] == {"name": "ext", "namespace": "vms",
                               "annotations": {"k8s.v1.cni.cncf.io/resourceName": "bridge.network.kubevirt.io/br-ext"}}
    assert json.loads(nad["spec"]["config"]) == config   # no ipam, its own name, preserveDefaultVlan kept


def test_a_raw_conflist_of_any_plugins_is_accepted_from_json_text():
    text = ('{"cniVersion": "1.0.0", "name": "ovn-localnet", "plugins": [{"type": "ovn-k8s-cni-overlay", '
            '"topology": "localnet", "netAttachDefName": "vms/ovn"}, {"type": "tuning"}]}')
    [nad] = bridges.plan({"nads": [raw_nad(text, name="ovn")]})["objects"]
    assert json.loads(nad["spec"]["config"]) == json.loads(text)


@pytest.mark.parametrize("config, where, message", [
    ("{not json", "nads[0].config", "is not valid JSON"),
    ({"name": "x"}, "nads[0].config.type", "missing 'type'"),
    ({"plugins": [{"type": "bridge"}]}, "nads[0].config.name", "error parsing configuration list: no name"),
    ({"name": "x", "plugins": []}, "nads[0].config.plugins", "error parsing configuration list: no plugins in list"),
    ({"name": "x", "plugins": [{"type": "bridge", "bridge": "b"}, {}]}, "nads[0].config.plugins[1].type",
     "missing 'type'"),
    ({"type": "bridge", "bridge": "b", "vlan": 4095}, "nads[0].config.vlan", "invalid VLAN ID 4095"),
    ({"type": "bridge", "bridge": "b", "vlanTrunk": [{"minID": 10, "maxID": 5}]}, "nads[0].config.vlanTrunk[0]",
     "minID is greater than maxID"),
    ({"type": "bridge", "bridge": "b", "vlanTrunk": [{"id": 0}]}, "nads[0].config.vlanTrunk[0].id",
     "incorrect trunk id parameter"),
    ({"type": "bridge", "bridge": "b", "hairpinMode": True, "promiscMode": True}, "nads[0].config",
     "cannot set hairpin mode and promiscuous mode at the same time"),
])
def test_raw_configs_are_checked_as_libcni_and_the_bridge_loader_check_them(config, where, message):
    [(path, text)] = errors_of({"nads": [raw_nad(config)]})
    assert path == where and message in text


def test_a_raw_bridge_config_without_a_bridge_warns_about_cni0():
    result = bridges.plan({"nads": [raw_nad({"type": "bridge"})]})
    assert any("creates and uses cni0" in w for w in result["warnings"])


def test_a_nad_name_must_be_a_dns_label_and_absent_nads_are_listed_for_deletion():
    assert {p for p, _m in errors_of({"nads": [raw_nad({"type": "macvlan"}, name="Bad_Name")]})} == {"nads[0].name"}
    result = bridges.plan({"nads": [{"name": "old", "namespace": "vms", "state": "absent"}]})
    assert result["objects"] == [] and result["delete"] == [
        {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
         "metadata": {"name": "old", "namespace": "vms"}}]


def whereabouts(**ipam):
    return raw_nad({"type": "macvlan", "master": "eno3", "ipam": {"type": "whereabouts", **ipam}})


@pytest.mark.parametrize("ipam, preview", [
    ({"range": "192.168.10.0/24"}, [("192.168.10.1", "192.168.10.254", 254)]),
    ({"range": "192.168.10.0/24", "exclude": ["192.168.10.0/28", "192.168.10.250/31"]},
     [("192.168.10.16", "192.168.10.254", 254 - 15 - 2)]),
    ({"range": "192.168.10.0/24", "range_start": "192.168.10.100", "range_end": "192.168.10.109"},
     [("192.168.10.100", "192.168.10.109", 10)]),
    ({"range": "192.168.10.20-192.168.10.29/24", "exclude": ["192.168.10.29/32"]},
     [("192.168.10.20", "192.168.10.28", 9)]),
    ({"ipRanges": [{"range": "10.1.0.0/30"}, {"range": "fd00::/126", "exclude": ["fd00::1/128"]}]},
     [("10.1.0.1", "10.1.0.2", 2), ("fd00::2", "fd00::2", 1)]),
])
def test_whereabouts_address_preview(ipam, preview):
    result = bridges.plan({"nads": [whereabouts(**ipam)]})
    assert [(p["first"], p["last"], p["count"]) for p in result["address_preview"]] == preview
    assert all(p["nad"] == "vms/ext" for p in result["address_preview"])


@pytest.mark.parametrize("ipam", [{"range": "10.1.0.0/31"}, {"range": "10.1.0.8/32"},
                                  {"range": "10.1.0.0/29", "exclude": ["10.1.0.0/29"]}])
def test_a_whereabouts_range_with_nothing_to_hand_out_warns(ipam):
    result = bridges.plan({"nads": [whereabouts(**ipam)]})
    assert result["address_preview"][0]["count"] == 0 and result["address_preview"][0]["first"] is None
    assert any("whereabouts can hand out no address" in w for w in result["warnings"])


@pytest.mark.parametrize("exclude", [["10.1.0.5"], ["10.1.0.300/32"], ["nonsense"]])
def test_an_exclude_entry_whereabouts_cannot_parse_is_refused_with_its_message(exclude):
    # whereabouts pkg/config LoadIPAMConfig: net.ParseCIDR on each exclude entry; a bare address has no prefix.
    problems = errors_of({"nads": [whereabouts(range="10.1.0.0/24", exclude=exclude)]})
    message = (f"invalid CIDR in exclude list {exclude[0]}: invalid CIDR address: {exclude[0]} "
               "(whereabouts refuses the config when a pod attaches)")
    assert problems == {("nads[0].config.ipam.exclude[0]", message)}


def test_a_whereabouts_config_without_a_range_is_admitted_with_a_warning():
    # whereabouts loads it and has nothing to allocate from: no refusal anywhere upstream.
    result = bridges.plan({"nads": [whereabouts(gateway="10.1.0.1")]})
    assert result["objects"] and result["address_preview"] == []
    assert [w for w in result["warnings"] if w.startswith("nads[0].config.ipam: no range or ipRanges")]


def test_whereabouts_options_are_checked():
    problems = errors_of({"nads": [whereabouts(range="10.1.0.0/24", range_start="10.2.0.1", gatway="10.1.0.1")]})
    assert {p for p, _m in problems} == {"nads[0].config.ipam.gatway", "nads[0].config.ipam"}


def test_the_migration_network_is_previewed_too():
    result = bridges.plan({"migration_network": {"nic": "eno3", "range": "10.200.5.0/24",
                                                 "exclude": ["10.200.5.0/25"]}})
    assert [(p["nad"], p["first"], p["count"]) for p in result["address_preview"]] == [
        ("kubevirt-hyperconverged/migration-net", "10.200.5.128", 127)]
