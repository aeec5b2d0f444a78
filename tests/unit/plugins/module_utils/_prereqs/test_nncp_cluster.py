# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The policies against the nodes and the live policies (vectors NN-15 to NN-19, NN-24)."""

from __future__ import annotations

from networking_specs import NODES, bridge_with_port, errors_of, live, raw_policy

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import bridges


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


def test_selector_matching_no_node_warns():  # NN-17
    result = bridges.plan({"nodes": NODES, "bridges": [{"name": "br1", "ports": ["eno1"],
                                                        "node_selector": {"rack": "r9"}}]})
    assert any("matches none of the given nodes" in w and "NoMatchingNode" in w for w in result["warnings"])
    assert result["rollout"] == [{"policy": "br1-policy", "matching_nodes": 0, "nodes_at_once": 1}]


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


def test_nodes_without_network_manager_are_refused_once():  # NN-24
    nodes = [dict(NODES[0], network_manager=False), NODES[1]]
    problems = errors_of({"nodes": nodes, "bridges": [{"name": "br1", "ports": ["eno1"]},
                                                      {"name": "br2", "ports": ["eno2"], "node_selector": {}}]})
    assert {p for p, _m in problems} == {"nodes[0].network_manager", "bridges[1].ports"}
