# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""OpenShift's swap configuration: the pools it goes to, custom pools, the MachineConfigs per pool."""

from __future__ import annotations

import pytest
from swap_specs import WORKER, errors_of, node

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import swap

COMPACT = [node(f"cp{n}", labels={"node-role.kubernetes.io/master": "", "node-role.kubernetes.io/control-plane": "",
                                  **WORKER}) for n in (1, 2, 3)]


def test_compact_openshift_gets_swap_on_the_master_pool_with_a_warning():
    result = swap.plan({"platform": "openshift", "version": "4.19", "hco_version": "1.14", "overcommit_percent": 150,
                        "nodes": COMPACT})
    configs = [o for o in result["objects"] if o["kind"] in ("MachineConfig", "KubeletConfig")]
    assert [(o["kind"], o["metadata"]["name"]) for o in configs] == [("KubeletConfig", "master-swap"),
                                                                     ("MachineConfig", "90-master-swap")]
    assert configs[1]["metadata"]["labels"] == {"machineconfiguration.openshift.io/role": "master"}
    assert configs[0]["spec"]["machineConfigPoolSelector"]["matchLabels"] == {
        "pools.operator.machineconfiguration.openshift.io/master": ""}
    assert any("cp1, cp2, cp3 run VMs" in w and "reboots" in w for w in result["warnings"])


def test_masters_and_workers_running_vms_get_one_machineconfig_per_pool():
    nodes = [*COMPACT, node("w1"), node("w2")]
    result = swap.plan({"platform": "openshift", "version": "4.21", "overcommit_percent": 150, "nodes": nodes})
    assert [o["metadata"]["name"] for o in result["objects"]] == ["90-master-swap", "90-worker-swap"]
    assert any("master pool's kubelet" in w for w in result["warnings"])


def test_a_worker_pool_machineconfig_reaching_unselected_workers_is_said():
    nodes = [node("w1", labels={**WORKER, "vms": "yes"}), node("w2")]
    result = swap.plan({"platform": "openshift", "version": "4.20", "overcommit_percent": 150, "nodes": nodes,
                        "node_selector": {"vms": "yes"}})
    assert any("w2 get swap too" in w and "custom MachineConfigPool" in w for w in result["warnings"])


SWAP_POOL = "node-role.kubernetes.io/worker-swap"


def test_a_custom_pool_gives_swap_to_the_selected_workers_only():
    nodes = [node("w1", labels={**WORKER, SWAP_POOL: ""}), node("w2", labels={**WORKER, SWAP_POOL: ""}), node("w3")]
    result = swap.plan({"platform": "openshift", "version": "4.18", "hco_version": "1.14", "overcommit_percent": 150,
                        "nodes": nodes, "node_selector": {SWAP_POOL: ""}, "pool": "worker-swap"})
    pool, *configs = [o for o in result["objects"] if o["apiVersion"].startswith("machineconfiguration")]
    assert pool["kind"] == "MachineConfigPool" and pool["metadata"]["name"] == "worker-swap"
    # The worker pool's MachineConfigs and its own, on the nodes labelled with its role.
    assert pool["spec"]["machineConfigSelector"]["matchExpressions"] == [
        {"key": "machineconfiguration.openshift.io/role", "operator": "In", "values": ["worker", "worker-swap"]}]
    assert pool["spec"]["nodeSelector"] == {"matchLabels": {SWAP_POOL: ""}}
    kubelet = next(o for o in configs if o["kind"] == "KubeletConfig")
    machine = next(o for o in configs if o["kind"] == "MachineConfig")
    # The KubeletConfig selects the pool by a label the pool carries; the MachineConfig names the pool's role.
    assert set(kubelet["spec"]["machineConfigPoolSelector"]["matchLabels"]) <= set(pool["metadata"]["labels"])
    assert machine["metadata"]["labels"] == {"machineconfiguration.openshift.io/role": "worker-swap"}
    assert result["pools"] == ["worker-swap"]
    assert not any("get swap too" in w for w in result["warnings"])  # w3 stays in the worker pool, without swap


def test_a_custom_pool_needs_its_role_label_on_every_selected_worker():
    nodes = [node("w1", labels={**WORKER, "vms": "yes"}), node("w2", labels={**WORKER, "vms": "yes", SWAP_POOL: ""})]
    assert errors_of({"platform": "openshift", "version": "4.20", "overcommit_percent": 150, "nodes": nodes,
                      "node_selector": {"vms": "yes"}, "pool": "worker-swap"}) == {
        ("pool", (f"the label {SWAP_POOL}, by which a node joins the worker-swap pool, is missing on w1: label them "
                  f"(oc label node NAME {SWAP_POOL}=) and list it in their node_labels"))}


def test_a_custom_pool_member_left_out_by_the_selector_is_said():
    nodes = [node("w1", labels={**WORKER, "vms": "yes", SWAP_POOL: ""}), node("w2", labels={**WORKER, SWAP_POOL: ""})]
    result = swap.plan({"platform": "openshift", "version": "4.21", "overcommit_percent": 150, "nodes": nodes,
                        "node_selector": {"vms": "yes"}, "pool": "worker-swap"})
    assert any(w.startswith("w2 carry node-role.kubernetes.io/worker-swap") for w in result["warnings"])


def test_a_compact_cluster_keeps_the_master_pool_for_its_control_plane_with_a_custom_pool():
    nodes = [*COMPACT, node("w1", labels={**WORKER, SWAP_POOL: ""})]
    result = swap.plan({"platform": "openshift", "version": "4.21", "overcommit_percent": 150, "nodes": nodes,
                        "pool": "worker-swap"})
    assert result["pools"] == ["master", "worker-swap"]
    assert [o["metadata"]["name"] for o in result["objects"]] == ["worker-swap", "90-master-swap",
                                                                  "90-worker-swap-swap"]


@pytest.mark.parametrize("platform, pool, message", [
    ("openshift", "Worker_Swap", "must be a MachineConfigPool name: lower-case letters, digits and '-', at most 63"),
    ("openshift", "worker", "worker is a built-in pool; leave pool unset to use it"),
    ("kubernetes", "worker-swap", "MachineConfigPools exist on OpenShift only; leave pool unset on Kubernetes"),
])
def test_a_custom_pool_that_cannot_be_is_refused(platform, pool, message):
    nodes = [node("w1", labels={**WORKER, SWAP_POOL: ""})]
    version = "4.20" if platform == "openshift" else "1.33"
    assert errors_of({"platform": platform, "version": version, "overcommit_percent": 150, "nodes": nodes,
                      "pool": pool}) == {("pool", message)}
