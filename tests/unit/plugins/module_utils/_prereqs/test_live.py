# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster's live policies and node states beneath the spec: what goes where, what the spec keeps, and a read
that lacks a kind."""

from __future__ import annotations

import copy
import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.live import with_live
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render

NNCP = "nmstate.io/v1/NodeNetworkConfigurationPolicy"
POLICY = "sriovnetwork.openshift.io/v1/SriovNetworkNodePolicy"
STATE = "sriovnetwork.openshift.io/v1/SriovNetworkNodeState"
WORKER = {"node-role.kubernetes.io/worker": ""}
BRIDGE = {"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100, "max": 100}], "node_selector": WORKER,
          "networks": [{"name": "net100", "namespace": "vms", "vlan": 100}]}
SPEC: dict[str, t.Any] = {
    "platform": "kubernetes", "version": "1.33", "hco_namespace": "kubevirt-hyperconverged",
    "nodes": [{"name": "w1", "memory": "64Gi", "labels": WORKER, "taints": []}], "networking": {"bridges": [BRIDGE]}}
NICS = [{"name": "ens803f0", "vendor": "8086", "deviceID": "158b", "pciAddress": "0000:86:00.0", "totalvfs": 64}]


def nncp(name):
    return {"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": name},
            "spec": {"desiredState": {"interfaces": []}}}


def node_state(name, status):
    state = {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodeState", "metadata": {"name": name}}
    if status is not None:
        state["status"] = status
    return state


def test_the_live_policies_go_in_beneath_a_spec_that_gives_none():
    live = [nncp("br1-policy")]
    merged = with_live(SPEC, {"objects": {NNCP: live}})
    assert merged["networking"]["existing_policies"] == live
    assert merged["networking"]["bridges"] == SPEC["networking"]["bridges"]
    assert "existing_policies" not in SPEC["networking"]   # the caller's spec is not changed


def test_what_the_spec_gives_wins_over_what_the_cluster_has():
    given = {**SPEC, "networking": {**SPEC["networking"], "existing_policies": [nncp("given")]}}
    merged = with_live(given, {"objects": {NNCP: [nncp("live")]}})
    assert merged["networking"]["existing_policies"] == [nncp("given")]


def test_sriov_gets_the_policies_and_each_nodes_interfaces_where_the_operator_reported_them():
    spec = {"sriov": {"flavour": "openshift", "policies": []}}
    states = [node_state("w1", {"interfaces": NICS}), node_state("w2", None), node_state("w3", {"syncStatus": "x"})]
    merged = with_live(spec, {"objects": {POLICY: [{"kind": "SriovNetworkNodePolicy"}], STATE: states}})
    assert merged["sriov"]["existing_policies"] == [{"kind": "SriovNetworkNodePolicy"}]
    assert merged["sriov"]["node_states"] == {"w1": NICS, "w2": [], "w3": []}
    assert merged["sriov"]["flavour"] == "openshift"


def test_no_node_state_read_leaves_node_states_to_the_spec():
    merged = with_live({"sriov": {"node_states": {"w1": NICS}}}, {"objects": {POLICY: [], STATE: []}})
    assert merged["sriov"] == {"existing_policies": [], "node_states": {"w1": NICS}}


def test_a_spec_without_networking_or_sriov_needs_no_read():
    spec = {"swap": {"overcommit_percent": 150}}
    assert with_live(spec, {}) == spec


def test_a_read_without_a_kind_the_spec_needs_is_refused_for_every_kind_at_once():
    spec = {**SPEC, "sriov": {"policies": []}}
    with pytest.raises(PrerequisiteError) as failure:
        with_live(spec, {"objects": {POLICY: []}})
    errors = failure.value.errors
    assert [e.path for e in errors] == ["cluster_info", "cluster_info"]
    assert errors[0].message.startswith(f"its objects (the cluster_info call's read) lack {NNCP} (the spec has networking")
    assert errors[1].message.startswith(f"its objects (the cluster_info call's read) lack {STATE} (the spec has sriov")
    # In the words of the role's users too.
    assert all("prerequisites_cluster_info" in e.message for e in errors)


def test_an_empty_result_is_no_read_not_a_cluster_without_policies():
    with pytest.raises(PrerequisiteError) as failure:
        with_live({**SPEC, "sriov": {"policies": []}}, {})
    [error] = failure.value.errors
    assert error.path == "cluster_info" and error.message.startswith(
        "the spec has networking and sriov, so it is computed against the cluster's live NodeNetworkConfigurationPolicy, "
        "SriovNetworkNodePolicy, SriovNetworkNodeState objects, and no read of them was given "
        "(prerequisites_cluster_info in the prerequisites role")


def test_the_render_checks_the_spec_against_the_live_policies():
    # The bridge's own policy as the cluster has it, still rolling out: a change to it is refused, as nmstate's
    # webhook would refuse it; without the live policy the same spec renders.
    own = next(o for o in render(SPEC)["objects"] if o["kind"] == "NodeNetworkConfigurationPolicy")
    live = {**copy.deepcopy(own), "status": {"conditions": [
        {"type": "Available", "status": "False", "reason": "ConfigurationProgressing"}]}}
    mtu = {**SPEC, "networking": {"bridges": [{**BRIDGE, "mtu": 9000}]}}
    assert render(mtu)["objects"]
    with pytest.raises(PrerequisiteError, match="still in progress"):
        render(with_live(mtu, {"objects": {NNCP: [live]}}))
