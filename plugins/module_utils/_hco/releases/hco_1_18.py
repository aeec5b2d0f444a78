# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release profile of HCO v1.18.1 (tag v1.18.1 @ a7834653; KubeVirt v1.8.4, CDI v1.65.0, CNAO v0.102.0,
SSP v0.25.0, AAQ v1.8.0).

The grouped ``hco.kubevirt.io/v1`` API is served beside v1beta1, which stays the stored version and the one the
controller reads, so the builders read v1beta1 and the KubeVirt gate list is 1.14's kind: unsorted, without
``disabledFeatureGates`` (``controllers/handlers/kubevirt.go``, ``getKvFeatureGateList``). Every value below was
checked by running the tag's own code on the golden cases. PRIVATE.
"""

from __future__ import annotations

import dataclasses

from ..profile import KubeVirtGateRule as Rule
from .hco_1_19 import PROFILE as _NEXT

#: the CRD's liveMigrationConfig default (no allowWorkloadDisruption yet).
_LIVE_MIGRATION = {
    "allowAutoConverge": False, "allowPostCopy": False, "completionTimeoutPerGiB": 150,
    "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150,
}

#: v1beta1 featureGates and their CRD defaults (None: no default).
FEATURE_GATES = {
    "alignCPUs": False, "autoResourceLimits": None, "containerPathVolumes": False, "decentralizedLiveMigration": True,
    "declarativeHotplugVolumes": False, "deployKubeSecondaryDNS": False, "deployKubevirtIpamController": None,
    "deployTektonTaskResources": None, "deployVmConsoleProxy": None, "disableMDevConfiguration": False,
    "downwardMetrics": False, "enableApplicationAwareQuota": None, "enableCommonBootImageImport": None,
    "enableManagedTenantQuota": None, "enableMultiArchBootImageImport": False, "incrementalBackup": False,
    "nonRoot": None, "objectGraph": False, "persistentReservation": False, "primaryUserDefinedNetworkBinding": None,
    "videoConfig": True, "withHostPassthroughCPU": None,
}

#: the order HCO appends them in (getFeatureGateChecks); every one is read from v1beta1.
GATE_RULES = (
    Rule("DownwardMetrics", "gate:downwardMetrics"),
    Rule("PersistentReservation", "gate:persistentReservation"),
    Rule("AlignCPUs", "gate:alignCPUs"),
    Rule("VideoConfig", "gate:videoConfig"),
    Rule("ObjectGraph", "gate:objectGraph"),
    Rule("DecentralizedLiveMigration", "gate:decentralizedLiveMigration"),
    Rule("DeclarativeHotplugVolumes", "gate:declarativeHotplugVolumes"),
    Rule("HotplugVolumes", "not-gate:declarativeHotplugVolumes"),
    Rule("PasstBinding", "annotation:hco.kubevirt.io/deployPasstNetworkBinding"),
    Rule("PCINUMAAwareTopology", "annotation:hco.kubevirt.io/deployAIE"),
    Rule("SecureExecution", "workload-arch:s390x"),
    Rule("IncrementalBackup", "gate:incrementalBackup"),
    Rule("UtilityVolumes", "gate:incrementalBackup"),
    Rule("ConfigurableHypervisor", "hypervisors"),
    Rule("OptOutRoleAggregation", "role-aggregation"),
    Rule("ContainerPathVolumes", "gate:containerPathVolumes"),
)

PROFILE = dataclasses.replace(
    _NEXT,
    name="1.18",
    hco_version="1.18.1",
    summary="HCO v1.18.1: v1beta1 stored, v1 served; KubeVirt v1.8.4, CDI v1.65.0, CNAO v0.102.0, SSP v0.25.0, "
            "AAQ v1.8.0",
    v1_hub=False,
    crd={
        **_NEXT.crd,
        "spec_default": {
            **_NEXT.crd["spec_default"],
            "featureGates": {name: default for name, default in FEATURE_GATES.items()
                             if name in ("containerPathVolumes", "decentralizedLiveMigration",
                                         "declarativeHotplugVolumes", "deployKubeSecondaryDNS",
                                         "disableMDevConfiguration", "downwardMetrics",
                                         "enableMultiArchBootImageImport", "incrementalBackup", "objectGraph",
                                         "persistentReservation", "videoConfig")},
            "liveMigrationConfig": _LIVE_MIGRATION,
        },
        "feature_gates": FEATURE_GATES,
        "live_migration_defaults": _LIVE_MIGRATION,
    },
    env_defaults={
        **_NEXT.env_defaults,
        "HCO_KV_IO_VERSION": "1.18.1",
        "PASST_SIDECAR_IMAGE": "quay.io/kubevirt/network-passt-binding@sha256:"
                               "47f06f3c1482bc3fa13741ea7d483ba054b24441edbde12469581b48e3c71ca3",
        "PASST_CNI_IMAGE": "quay.io/kubevirt/network-passt-binding-cni@sha256:"
                           "a0bf3055453309691479b8cb36159e2769fc42e4e58826e847419dc28e7c2d58",
    },
    gate_phases={},
    webhook={**_NEXT.webhook, "replaced_gates": {}, "moved_gates_dropped_by_storage": False},
    kubevirt={
        **_NEXT.kubevirt,
        "sort_gates": False,
        "high_burst": {"qps": 200, "burst": 400},
        "infra_multi_node_min_cp": 3,
        "infra_arbiter_counts": True,
        "mdev": "v1-enabled",
        "persistent_reservation": "gate",
        "passt_annotation_binding": {"sidecar_image_env": "PASST_SIDECAR_IMAGE", "memory": "250Mi"},
    },
    kubevirt_gates_always=("CPUManager", "Snapshot", "ExpandDisks", "HostDevices", "VMExport",
                           "KubevirtSeccompProfile", "LiveUpdateNADRef"),
    kubevirt_gates_unless_emulation=("WithHostModelCPU", "HypervStrictCheck"),
    kubevirt_gate_rules=GATE_RULES,
    kubevirt_beta_gates=(),
    cdi_feature_gates=("HonorWaitForFirstConsumer", "DataVolumeClaimAdoption", "WebhookPvcRendering"),
    operands=tuple(o for o in _NEXT.operands if o not in ("filerestore", "network_resources_injector"))
    + ("passt_binding",),
    images={
        **_NEXT.images,
        "KV_CONSOLE_PROXY_IMAGE": "quay.io/kubevirt-ui/kubevirt-apiserver-proxy@sha256:"
                                  "d13b1735f35f04a88281280f71deb1aa94c44f57a66dd302635cd38964ab592e",
        "AIE_WEBHOOK_IMAGE": "quay.io/kubevirt/kubevirt-aie-webhook@sha256:"
                             "d5aafc2c9ea71fc03c92a5f73d1c612996a20cff59051e029f82774210ff457e",
    },
    console_proxy_read_only_root=False,
    # v1 fields 1.20's v1 schema has and 1.18's has not (from the two tags' CRDs).
    v1_input={"unknown": ("deployment.deployNetworkResourcesInjector", "observability",
                          "storage.persistentReservationConfiguration",
                          "virtualization.liveMigrationConfig.allowWorkloadDisruption",
                          "virtualization.mediatedDevicesConfiguration.enabled",
                          "workloadSources.enableMultiArchBootImageImport"),
              "drops_high_burst": True},
)
