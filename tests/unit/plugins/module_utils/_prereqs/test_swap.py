# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Swap sizing and the platform decision table (vectors SW, KC, SU, WA of node-prereqs-examples.md)."""

from __future__ import annotations

import pytest
import vectors
from swap_specs import WORKER, errors_of, node

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import swap


@pytest.mark.parametrize("memory, percent, expected", [
    ("16Gi", 150, 8192),            # SW-01 (and SW-10: not the historic RAM x pct = 24 GiB)
    ("64Gi", 200, 65536),           # SW-02
    ("128Gi", 125, 32768),          # SW-03
    ("384Gi", 110, 39322),          # SW-04: 39321.6 rounded up
    ("65554192Ki", 150, 32009),     # SW-05: node capacity in Ki
    ("32Gi", 100, 0),               # SW-06
    ("16Gi", 80, 0),                # SW-07: undercommit clamps to 0
])
def test_swap_size_in_mib_rounded_up(memory, percent, expected):
    assert swap.swap_mib(memory, percent) == expected


def test_overcommit_below_schema_minimum_is_refused():  # SW-08
    assert ("overcommit_percent", "must be an integer of at least 10 (HyperConverged schema minimum)") in \
        errors_of({"overcommit_percent": 9, "version": "1.31"})


def test_no_swap_at_or_below_100_percent():  # SW-06
    result = swap.plan({"platform": "openshift", "version": "4.18", "overcommit_percent": 100, "nodes": [node()]})
    assert (result["mechanism"], result["objects"], result["swap_mib"]) == ("none", [], 0)
    assert result["hyperconverged"] == {"spec": {"higherWorkloadDensity": {"memoryOvercommitPercentage": 100}}}


@pytest.mark.parametrize("version, expected", [
    ("1.27", {"failSwapOn": False, "featureGates": {"NodeSwap": True}}),                                   # KC-01
    ("1.29", {"failSwapOn": False, "featureGates": {"NodeSwap": True},
              "memorySwap": {"swapBehavior": "LimitedSwap"}}),                                              # KC-02
    ("1.31", {"failSwapOn": False, "memorySwap": {"swapBehavior": "LimitedSwap"}}),                         # KC-03
    ("1.34", {"failSwapOn": False, "memorySwap": {"swapBehavior": "LimitedSwap"}}),                         # KC-04
])
def test_vanilla_kubelet_configuration_per_version(version, expected):
    result = swap.plan({"platform": "kubernetes", "version": version, "overcommit_percent": 150, "nodes": [node()]})
    assert result["mechanism"] == "kubelet-limited-swap"
    assert result["kubelet_config"] == expected
    assert result["objects"] == []
    assert ("alpha" in " ".join(result["warnings"])) is (version == "1.27")


def test_vanilla_refusals():
    assert ("feature_gates.NodeSwap", "NodeSwap is GA and locked on since Kubernetes 1.34") in errors_of(
        {"version": "1.34", "overcommit_percent": 150, "nodes": [node()], "feature_gates": {"NodeSwap": False}})
    assert ("nodes[0].cgroup", "node w1 uses cgroup v1: the kubelet refuses LimitedSwap there since Kubernetes 1.30") \
        in errors_of({"version": "1.31", "overcommit_percent": 150, "nodes": [node(cgroup="v1")]})     # KC-05
    assert ("swap_behavior", "UnlimitedSwap was removed in Kubernetes 1.30 (use LimitedSwap)") in errors_of(
        {"version": "1.31", "overcommit_percent": 150, "nodes": [node()], "swap_behavior": "UnlimitedSwap"})  # KC-06
    assert ("swap_behavior", "wasp-agent and kubelet swapBehavior LimitedSwap are mutually exclusive") in errors_of(
        {"version": "1.31", "overcommit_percent": 150, "nodes": [node()], "mechanism": "wasp-agent",
         "swap_behavior": "LimitedSwap"})                                                                  # KC-07
    problems = errors_of({"version": "1.31", "overcommit_percent": 150, "mechanism": "wasp-agent",
                          "nodes": [node(runtime="containerd")]})                                          # KC-08
    assert any(p == "nodes[0].runtime" and "CRI-O" in m for p, m in problems)


def test_a_tainted_control_plane_and_short_disks_are_refused_together():  # SU-06 + disk check
    taint = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
    nodes = [node("cp1", labels={"node-role.kubernetes.io/control-plane": "", **WORKER}, taints=[taint]),
             node("w2", memory="64Gi", disk_free="20Gi")]
    problems = errors_of({"version": "1.31", "overcommit_percent": 150, "nodes": nodes})
    paths = {p for p, _msg in problems}
    assert paths == {"node_selector", "nodes[1].disk_free"}
    assert ("nodes[1].disk_free", "node w2 needs 32768 MiB of swap but reports only 20480 MiB free") in problems
    assert any(p == "node_selector" and "cp1, which is tainted" in m for p, m in problems)


