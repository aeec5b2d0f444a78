# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""KubeVirt builder (mapping spec section 6): constants, infra replicas by topology, tuning policy, CPU models."""

from __future__ import annotations

import json

import pytest
from hco_cases import INFRA, NAMESPACE, WORKLOADS, operand

CP = {"node-role.kubernetes.io/control-plane": ""}
WORKER = {"node-role.kubernetes.io/worker": ""}


def nodes(control_planes, workers, both=0):
    result = [{"name": f"cp{i}", "labels": dict(CP), "architecture": "amd64"} for i in range(control_planes)]
    result += [{"name": f"w{i}", "labels": dict(WORKER), "architecture": "amd64"} for i in range(workers)]
    result += [{"name": f"sno{i}", "labels": {**CP, **WORKER}, "architecture": "amd64"} for i in range(both)]
    return result


def test_constants():
    kubevirt = operand("KubeVirt")
    assert (kubevirt["metadata"]["name"], kubevirt["metadata"]["namespace"]) == (
        "kubevirt-kubevirt-hyperconverged", NAMESPACE)
    spec = kubevirt["spec"]
    assert (spec["productName"], spec["productComponent"]) == ("hyperconverged-cluster", "compute")
    assert spec["serviceMonitorNamespace"] == NAMESPACE
    assert spec["uninstallStrategy"] == "BlockUninstallIfWorkloadsExist"
    assert spec["configuration"]["developerConfiguration"]["diskVerification"] == {"memoryLimit": "2G"}
    assert spec["workloadUpdateStrategy"] == {"workloadUpdateMethods": ["LiveMigrate"], "batchEvictionSize": 10,
                                              "batchEvictionInterval": "1m0s"}


@pytest.mark.parametrize("topology, placement, expected", [
    (nodes(3, 3), None, None),                                     # HA control plane, no placement: omitted
    (nodes(0, 0, both=1), None, {"replicas": 1}),                  # single node
    (nodes(0, 3), None, {"nodePlacement": {}}),                    # hosted control plane
    (nodes(0, 1), None, {"nodePlacement": {}, "replicas": 1}),     # hosted, one worker: not highly available
    (nodes(3, 3), INFRA, {"nodePlacement": INFRA}),
    (nodes(1, 2), INFRA, {"nodePlacement": INFRA, "replicas": 1}),
])
def test_infra_replicas_follow_the_topology(topology, placement, expected):
    spec = {"infra": {"nodePlacement": placement}} if placement else {}
    assert operand("KubeVirt", spec, nodes=topology)["spec"].get("infra") == expected


def test_workloads_never_get_replicas():
    kubevirt = operand("KubeVirt", {"workloads": {"nodePlacement": WORKLOADS}}, nodes=nodes(0, 0, both=1))
    assert kubevirt["spec"]["workloads"] == {"nodePlacement": WORKLOADS}


def test_annotation_tuning_policy_reaches_all_four_clients():
    kubevirt = operand("KubeVirt", {"tuningPolicy": "annotation"},
                       annotations={"hco.kubevirt.io/tuningPolicy": json.dumps({"qps": 100, "burst": 200})})
    limiter = {"restClient": {"rateLimiter": {"tokenBucketRateLimiter": {"qps": 100, "burst": 200}}}}
    configuration = kubevirt["spec"]["configuration"]
    for key in ("apiConfiguration", "webhookConfiguration", "controllerConfiguration", "handlerConfiguration"):
        assert configuration[key] == limiter, key
    untuned = operand("KubeVirt", annotations={"hco.kubevirt.io/tuningPolicy": json.dumps({"qps": 1, "burst": 2})})
    assert "apiConfiguration" not in untuned["spec"]["configuration"]


def test_obsolete_cpu_models_include_the_hard_coded_34_and_the_spec_ones():
    models = operand("KubeVirt", {"obsoleteCPUs": {"cpuModels": ["Haswell", "qemu64"]}})["spec"]["configuration"][
        "obsoleteCPUModels"]
    assert len(models) == 35 and models["Haswell"] is True and models["486"] is True and models["qemu64"] is True
