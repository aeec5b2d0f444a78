# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The inputs of the golden files: one list of cases run through every release's own code (``hco-golden``).

A case is what a user submits (a HyperConverged, v1beta1 or v1) and the cluster it meets (platform, nodes, the
OpenShift APIServer's TLS profile, the live status). The same list goes to every release, so a release that does not
know a field shows what it does with it (prunes, ignores, refuses); a v1 input where the release serves no v1 is
refused by the schema. Node labels and architectures are as kubelets and installers set them.
"""

from __future__ import annotations

import copy
import json
import pathlib
import typing as t

import yaml

NAMESPACE = "kubevirt-hyperconverged"
CP = {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": ""}
WORKER = {"node-role.kubernetes.io/worker": ""}


def node(name: str, roles: dict[str, str], arch: str = "amd64", **labels: str) -> dict[str, t.Any]:
    return {"name": name,
            "labels": {**roles, **labels, **({"kubernetes.io/arch": arch} if arch else {}),
                       "kubernetes.io/hostname": name},
            "architecture": arch}


TOPOLOGIES: dict[str, list[dict[str, t.Any]]] = {
    "ha": [node(f"cp-{i}", CP) for i in range(3)] + [node(f"worker-{i}", WORKER) for i in range(3)],
    "compact": [node(f"master-{i}", {**CP, **WORKER}) for i in range(3)],
    "sno": [node("sno-0", {**CP, **WORKER})],
    "two-node": [node(f"cp-{i}", {**CP, **WORKER}) for i in range(2)],
    "two-node-arbiter": [node(f"cp-{i}", {**CP, **WORKER}) for i in range(2)]
    + [node("arbiter-0", {"node-role.kubernetes.io/arbiter": ""})],
    "hosted": [node(f"worker-{i}", WORKER) for i in range(3)],
    "infra": [node(f"cp-{i}", CP) for i in range(3)]
    + [node(f"infra-{i}", {"node-role.kubernetes.io/infra": ""}) for i in range(2)]
    + [node(f"worker-{i}", WORKER) for i in range(3)],
    "multi-arch": [node(f"cp-{i}", CP) for i in range(3)]
    + [node("worker-0", WORKER), node("worker-1", WORKER), node("worker-arm-0", WORKER, "arm64"),
       node("worker-arm-1", WORKER, "arm64")],
    "no-arch": [node(f"cp-{i}", CP, "") for i in range(3)] + [node(f"worker-{i}", WORKER, "") for i in range(2)],
    "single-worker": [node(f"cp-{i}", CP) for i in range(3)] + [node("worker-0", WORKER)],
}


def hc(spec: dict[str, t.Any] | None = None, annotations: dict[str, str] | None = None,
       version: str = "v1beta1", status: dict[str, t.Any] | None = None) -> dict[str, t.Any]:
    metadata: dict[str, t.Any] = {"name": "kubevirt-hyperconverged", "namespace": NAMESPACE}
    if annotations:
        metadata["annotations"] = annotations
    result = {"apiVersion": f"hco.kubevirt.io/{version}", "kind": "HyperConverged", "metadata": metadata,
              "spec": spec or {}}
    if status is not None:
        result["status"] = status
    return result


def context(platform: str = "kubernetes", topology: str = "ha", **extra: t.Any) -> dict[str, t.Any]:
    result: dict[str, t.Any] = {"platform": platform, "nodes": copy.deepcopy(TOPOLOGIES[topology])}
    if platform == "openshift":
        result["baseDomain"] = "example.com"
    result.update(extra)
    return result


PATCH = json.dumps
KV_PATCH = PATCH([{"op": "add", "path": "/spec/configuration/cpuRequest", "value": "150m"},
                  {"op": "replace", "path": "/spec/configuration/developerConfiguration/featureGates/0",
                   "value": "CPUManager"}])
MDEV = {"mediatedDeviceTypes": ["nvidia-222", "nvidia-228"],
        "nodeMediatedDeviceTypes": [{"nodeSelector": {"kubernetes.io/hostname": "worker-0"},
                                     "mediatedDeviceTypes": ["nvidia-223"]}]}
INFRA = {"nodePlacement": {"nodeSelector": {"node-role.kubernetes.io/infra": ""},
                           "tolerations": [{"key": "infra", "operator": "Exists", "effect": "NoSchedule"}]}}
WORKLOADS = {"nodePlacement": {"nodeSelector": {"node-role.kubernetes.io/worker": ""},
                               "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                                   {"weight": 1, "preference": {"matchExpressions": [
                                       {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}}]}}}}
DICT = {"metadata": {"name": "rhel9-image-cron", "annotations": {"cdi.kubevirt.io/storage.bind.immediate.requested":
                                                                 "true"}},
        "spec": {"schedule": "0 */6 * * *", "managedDataSource": "rhel9",
                 "template": {"spec": {"source": {"registry": {"url": "docker://registry.example.com/rhel9:latest"}},
                                       "storage": {"resources": {"requests": {"storage": "30Gi"}}}}}}}
HA_STATUS = {"conditions": [{"type": "Available", "status": "True", "reason": "ReconcileCompleted",
                             "message": "Reconcile completed successfully",
                             "lastTransitionTime": "2026-11-30T08:00:00Z"}],
             "infrastructureHighlyAvailable": True}


def cases() -> list[tuple[str, str, dict[str, t.Any], dict[str, t.Any], str | None]]:
    """(file stem, name, context, input, operation)."""
    result: list[tuple[str, str, dict[str, t.Any], dict[str, t.Any], str | None]] = []

    def add(name: str, ctx: dict[str, t.Any], obj: dict[str, t.Any], operation: str | None = None) -> None:
        result.append((f"{len(result) + 1:03d}", name, ctx, obj, operation))

    for platform in ("kubernetes", "openshift"):
        for topology in ("ha", "compact", "sno", "two-node", "two-node-arbiter", "hosted", "multi-arch", "no-arch"):
            add(f"empty spec, {platform}, {topology}", context(platform, topology), hc())
    gates = ("downwardMetrics", "alignCPUs", "deployKubeSecondaryDNS", "persistentReservation",
             "disableMDevConfiguration", "autoResourceLimits", "decentralizedLiveMigration",
             "declarativeHotplugVolumes", "incrementalBackup", "objectGraph", "containerPathVolumes", "videoConfig",
             "enableMultiArchBootImageImport", "deployKubevirtIpamController", "withHostPassthroughCPU", "nonRoot",
             "enableManagedTenantQuota", "primaryUserDefinedNetworkBinding", "deployTektonTaskResources")
    for gate in gates:
        add(f"featureGates.{gate} true", context(), hc({"featureGates": {gate: True}}))
    for gate in ("enableCommonBootImageImport", "deployVmConsoleProxy", "enableApplicationAwareQuota"):
        value = gate != "enableCommonBootImageImport"
        add(f"featureGates.{gate} {str(value).lower()}, openshift", context("openshift"),
            hc({"featureGates": {gate: value}}))
        add(f"spec.{gate} {str(value).lower()}, openshift", context("openshift"), hc({gate: value}))
    add("featureGates.declarativeHotplugVolumes false", context(), hc({"featureGates": {
        "declarativeHotplugVolumes": False, "decentralizedLiveMigration": False}}))
    add("live migration settings", context(), hc({"liveMigrationConfig": {
        "allowAutoConverge": True, "allowPostCopy": True, "bandwidthPerMigration": "64Mi",
        "completionTimeoutPerGiB": 300, "parallelMigrationsPerCluster": 10, "parallelOutboundMigrationsPerNode": 4,
        "progressTimeout": 300, "network": "migration-net"}}))
    add("permitted host devices", context(), hc({"permittedHostDevices": {
        "pciHostDevices": [{"pciDeviceSelector": "10DE:1EB8", "resourceName": "nvidia.com/TU104GL_Tesla_T4"},
                           {"pciDeviceSelector": "8086:6F54", "resourceName": "intel.com/qat",
                            "externalResourceProvider": True}],
        "mediatedDevices": [{"mdevNameSelector": "GRID T4-1Q", "resourceName": "nvidia.com/GRID_T4-1Q"}],
        "usbHostDevices": [{"resourceName": "kubevirt.io/storage", "selectors": [
            {"vendor": "46f4", "product": "0001"}]}]}}))
    add("mediated devices with node specific types", context(), hc({"mediatedDevicesConfiguration": MDEV}))
    add("obsolete CPU models and a minimum", context(), hc({"obsoleteCPUs": {
        "cpuModels": ["Penryn", "Nehalem"], "minCPUModel": "Haswell"}}))
    add("default CPU model and runtime class", context(),
        hc({"defaultCPUModel": "Skylake-Server", "defaultRuntimeClass": "kata"}))
    add("cert config", context(), hc({"certConfig": {"ca": {"duration": "72h", "renewBefore": "36h"},
                                                     "server": {"duration": "36h", "renewBefore": "18h"}}}))
    for profile in ({"type": "Old", "old": {}}, {"type": "Modern", "modern": {}},
                    {"type": "Intermediate", "intermediate": {}},
                    {"type": "Custom", "custom": {"minTLSVersion": "VersionTLS12", "ciphers": [
                        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"]}}):
        add(f"tlsSecurityProfile {profile['type']}, kubernetes", context(), hc({"tlsSecurityProfile": profile}))
    add("tlsSecurityProfile Modern, openshift", context("openshift"),
        hc({"tlsSecurityProfile": {"type": "Modern", "modern": {}}}))
    add("APIServer profile Old, HC without profile, openshift",
        context("openshift", apiServerTLSSecurityProfile={"type": "Old", "old": {}}), hc())
    add("workload update strategy and uninstall strategy", context(), hc({
        "workloadUpdateStrategy": {"workloadUpdateMethods": ["LiveMigrate"], "batchEvictionSize": 5,
                                   "batchEvictionInterval": "2m"},
        "uninstallStrategy": "RemoveWorkloads"}))
    add("storage settings", context(), hc({
        "storageImport": {"insecureRegistries": ["registry.example.com:5000"]},
        "scratchSpaceStorageClass": "local-scratch", "vmStateStorageClass": "ceph-rbd",
        "filesystemOverhead": {"global": "0.08", "storageClass": {"local": "0.1"}},
        "resourceRequirements": {"storageWorkloads": {"limits": {"cpu": "1", "memory": "1.5Gi"},
                                                      "requests": {"cpu": "250m", "memory": "512Mi"}},
                                 "vmiCPUAllocationRatio": 8}}))
    for platform in ("kubernetes", "openshift"):
        add(f"memory overcommit 150, {platform}", context(platform),
            hc({"higherWorkloadDensity": {"memoryOvercommitPercentage": 150}}))
    add("memory overcommit 150 with the autopilot annotation, openshift", context("openshift"),
        hc({"higherWorkloadDensity": {"memoryOvercommitPercentage": 150}},
           {"platform.kubevirt.io/autopilot": "true"}))
    add("eviction strategy None, SNO", context("kubernetes", "sno"), hc({"evictionStrategy": "None"}))
    add("kubeSecondaryDNS name server IP", context("openshift"), hc({
        "featureGates": {"deployKubeSecondaryDNS": True}, "kubeSecondaryDNSNameServerIP": "192.0.2.53"}))
    add("virtual machine options", context(), hc({"virtualMachineOptions": {
        "disableFreePageReporting": True, "disableSerialConsoleLog": True}}))
    add("custom golden image and one common one disabled, openshift", context("openshift"), hc({
        "commonBootImageNamespace": "os-images",
        "dataImportCronTemplates": [DICT, {"metadata": {"name": "fedora-image-cron", "annotations": {
            "dataimportcrontemplate.kubevirt.io/enable": "false"}}}]}))
    add("tuning policy annotation", context(), hc({"tuningPolicy": "annotation"}, {
        "hco.kubevirt.io/tuningPolicy": '{"qps": 100, "burst": 200}'}))
    add("tuning policy highBurst", context(), hc({"tuningPolicy": "highBurst"}))
    add("KSM on every node", context(), hc({"ksmConfiguration": {"nodeLabelSelector": {}}}))
    add("network binding plugin", context(), hc({"networkBinding": {"passt": {
        "sidecarImage": "quay.io/kubevirt/network-passt-binding:v1.5.0", "migration": {"method": "link-refresh"}}}}))
    add("instance type settings", context("openshift"), hc({
        "instancetypeConfig": {"referencePolicy": "expand"},
        "CommonInstancetypesDeployment": {"enabled": False}}))
    add("MAC pool range", context(), hc({"kubeMacPoolConfiguration": {
        "rangeStart": "02:00:00:00:00:00", "rangeEnd": "02:00:00:ff:ff:ff"}}))
    add("live update configuration", context(), hc({"liveUpdateConfiguration": {
        "maxCpuSockets": 8, "maxGuest": "64Gi", "maxHotplugRatio": 2}}))
    add("application aware quota configured", context(), hc({
        "enableApplicationAwareQuota": True,
        "applicationAwareConfig": {"vmiCalcConfigName": "DedicatedVirtualResources",
                                   "namespaceSelector": {"matchLabels": {"quota": "aaq"}},
                                   "allowApplicationAwareClusterResourceQuota": True}}))
    add("infra and workloads placement", context("kubernetes", "infra"), hc({"infra": INFRA,
                                                                            "workloads": WORKLOADS}))
    add("infra and workloads placement, openshift", context("openshift", "infra"),
        hc({"infra": INFRA, "workloads": WORKLOADS}))
    add("jsonpatch on KubeVirt, CDI, CNAO", context(), hc(annotations={
        "kubevirt.kubevirt.io/jsonpatch": KV_PATCH,
        "containerizeddataimporter.kubevirt.io/jsonpatch": PATCH([
            {"op": "add", "path": "/spec/config/podResourceRequirements",
             "value": {"limits": {"cpu": "1", "memory": "1Gi"}}}]),
        "networkaddonsconfigs.kubevirt.io/jsonpatch": PATCH([
            {"op": "add", "path": "/spec/kubeMacPool", "value": {"rangeStart": "1", "rangeEnd": "5"}}])}))
    add("jsonpatch on SSP, openshift", context("openshift"), hc(annotations={
        "ssp.kubevirt.io/jsonpatch": PATCH([{"op": "replace", "path": "/spec/templateValidator/replicas",
                                            "value": 5}])}))
    add("deployOVS annotation", context(), hc(annotations={"deployOVS": "true"}))
    add("deployPasstNetworkBinding annotation", context(), hc(annotations={
        "hco.kubevirt.io/deployPasstNetworkBinding": "true"}))
    smbios = "Family: MyFamily\nManufacturer: Me\nProduct: Box\nSku: S1\nVersion: 2\n"
    add("SMBIOS from the environment", context(env={"SMBIOS": smbios}), hc())
    add("KVM emulation", context(env={"KVM_EMULATION": "true"}), hc())
    add("machine type from the environment", context(env={"MACHINETYPE": "pc-q35-rhel9.6.0"}), hc())
    # v1 inputs: the grouped API (served from 1.18 on; refused by the schema before).
    add("v1: empty spec", context(), hc(version="v1"))
    add("v1: feature gates as a list, openshift", context("openshift"), hc({
        "featureGates": [{"name": "downwardMetrics"}, {"name": "alignCPUs", "state": "Enabled"}]}, version="v1"))
    add("v1: virtualization settings", context(), hc({"virtualization": {
        "liveMigrationConfig": {"parallelMigrationsPerCluster": 8},
        "obsoleteCPUModels": ["Penryn"]}, "workloadSources": {"enableCommonBootImageImport": False}},
        version="v1"))
    add("v1: every group, openshift", context("openshift", "infra"), hc({
        "deployment": {"nodePlacements": {"infra": INFRA["nodePlacement"], "workload": WORKLOADS["nodePlacement"]},
                       "uninstallStrategy": "RemoveWorkloads",
                       "applicationAwareConfig": {"enable": True, "vmiCalcConfigName": "VirtualResources"},
                       "deployVmConsoleProxy": True},
        "storage": {"vmStateStorageClass": "ceph-rbd", "scratchSpaceStorageClass": "local",
                    "workloadResourceRequirements": {"requests": {"cpu": "250m", "memory": "512Mi"}},
                    "persistentReservationConfiguration": {"enabled": True}},
        "security": {"certConfig": {"ca": {"duration": "72h", "renewBefore": "36h"},
                                    "server": {"duration": "36h", "renewBefore": "18h"}},
                     "tlsSecurityProfile": {"type": "Old", "old": {}}},
        "networking": {"kubeSecondaryDNSNameServerIP": "192.0.2.53",
                       "kubeMacPoolConfiguration": {"rangeStart": "02:00:00:00:00:00",
                                                    "rangeEnd": "02:00:00:ff:ff:ff"}},
        "workloadSources": {"commonBootImageNamespace": "os-images", "enableMultiArchBootImageImport": True,
                            "dataImportCronTemplates": [DICT]},
        "virtualization": {"mediatedDevicesConfiguration": {**MDEV, "enabled": False},
                           "virtualMachineOptions": {"defaultCPUModel": "Skylake-Server",
                                                     "disableSerialConsoleLog": True},
                           "vmiCPUAllocationRatio": 8,
                           "higherWorkloadDensity": {"memoryOvercommitPercentage": 150},
                           "tuningPolicy": "highBurst"},
        "featureGates": [{"name": "deployKubeSecondaryDNS"},
                         {"name": "decentralizedLiveMigration", "state": "Disabled"}],
    }, version="v1"))
    add("v1: a beta gate disabled and the network-resources-injector off", context(), hc({
        "featureGates": [{"name": "declarativeHotplugVolumes", "state": "Disabled"}, {"name": "incrementalBackup"}],
        "deployment": {"deployNetworkResourcesInjector": False}}, version="v1"))
    # UPDATE: the object was created earlier; the request carries the live status.
    add("UPDATE on a highly available cluster, eviction strategy from the status", context(),
        hc({"liveMigrationConfig": {"parallelMigrationsPerCluster": 7}}, status=HA_STATUS), "UPDATE")
    add("UPDATE turning on application aware quota", context(),
        hc({"enableApplicationAwareQuota": True, "featureGates": {"enableApplicationAwareQuota": True}},
           status=HA_STATUS), "UPDATE")
    # Refusals.
    add("cert config server duration too short", context(), hc({"certConfig": {
        "ca": {"duration": "48h", "renewBefore": "24h"}, "server": {"duration": "5m", "renewBefore": "1m"}}}))
    add("cert config server longer than the CA", context(), hc({"certConfig": {
        "ca": {"duration": "24h", "renewBefore": "12h"}, "server": {"duration": "48h", "renewBefore": "24h"}}}))
    add("tlsSecurityProfile Custom without custom", context(), hc({"tlsSecurityProfile": {"type": "Custom"}}))
    add("tuning policy annotation missing", context(), hc({"tuningPolicy": "annotation"}))
    add("KubeVirt jsonpatch with a bad op", context(), hc(annotations={
        "kubevirt.kubevirt.io/jsonpatch": PATCH([{"op": "unknown", "path": "/spec/x", "value": 1}])}))
    add("filesystem overhead out of range", context(), hc({"filesystemOverhead": {"global": "1.5"}}))
    add("mediated devices with both lists", context(), hc({"mediatedDevicesConfiguration": {
        **MDEV, "mediatedDevicesTypes": ["nvidia-231"]}}))
    add("memory overcommit below the minimum", context("openshift"), hc({
        "higherWorkloadDensity": {"memoryOvercommitPercentage": 5}}))
    return result


def write(directory: pathlib.Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    for stem, name, ctx, obj, operation in cases():
        slug = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
        while "--" in slug:
            slug = slug.replace("--", "-")
        document: dict[str, t.Any] = {"name": name, "context": ctx}
        if operation:
            document["operation"] = operation
        document["input"] = obj
        (directory / f"{stem}-{slug[:60].rstrip('-')}.yaml").write_text(
            yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return len(cases())


if __name__ == "__main__":
    import sys

    print(write(pathlib.Path(sys.argv[1])))