def test_single_node_kubernetes_gets_swap_on_its_control_plane_node():
    single = [node("sno", labels={"node-role.kubernetes.io/control-plane": "", **WORKER})]
    result = swap.plan({"version": "1.33", "overcommit_percent": 150, "nodes": single})
    assert result["mechanism"] == "kubelet-limited-swap" and [n["name"] for n in result["nodes"]] == ["sno"]
    assert any("sno run VMs" in w and "restarts their kubelet" in w for w in result["warnings"])


def test_encryption_is_passed_to_the_host_role_on_kubernetes():  # SU-05 (the host side runs in molecule qemu)
    plan = swap.plan({"version": "1.33", "overcommit_percent": 200, "encrypt": True, "nodes": [node(memory="4Gi")]})
    assert plan["encrypt"] is True
    assert plan["mechanism"] == "kubelet-limited-swap"
    assert plan["nodes"] == [{"name": "w1", "memory_mib": 4096, "swap_mib": 4096}]
    assert swap.plan({"version": "1.33", "overcommit_percent": 200, "nodes": [node()]})["encrypt"] is False


OPENSHIFT_ENCRYPT = "the MachineConfig swap file is not encrypted; on OpenShift encrypt the node disks at installation instead"


@pytest.mark.parametrize("platform, version, encrypt, message", [
    ("openshift", "4.18", True, OPENSHIFT_ENCRYPT),
    ("kubernetes", "1.33", "yes", "must be true or false"),
])
def test_encryption_refusals(platform, version, encrypt, message):
    problems = errors_of({"platform": platform, "version": version, "overcommit_percent": 150, "encrypt": encrypt,
                          "nodes": [node()]})
    assert problems == {("encrypt", message)}


def test_openshift_4_18_manual_wasp_agent():  # KC-09, WA-01, WA-03, SU-01, SU-02
    result = swap.plan({"platform": "openshift", "version": "4.18", "overcommit_percent": 150,
                        "nodes": [node(memory="16Gi")]})
    assert result["mechanism"] == "wasp-agent"
    kinds = [o["kind"] for o in result["objects"]]
    assert kinds == ["KubeletConfig", "MachineConfig", "Namespace", "ServiceAccount", "ClusterRole",
                     "ClusterRoleBinding", "SecurityContextConstraints", "DaemonSet", "PrometheusRule"]
    kubelet, machine = result["objects"][:2]
    assert kubelet["spec"]["machineConfigPoolSelector"]["matchLabels"] == {
        "pools.operator.machineconfiguration.openshift.io/worker": ""}
    assert kubelet["spec"]["kubeletConfig"] == {"failSwapOn": False}
    assert machine["spec"]["config"]["ignition"]["version"] == "3.4.0"
    assert machine["metadata"]["labels"] == {"machineconfiguration.openshift.io/role": "worker"}
    units = {u["name"]: u for u in machine["spec"]["config"]["systemd"]["units"]}
    assert "fallocate -l 8192M /var/tmp/swapfile" in units["swap-provision.service"]["contents"]
    assert "ConditionPathExists=!/var/tmp/swapfile" in units["swap-provision.service"]["contents"]
    # Activation is a separate unit that runs on every boot (the provision unit is skipped once the file exists).
    assert "swapon /var/tmp/swapfile" in units["swap-enable.service"]["contents"]
    assert "MemorySwapMax=0" in units["system.slice"]["dropins"][0]["contents"]
    role = next(o for o in result["objects"] if o["kind"] == "ClusterRole")
    assert role["rules"] == [{"apiGroups": [""], "resources": ["pods"], "verbs": ["watch", "list"]}]
    daemonset = next(o for o in result["objects"] if o["kind"] == "DaemonSet")
    pod = daemonset["spec"]["template"]["spec"]
    assert (pod["hostPID"], pod["hostUsers"], pod["priorityClassName"], pod["terminationGracePeriodSeconds"]) == \
        (True, True, "system-node-critical", 5)
    container = pod["containers"][0]
    assert container["securityContext"] == {"privileged": True}
    assert container["resources"] == {"requests": {"cpu": "100m", "memory": "50M"}}
    assert [e["name"] for e in container["env"]] == ["VERBOSITY", "NODE_NAME"]
    assert {v["hostPath"]["path"] for v in pod["volumes"]} == {"/"}
    rule = next(o for o in result["objects"] if o["kind"] == "PrometheusRule")
    alert = rule["spec"]["groups"][0]["rules"][0]
    assert (alert["alert"], alert["for"], alert["labels"]["severity"]) == ("NodeHighSwapActivity", "1m", "warning")
    assert "node_vmstat_pswpout[1m]) > 200" in alert["expr"] and "node_vmstat_pswpin[1m]) > 200" in alert["expr"]
    namespace = next(o for o in result["objects"] if o["kind"] == "Namespace")
    assert namespace["metadata"]["labels"]["openshift.io/cluster-monitoring"] == "true"


