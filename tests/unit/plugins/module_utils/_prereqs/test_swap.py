# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Swap sizing and the platform decision table (vectors SW, KC, SU, WA of node-prereqs-examples.md)."""

from __future__ import annotations

import pytest
import vectors

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import swap
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError

WORKER = {"node-role.kubernetes.io/worker": ""}


def node(name="w1", memory="64Gi", **extra):
    return {"name": name, "memory": memory, "labels": dict(WORKER), **extra}


def errors_of(spec):
    with pytest.raises(PrerequisiteError) as failure:
        swap.plan(spec)
    return {(e.path, e.message) for e in failure.value.errors}


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


def test_wasp_image_from_the_hco_csv():  # WA-02
    csv = {"spec": {"relatedImages": [
        {"name": "hyperconverged-cluster-operator", "image": "registry.example/hco@sha256:1"},
        {"name": "wasp-agent", "image": "registry.example/wasp-agent-rhel9@sha256:2"}]}}
    base = {"platform": "openshift", "version": "4.18", "overcommit_percent": 150, "nodes": [node()]}
    result = swap.plan(dict(base, wasp={"csv": csv}))
    daemonset = next(o for o in result["objects"] if o["kind"] == "DaemonSet")
    assert daemonset["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.example/wasp-agent-rhel9@sha256:2"
    assert errors_of(dict(base, wasp={"related_images": csv["spec"]["relatedImages"][:1]})) == {
        ("wasp.related_images", "no wasp-agent entry in the CSV's relatedImages")}
    given = swap.plan(dict(base, wasp={"csv": csv, "image": "mirror.example/wasp:v1"}))
    assert next(o for o in given["objects"] if o["kind"] == "DaemonSet")["spec"]["template"]["spec"][
        "containers"][0]["image"] == "mirror.example/wasp:v1"


def test_upgrade_from_wasp_agent_1_0():  # WA-04
    base = {"platform": "openshift", "version": "4.17", "hco_version": "1.14", "overcommit_percent": 150,
            "nodes": [node()]}
    result = swap.plan(dict(base, wasp={"upgrade_from": "1.0", "previous_kubelet_config": "custom-config"}))
    assert result["delete_first"] == [
        {"apiVersion": "monitoring.openshift.io/v1", "kind": "AlertingRule",
         "metadata": {"name": "wasp-alerts", "namespace": "openshift-monitoring"}},
        {"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "KubeletConfig",
         "metadata": {"name": "custom-config"}}]
    kubelet = next(o for o in result["objects"] if o["kind"] == "KubeletConfig")
    assert kubelet["spec"]["kubeletConfig"] == {"failSwapOn": False}  # no evictionSoft any more
    assert "DaemonSet" in {o["kind"] for o in result["objects"]}
    assert errors_of(dict(base, wasp={"upgrade_from": "1.0"})) == {
        ("wasp.previous_kubelet_config", ("name the KubeletConfig created for wasp-agent 1.0 (with evictionSoft): it "
                                          "is replaced by one with failSwapOn only"))}
    assert swap.plan(base)["delete_first"] == []


def test_obsolete_eviction_variables_warn():  # WA-05
    base = {"platform": "openshift", "version": "4.18", "overcommit_percent": 150, "nodes": [node()]}
    result = swap.plan(dict(base, wasp={"extra_env": [{"name": "MAX_AVERAGE_SWAP_IN_PAGES_PER_SECOND",
                                                       "value": "1000"}]}))
    assert [w for w in result["warnings"] if "obsolete" in w] == [
        ("wasp-agent container wasp-agent: MAX_AVERAGE_SWAP_IN_PAGES_PER_SECOND is obsolete (eviction settings were "
         "removed in wasp-agent@217a31c, FSROOT in @fd075f2); drop it together with the old image")]
    assert not [w for w in swap.plan(base)["warnings"] if "obsolete" in w]


@pytest.mark.parametrize("args, kwargs, expected", [
    (("4Gi", "64Gi", "32Gi"), {"limit": "8Gi"}, 2147483648),                 # LS-01
    (("1Gi", "16Gi", "8Gi"), {}, 536870912),                                 # LS-02
    (("2Gi", "16Gi", "8Gi"), {"limit": "2Gi"}, 0),                           # LS-03: request == limit
    (("2Gi", "16Gi", "8Gi"), {"qos": "Guaranteed"}, 0),                      # LS-04
    ((None, "16Gi", "8Gi"), {"qos": "BestEffort"}, 0),                       # LS-05
    (("2Gi", "16Gi", "8Gi"), {"critical": True}, 0),                         # LS-06
    ((None, "16Gi", "8Gi"), {}, 0),                                          # LS-07
])
def test_per_container_swap_limit(args, kwargs, expected):
    assert swap.container_swap_limit(*args, **kwargs) == expected


def test_an_hco_that_deploys_wasp_agent_gets_no_second_one_whatever_the_openshift_version():
    for hco_version in ("1.16", "1.20"):
        result = swap.plan({"platform": "openshift", "version": "4.19", "hco_version": hco_version,
                            "overcommit_percent": 150, "nodes": [node()]})
        assert result["mechanism"] == "wasp-agent-hco"
        assert [o["kind"] for o in result["objects"]] == ["KubeletConfig", "MachineConfig"]
    manual = swap.plan({"platform": "openshift", "version": "4.20", "hco_version": "1.14", "overcommit_percent": 150,
                        "nodes": [node()]})
    assert manual["mechanism"] == "wasp-agent" and "DaemonSet" in [o["kind"] for o in manual["objects"]]


def test_no_version_is_needed_without_overcommit():
    result = swap.plan({"overcommit_percent": 100, "nodes": [node()]})
    assert result["mechanism"] == "none" and result["swap_mib"] == 0
    assert ("version", "None is not a MAJOR.MINOR version") in errors_of({"overcommit_percent": 150,
                                                                         "nodes": [node()]})


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
