# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time one render of a fully populated HyperConverged (every spec field, 4 jsonpatch annotations), per release profile.

Targets: median <= 20 ms on the 2-core machine, and every profile within 5 % of the 1.20 profile's median. All the
profiles run side by side in one process, interleaved run by run so that a slower moment of the machine falls on
each alike. Prints min/median/max over --runs (default 200) and each median against 1.20's.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".cache" / "collections"))

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import (  # noqa: E402
    DEFAULT_RELEASE,
    known_releases,
)
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render  # noqa: E402

SELECTOR = {"matchLabels": {"tier": "gold"}, "matchExpressions": [{"key": "env", "operator": "In", "values": ["p"]}]}
PLACEMENT = {"nodeSelector": {"role": "x"}, "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
             "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                 "nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In",
                                                              "values": ["amd64"]}]}]}}}}
FULL = {
    "apiVersion": "hco.kubevirt.io/v1beta1",
    "kind": "HyperConverged",
    "metadata": {
        "name": "kubevirt-hyperconverged",
        "namespace": "kubevirt-hyperconverged",
        "annotations": {
            "kubevirt.kubevirt.io/jsonpatch": json.dumps([{"op": "add", "path": "/spec/configuration/cpuRequest",
                                                           "value": "12m"}]),
            "containerizeddataimporter.kubevirt.io/jsonpatch": json.dumps(
                [{"op": "add", "path": "/spec/config/preallocation", "value": True}]),
            "networkaddonsconfigs.kubevirt.io/jsonpatch": json.dumps(
                [{"op": "add", "path": "/spec/macvtap", "value": {}}]),
            "ssp.kubevirt.io/jsonpatch": json.dumps(
                [{"op": "replace", "path": "/spec/templateValidator/replicas", "value": 3}]),
            "hco.kubevirt.io/tuningPolicy": '{"qps": 100, "burst": 200}',
            "deployOVS": "true",
        },
    },
    "spec": {
        "CommonInstancetypesDeployment": {"enabled": True},
        "applicationAwareConfig": {"vmiCalcConfigName": "VirtualResources", "namespaceSelector": SELECTOR,
                                   "allowApplicationAwareClusterResourceQuota": True},
        "certConfig": {"ca": {"duration": "72h", "renewBefore": "36h"}, "server": {"duration": "48h", "renewBefore": "24h"}},
        "changedBlockTrackingLabelSelectors": {"namespaceLabelSelector": SELECTOR, "virtualMachineLabelSelector": SELECTOR},
        "commonBootImageNamespace": "golden", "commonTemplatesNamespace": "templates",
        "dataImportCronTemplates": [{"metadata": {"name": "custom"}, "spec": {
            "managedDataSource": "custom", "schedule": "0 0 * * *",
            "template": {"spec": {"source": {"registry": {"url": "docker://example/x"}},
                                  "storage": {"resources": {"requests": {"storage": "1.5Gi"}}}}}}}],
        "defaultCPUModel": "Haswell", "defaultRuntimeClass": "kata", "deployVmConsoleProxy": True,
        "enableApplicationAwareQuota": True, "enableCommonBootImageImport": True, "evictionStrategy": "LiveMigrate",
        "featureGates": {"downwardMetrics": True, "alignCPUs": True, "objectGraph": True, "incrementalBackup": True,
                         "deployKubeSecondaryDNS": True, "persistentReservation": True},
        "filesystemOverhead": {"global": "0.05", "storageClass": {"nfs": "0.1"}},
        "higherWorkloadDensity": {"memoryOvercommitPercentage": 150},
        "hypervisors": [{"name": "kvm"}],
        "infra": {"nodePlacement": PLACEMENT}, "workloads": {"nodePlacement": PLACEMENT},
        "instancetypeConfig": {"referencePolicy": "expand"},
        "ksmConfiguration": {"nodeLabelSelector": SELECTOR},
        "kubeMacPoolConfiguration": {"rangeStart": "02:00:00:00:00:00", "rangeEnd": "02:00:00:ff:ff:ff"},
        "kubeSecondaryDNSNameServerIP": "10.0.0.10",
        "liveMigrationConfig": {"bandwidthPerMigration": "1.5Gi", "network": "mig", "allowPostCopy": True},
        "liveUpdateConfiguration": {"maxCpuSockets": 4, "maxGuest": "8Gi", "maxHotplugRatio": 2},
        "logVerbosityConfig": {"kubevirt": {"virtLauncher": 3, "nodeVerbosity": {"n1": 4}}, "cdi": 2},
        "mediatedDevicesConfiguration": {"mediatedDeviceTypes": ["nvidia-222"], "nodeMediatedDeviceTypes": [
            {"nodeSelector": {"gpu": "a"}, "mediatedDeviceTypes": ["nvidia-223"]}]},
        "networkBinding": {"custom": {"sidecarImage": "example/sidecar", "computeResourceOverhead": {
            "requests": {"memory": "1.5Gi"}}}},
        "obsoleteCPUs": {"cpuModels": ["Penryn"], "minCPUModel": "Nehalem"},
        "permittedHostDevices": {"pciHostDevices": [{"pciDeviceSelector": "10DE:1EB8", "resourceName": "nvidia.com/T4"}],
                                 "mediatedDevices": [{"mdevNameSelector": "GRID T4-1Q", "resourceName": "nvidia.com/GRID"}],
                                 "usbHostDevices": [{"resourceName": "kubevirt.io/usb", "selectors": [
                                     {"vendor": "46d", "product": "82d"}]}]},
        "resourceRequirements": {"vmiCPUAllocationRatio": 8, "autoCPULimitNamespaceLabelSelector": SELECTOR,
                                 "storageWorkloads": {"limits": {"cpu": "1.5", "memory": "1Gi"}}},
        "roleAggregationStrategy": "Manual", "scratchSpaceStorageClass": "local",
        "storageImport": {"insecureRegistries": ["registry.local:5000"]},
        "tlsSecurityProfile": {"type": "Old", "old": {}}, "tuningPolicy": "annotation",
        "uninstallStrategy": "RemoveWorkloads",
        "virtualMachineOptions": {"disableFreePageReporting": True, "disableSerialConsoleLog": True},
        "vmStateStorageClass": "rwx",
        "workloadUpdateStrategy": {"workloadUpdateMethods": ["LiveMigrate", "Evict"], "batchEvictionSize": 5,
                                   "batchEvictionInterval": "90s"},
        "localStorageClassName": "old", "vddkInitImage": "x", "tektonPipelinesNamespace": "a",
        "tektonTasksNamespace": "b",
    },
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--release", action="append",
                        help="a release profile (repeatable); default: every profile")
    options = parser.parse_args()
    releases = options.release or known_releases()
    cluster = {"platform": "openshift", "base_domain": "example.com"}
    # Warm-up; also proves the input is accepted by every profile (fields a release lacks are pruned).
    results = {release: render(FULL, release=release, cluster=cluster) for release in releases}
    timings: dict[str, list[float]] = {release: [] for release in releases}
    for _run in range(options.runs):
        for release in releases:
            start = time.perf_counter()
            render(FULL, release=release, cluster=cluster)
            timings[release].append((time.perf_counter() - start) * 1000)
    print(f"render of a fully populated HyperConverged, {options.runs} runs per profile, interleaved "
          f"(target: median <= 20 ms; each profile within 5 % of {DEFAULT_RELEASE}'s):")
    reference = statistics.median(timings.get(DEFAULT_RELEASE) or timings[releases[-1]])
    for release in releases:
        values, result = timings[release], results[release]
        median = statistics.median(values)
        print(f"  {release:>5}  {len(result.operands):2d} objects  min {min(values):6.2f} ms  median {median:6.2f} ms  "
              f"max {max(values):7.2f} ms  {median / reference:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