def test_openshift_4_20_hco_deploys_the_agent_and_4_21_gets_no_kubeletconfig():  # KC-10, KC-11, KC-14
    four_twenty = swap.plan({"platform": "openshift", "version": "4.20", "overcommit_percent": 150,
                             "nodes": [node()]})
    assert four_twenty["mechanism"] == "wasp-agent-hco"
    assert [o["kind"] for o in four_twenty["objects"]] == ["KubeletConfig", "MachineConfig"]
    four_twenty_one = swap.plan({"platform": "openshift", "version": "4.21", "overcommit_percent": 150,
                                 "nodes": [node()]})
    assert [o["kind"] for o in four_twenty_one["objects"]] == ["MachineConfig"]
    assert four_twenty_one["objects"][0]["spec"]["config"]["ignition"]["version"] == "3.5.0"


def test_openshift_autopilot():  # SU-03, KC-12/13
    result = swap.plan({"platform": "openshift", "version": "4.21", "hco_version": "1.18", "mechanism": "autopilot",
                        "overcommit_percent": 150, "nodes": [node()]})
    assert result["mechanism"] == "autopilot"
    assert result["hyperconverged"]["metadata"]["annotations"] == {"platform.kubevirt.io/autopilot": "swap-enable"}
    units = result["objects"][0]["spec"]["config"]["systemd"]["units"]
    assert [u["name"] for u in units] == ["swap-provision.service"]
    assert "/var/tmp/ocpswap.file" in units[0]["contents"]
    assert ("hco_version", "the autopilot swap mode needs HCO 1.18 or later") in errors_of(
        {"platform": "openshift", "version": "4.21", "hco_version": "1.17", "mechanism": "autopilot",
         "overcommit_percent": 150, "nodes": [node()]})


def test_hyperconverged_patch_path():  # SW-11, SW-12
    result = swap.plan({"platform": "kubernetes", "version": "1.31", "overcommit_percent": 150, "nodes": [node()]})
    assert result["hyperconverged"] == {"spec": {"higherWorkloadDensity": {"memoryOvercommitPercentage": 150}}}
    v1 = swap.plan({"platform": "kubernetes", "version": "1.31", "overcommit_percent": 150, "nodes": [node()],
                    "hco_api_version": "hco.kubevirt.io/v1"})
    assert v1["hyperconverged"] == {"spec": {"virtualization": {"higherWorkloadDensity": {
        "memoryOvercommitPercentage": 150}}}}
    assert errors_of({"overcommit_percent": 150, "version": "1.31", "hco_api_version": "hco.kubevirt.io/v2"}) == {
        ("hco_api_version", "must be one of hco.kubevirt.io/v1beta1, hco.kubevirt.io/v1")}


def test_api_server_defaults_the_overcommit_percentage():  # SW-09, by the real CRD schema
    crd = vectors.load(vectors.CRD_DIR / "hyperconvergeds.hco.kubevirt.io.yaml")
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta1")
    spec_schema = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    density = spec_schema["properties"]["higherWorkloadDensity"]
    assert density["default"] == {"memoryOvercommitPercentage": 100}
    assert density["properties"]["memoryOvercommitPercentage"]["minimum"] == 10
    # An inventory at the default overcommit needs no swap: nothing is built.
    result = swap.plan({"platform": "openshift", "version": "4.18", "nodes": [node()]})
    assert (result["overcommit_percent"], result["swap_mib"], result["objects"]) == (100, 0, [])


def test_autopilot_swap_partition():  # SU-03 and SU-04: what the autopilot's units activate
    base = {"platform": "openshift", "version": "4.21", "hco_version": "1.18", "mechanism": "autopilot",
            "overcommit_percent": 150, "nodes": [node()]}
    on_file = swap.plan(base)
    assert on_file["activation"] == {"what": "/var/tmp/ocpswap.file", "priority": 10}
    partition = swap.plan(dict(base, swap_device="partition"))
    assert partition["activation"] == {"what": "/dev/disk/by-partlabel/OCPSWAP", "priority": 100}
    assert partition["objects"] == []  # the partition exists from installation; the MCO cannot create it
    assert any("GPT partition labelled OCPSWAP (at least 32768 MiB)" in w for w in partition["warnings"])
    assert errors_of(dict(base, swap_device="zram")) == {("swap_device", "must be file or partition")}


def test_no_version_is_needed_without_overcommit():
    result = swap.plan({"overcommit_percent": 100, "nodes": [node()]})
    assert result["mechanism"] == "none" and result["swap_mib"] == 0
    assert ("version", "None is not a MAJOR.MINOR version") in errors_of({"overcommit_percent": 150,
                                                                         "nodes": [node()]})
