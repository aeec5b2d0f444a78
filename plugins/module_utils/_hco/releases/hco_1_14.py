# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release profile of HCO v1.14.0 (tag v1.14.0 @ 27d192ff; KubeVirt v1.4.0, CDI v1.61.1, SSP v0.22.2).

This is the release whose ``docs/cluster-configuration.md`` our users work from. Where that document and the
v1.14.0 code disagree, the code wins (e.g. ``completionTimeoutPerGiB`` defaults to 150, not 800; 17 obsolete
CPU models, not 15). PRIVATE.
"""

from __future__ import annotations

import copy

from ..profile import KubeVirtGateRule as Rule
from ..profile import ReleaseProfile, TLSProfiles
from ..tls_data import GO_CIPHER_IDS, OPENSSL_TO_IANA_TLS12, TLS13_NAMES
from .hco_1_20 import PROFILE as _NEXT

_OLD_CIPHERS = TLS13_NAMES + (
    "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    "DHE-RSA-AES128-GCM-SHA256", "DHE-RSA-AES256-GCM-SHA384", "DHE-RSA-CHACHA20-POLY1305",
    "ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-SHA256", "ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA",
    "ECDHE-ECDSA-AES256-SHA384", "ECDHE-RSA-AES256-SHA384", "ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES256-SHA",
    "DHE-RSA-AES128-SHA256", "DHE-RSA-AES256-SHA256", "AES128-GCM-SHA256", "AES256-GCM-SHA384", "AES128-SHA256",
    "AES256-SHA256", "AES128-SHA", "AES256-SHA", "DES-CBC3-SHA",
)

_FEATURE_GATE_OBJECT_DEFAULT = {
    "downwardMetrics": False, "enableCommonBootImageImport": True, "deployVmConsoleProxy": False,
    "deployKubeSecondaryDNS": False, "disableMDevConfiguration": False, "persistentReservation": False,
    "autoResourceLimits": False, "enableApplicationAwareQuota": False,
}

_LIVE_MIGRATION = {
    "allowAutoConverge": False, "allowPostCopy": False, "completionTimeoutPerGiB": 150,
    "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150,
}


def _shipped_dicts() -> tuple:
    """The same three golden images, without the architecture annotation or importsToKeep."""
    result = []
    for entry in copy.deepcopy(_NEXT.common_dicts):
        entry["metadata"]["annotations"].pop("ssp.kubevirt.io/dict.architectures")
        entry["spec"].pop("importsToKeep")
        result.append(entry)
    return tuple(result)


PROFILE = ReleaseProfile(
    name="1.14",
    hco_version="1.14.0",
    summary="HCO v1.14.0: v1beta1 only; KubeVirt v1.4.0, CDI v1.61.1, CNAO v0.97.3, SSP v0.22.2, AAQ v1.3.0",
    v1_hub=False,
    crd={
        # 1.20's defaults of these three, its own of the rest (1.14 has none of 1.20's other defaulted fields).
        "spec_default": {
            **{name: _NEXT.crd["spec_default"][name]
               for name in ("certConfig", "resourceRequirements", "uninstallStrategy")},
            "featureGates": _FEATURE_GATE_OBJECT_DEFAULT,
            "liveMigrationConfig": _LIVE_MIGRATION,
            "virtualMachineOptions": {"disableFreePageReporting": False, "disableSerialConsoleLog": True},
        },
        "feature_gates": {
            "alignCPUs": False, "autoResourceLimits": False, "deployKubeSecondaryDNS": False,
            "deployKubevirtIpamController": None, "deployTektonTaskResources": None, "deployVmConsoleProxy": False,
            "disableMDevConfiguration": False, "downwardMetrics": False, "enableApplicationAwareQuota": False,
            "enableCommonBootImageImport": True, "enableManagedTenantQuota": None, "nonRoot": None,
            "persistentReservation": False, "primaryUserDefinedNetworkBinding": None, "withHostPassthroughCPU": None,
        },
        "live_migration_defaults": _LIVE_MIGRATION,
        "vm_options_defaults": {"disableFreePageReporting": False, "disableSerialConsoleLog": True},
        "memory_overcommit_minimum": 1,
        "vmi_calc_config_names": ["VmiPodUsage", "VirtualResources", "DedicatedVirtualResources", "IgnoreVmiCalculator"],
        "dict_service_account_min_length": None,
        "excluded_fields": [
            "kubeMacPoolConfiguration", "liveUpdateConfiguration", "instancetypeConfig",
            "CommonInstancetypesDeployment", "changedBlockTrackingLabelSelectors", "hypervisors",
            "roleAggregationStrategy", "enableCommonBootImageImport", "deployVmConsoleProxy",
            "enableApplicationAwareQuota",
        ],
    },
    env_defaults={
        "HCO_KV_IO_VERSION": "1.14.0",
        "MACHINETYPE": "",
        "AMD64_MACHINETYPE": "q35",
        "ARM64_MACHINETYPE": "virt",
        "S390X_MACHINETYPE": None,
        "KVM_EMULATION": "",
        "SMBIOS": "Family: KubeVirt\nManufacturer: KubeVirt\nProduct: None\n",
        "PRIMARY_UDN_SIDECAR_IMAGE": (
            "quay.io/kubevirt/network-passt-binding@sha256:"
            "c794cc1b9173267f1e3d34e666d9e2f782b88d93b47fb4449675346b467f802c"
        ),
    },
    gate_phases={},
    switch_paths={
        "enableCommonBootImageImport": ("featureGates", "enableCommonBootImageImport"),
        "deployVmConsoleProxy": ("featureGates", "deployVmConsoleProxy"),
        "enableApplicationAwareQuota": ("featureGates", "enableApplicationAwareQuota"),
    },
    mutator={"dict_retention_defaults": False, "ksm_default_on_create": False},
    webhook={
        "namespace_rule": True,
        # v1.14.0's webhook panics building KubeVirt for type Custom without custom (found by running it on the
        # golden cases): the request is refused all the same, so the engine refuses it with the field named.
        "custom_type_requires_custom": True,
        "affinity_validation": False,
        "deprecated_gates_short_circuit": True,
        "high_burst_conflicts_with_annotation": True,
        "discontinued_gates": ("withHostPassthroughCPU", "deployTektonTaskResources", "nonRoot", "enableManagedTenantQuota"),
        "moved_gates": (),
        "replaced_gates": {},
        "high_burst_warning": False,
    },
    warnings={
        "discontinued": "spec.featureGates.{0} is deprecated and ignored. It will be removed in a future version;",
    },
    kubevirt={
        "sort_gates": False,
        "high_burst": {"qps": 200, "burst": 400},
        "min_cpu_model": True,
        "infra_multi_node_min_cp": 3,
        "mdev": "v1beta1-lists",
        "persistent_reservation": "gate",
        "extra_bindings": {"l2bridge": {"domainAttachmentType": "managedTap", "migration": {}}},
        "passt_binding": True,
        "architectures": {
            "amd64": {"env": "AMD64_MACHINETYPE", "emulatedMachines": ["q35*", "pc-q35*"], "ovmfPath": "/usr/share/OVMF"},
            "arm64": {"env": "ARM64_MACHINETYPE", "emulatedMachines": ["virt*"], "ovmfPath": "/usr/share/AAVMF"},
        },
        "default_architecture": False,
        "v1_fields": False,
    },
    kubevirt_gates_always=(
        "CPUManager", "Snapshot", "HotplugVolumes", "ExpandDisks", "GPU", "HostDevices", "VMExport",
        "DisableCustomSELinuxPolicy", "KubevirtSeccompProfile", "VMPersistentState", "NetworkBindingPlugins",
        "VMLiveUpdateFeatures", "DynamicPodInterfaceNaming", "VolumesUpdateStrategy", "VolumeMigration",
    ),
    kubevirt_gates_unless_emulation=("WithHostModelCPU", "HypervStrictCheck"),
    kubevirt_gate_rules=(
        Rule("DownwardMetrics", "gate:downwardMetrics"),
        Rule("DisableMDEVConfiguration", "gate:disableMDevConfiguration"),
        Rule("PersistentReservation", "gate:persistentReservation"),
        Rule("AutoResourceLimitsGate", "gate:autoResourceLimits"),
        Rule("AlignCPUs", "gate:alignCPUs"),
    ),
    kubevirt_beta_gates=(),
    obsolete_cpu_models=("486", "pentium", "pentium2", "pentium3", "pentiumpro", "coreduo", "n270", "core2duo",
                         "Conroe", "athlon", "phenom", "qemu64", "qemu32", "kvm64", "kvm32", "Opteron_G1", "Opteron_G2"),
    tls=TLSProfiles(
        min_versions={"Old": "VersionTLS10", "Intermediate": "VersionTLS12", "Modern": "VersionTLS13"},
        ciphers={"Old": _OLD_CIPHERS, "Intermediate": _OLD_CIPHERS[:11], "Modern": _OLD_CIPHERS[:3]},
        openssl_to_iana=dict(OPENSSL_TO_IANA_TLS12),
        kubevirt_modern_object_drops_ciphers=False,
        go_cipher_ids=GO_CIPHER_IDS,
    ),
    cdi_feature_gates=("HonorWaitForFirstConsumer", "DataVolumeClaimAdoption"),
    cnao={"kube_mac_pool_ranges": False, "ipam_nad_namespace_openshift": None},
    ssp={
        "api_version": "ssp.kubevirt.io/v1beta2",
        "feature_gates": {"deployCommonInstancetypes": False},
        "cluster_architectures": False,
        "multiple_architectures": False,
    },
    aaq={"tls": False},
    common_dicts=_shipped_dicts(),
    dicts={"load_time_defaults": False, "merge_custom_metadata": False, "multi_arch": False},
    operands=("kubevirt", "cdi", "cnao", "ssp", "aaq", "priorityclass"),
    images=_NEXT.images,
)
