# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nmstate's own rules on a policy (vectors NN of node-prereqs-examples.md): ports, VLANs, STP, names, states, maxUnavailable."""

from __future__ import annotations

import pytest
from networking_specs import bridge_with_port, errors_of, live, raw_policy

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import bridges, nmstate_rules


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
    low, high = nmstate_rules.STP_RANGES[bad]
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


@pytest.mark.parametrize("matching, value, at_once", [
    (10, "50%", 5),    # NN-20: the default
    (3, "50%", 2),     # NN-20b: percentages round up
    (3, 0, 1),         # NN-20c: never below one node
    (3, "0%", 1),
    (4, 3, 3),
])
def test_rollout_width(matching, value, at_once):
    assert nmstate_rules.scaled_max_unavailable(value, matching) == at_once
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
    assert nmstate_rules.scaled_max_unavailable(value, matching) == at_once


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


@pytest.mark.parametrize("name", ["br_1-policy", "Br1-policy", "-br1", "x" * 64, "br1..policy"])
def test_a_policy_name_the_api_server_or_nmstate_refuses_is_refused(name):
    problems = errors_of({"bridges": [{"name": "br1", "ports": ["eno2"], "policy_name": name}]})
    assert any(p == "bridges[0].policy_name" and "at most 63 characters" in m and "DNS-1123 subdomain" in m
               for p, m in problems)


def test_a_dotted_policy_name_is_fine():
    result = bridges.plan({"bridges": [{"name": "br1", "ports": ["eno2"], "policy_name": "site.br1-policy"}]})
    assert result["objects"][0]["metadata"]["name"] == "site.br1-policy"


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
