# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release profile of HCO 1.20.0 (main @ 03da3cff; KubeVirt v1.9.0, CDI v1.66.0, SSP v0.27.0). PRIVATE."""

from __future__ import annotations

from ..profile import KubeVirtGateRule as Rule
from ..profile import ReleaseProfile, TLSProfiles
from ..tls_data import GO_CIPHER_IDS, OPENSSL_TO_IANA_TLS12, TLS13_NAMES

_OLD_CIPHERS = TLS13_NAMES + (
    "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    "ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-SHA256", "ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA",
    "ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES256-SHA", "AES128-GCM-SHA256", "AES256-GCM-SHA384", "AES128-SHA256",
    "AES128-SHA", "AES256-SHA", "DES-CBC3-SHA",
)

_FEATURE_GATE_DEFAULTS = {
    "containerPathVolumes": False, "decentralizedLiveMigration": True, "declarativeHotplugVolumes": True,
    "deployKubeSecondaryDNS": False, "downwardMetrics": False, "incrementalBackup": False, "objectGraph": False,
}

_LIVE_MIGRATION = {
    "allowAutoConverge": False, "allowPostCopy": False, "completionTimeoutPerGiB": 20,
    "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 1, "progressTimeout": 150,
}

_CERT_CONFIG = {
    "ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"},
    "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"},
}


def _dict(name: str, source: str, url: str, size: str, arches: str) -> dict:
    return {
        "metadata": {
            "name": name,
            "annotations": {
                "cdi.kubevirt.io/storage.bind.immediate.requested": "true",
                "ssp.kubevirt.io/dict.architectures": arches,
            },
        },
        "spec": {
            "garbageCollect": "Outdated",
            "managedDataSource": source,
            "schedule": "0 */12 * * *",
            "importsToKeep": 1,
            "template": {
                "spec": {
                    "source": {"registry": {"url": url}},
                    "storage": {"resources": {"requests": {"storage": size}}},
                }
            },
        },
    }


PROFILE = ReleaseProfile(
    v1_served=True,
    name="1.20",
    hco_version="1.20.0",
    summary="HCO 1.20.0: v1 hub with v1beta1 conversion; KubeVirt v1.9.0, CDI v1.66.0, CNAO v0.102.0, SSP v0.27.0, AAQ v1.8.0",
    v1_hub=True,
    crd={
        "spec_default": {
            "certConfig": _CERT_CONFIG,
            "deployVmConsoleProxy": False,
            "enableApplicationAwareQuota": False,
            "enableCommonBootImageImport": True,
            "featureGates": _FEATURE_GATE_DEFAULTS,
            "liveMigrationConfig": _LIVE_MIGRATION,
            "resourceRequirements": {"vmiCPUAllocationRatio": 10},
            "uninstallStrategy": "BlockUninstallIfWorkloadsExist",
            "virtualMachineOptions": {"disableFreePageReporting": False, "disableSerialConsoleLog": False},
        },
        "feature_gates": {
            "alignCPUs": False, "autoResourceLimits": None, "containerPathVolumes": False,
            "decentralizedLiveMigration": True, "declarativeHotplugVolumes": True, "deployKubeSecondaryDNS": False,
            "deployKubevirtIpamController": None, "deployTektonTaskResources": None, "deployVmConsoleProxy": None,
            "disableMDevConfiguration": None, "downwardMetrics": False, "enableApplicationAwareQuota": None,
            "enableCommonBootImageImport": None, "enableManagedTenantQuota": None,
            "enableMultiArchBootImageImport": None, "incrementalBackup": False, "nonRoot": None, "objectGraph": False,
            "persistentReservation": None, "primaryUserDefinedNetworkBinding": None, "videoConfig": None,
            "withHostPassthroughCPU": None,
        },
        "live_migration_defaults": {**_LIVE_MIGRATION, "allowWorkloadDisruption": False},
        "vm_options_defaults": {"disableFreePageReporting": False, "disableSerialConsoleLog": False},
        "memory_overcommit_minimum": 10,
        "vmi_calc_config_names": ["VmiPodUsage", "VirtualResources", "DedicatedVirtualResources",
                                  "IgnoreVmiCalculator", "GuestEffectiveResources"],
        "dict_service_account_min_length": 1,
        "excluded_fields": [],
    },
    env_defaults={
        "HCO_KV_IO_VERSION": "1.20.0",
        "MACHINETYPE": "",
        "AMD64_MACHINETYPE": "q35",
        "ARM64_MACHINETYPE": "virt",
        "S390X_MACHINETYPE": "s390-ccw-virtio",
        "KVM_EMULATION": "",
        "SMBIOS": "Family: KubeVirt\nManufacturer: KubeVirt\nProduct: None\n",
        "PRIMARY_UDN_SIDECAR_IMAGE": None,
    },
    gate_phases={
        "decentralizedLiveMigration": "beta", "declarativeHotplugVolumes": "beta", "template": "beta",
        "alignCPUs": "alpha", "containerPathVolumes": "alpha", "deployKubeSecondaryDNS": "alpha",
        "deployObservabilityController": "alpha", "downwardMetrics": "alpha", "incrementalBackup": "alpha",
        "objectGraph": "alpha", "disableMDevConfiguration": "deprecated",
        "enableMultiArchBootImageImport": "deprecated", "persistentReservation": "deprecated",
    },
    switch_paths={
        "enableCommonBootImageImport": ("enableCommonBootImageImport",),
        "deployVmConsoleProxy": ("deployVmConsoleProxy",),
        "enableApplicationAwareQuota": ("enableApplicationAwareQuota",),
    },
    mutator={"dict_retention_defaults": True, "ksm_default_on_create": True},
    webhook={
        "namespace_rule": False,
        "custom_type_requires_custom": True,
        "affinity_validation": True,
        "deprecated_gates_short_circuit": False,
        "high_burst_conflicts_with_annotation": False,
        "discontinued_gates": ("withHostPassthroughCPU", "deployTektonTaskResources", "nonRoot", "enableManagedTenantQuota"),
        "moved_gates": ("enableApplicationAwareQuota", "enableCommonBootImageImport", "deployVmConsoleProxy"),
        "replaced_gates": {
            "disableMDevConfiguration": "spec.virtualization.mediatedDevicesConfiguration.enabled",
            "persistentReservation": "spec.storage.persistentReservationConfiguration.enabled",
            "enableMultiArchBootImageImport": "spec.workloadSources.enableMultiArchBootImageImport",
        },
        "high_burst_warning": True,
    },
    warnings={
        "discontinued": "spec.featureGates.{0} is deprecated and ignored. It will be removed in a future version;",
        "moved": "spec.featureGates.{0} is deprecated and ignored. It will removed in a future version; use spec.{0} instead",
        "replaced": "spec.featureGates.{0} is deprecated. Use {1} in the v1 API instead; it will be removed in a "
                    "future version.",
        "high_burst": "spec.tuningPolicy: the highBurst profile is deprecated as of v1.16.0 and will be removed in a future release",
    },
    kubevirt={
        "sort_gates": True,
        "high_burst": None,
        "min_cpu_model": False,
        "infra_multi_node_min_cp": 2,
        "mdev": "v1-enabled",
        "persistent_reservation": "v1-field",
        "extra_bindings": {"l2bridge": {"domainAttachmentType": "managedTap", "migration": {}}},
        "passt_binding": False,
        "architectures": {
            "amd64": {"env": "AMD64_MACHINETYPE", "emulatedMachines": ["q35*", "pc-q35*"]},
            "arm64": {"env": "ARM64_MACHINETYPE", "emulatedMachines": ["virt*"]},
            "s390x": {"env": "S390X_MACHINETYPE", "emulatedMachines": ["s390-ccw-virtio*"]},
        },
        "default_architecture": True,
        "v1_fields": True,
    },
    kubevirt_gates_always=("CPUManager", "Snapshot", "HostDevices", "KubevirtSeccompProfile"),
    kubevirt_gates_unless_emulation=("HypervStrictCheck",),
    kubevirt_gate_rules=(
        Rule("DownwardMetrics", "gate:downwardMetrics"),
        Rule("AlignCPUs", "gate:alignCPUs"),
        Rule("ObjectGraph", "gate:objectGraph"),
        Rule("DecentralizedLiveMigration", "gate:decentralizedLiveMigration"),
        Rule("DeclarativeHotplugVolumes", "gate:declarativeHotplugVolumes"),
        Rule("HotplugVolumes", "not-gate:declarativeHotplugVolumes"),
        Rule("PasstBinding", "annotation:hco.kubevirt.io/deployPasstNetworkBinding"),
        Rule("GraceIOVirtualization", "annotation:hco.kubevirt.io/deployAIE"),
        Rule("IOMMUFD", "annotation:hco.kubevirt.io/deployAIE"),
        Rule("PCINUMAAwareTopology", "annotation:hco.kubevirt.io/deployAIE"),
        Rule("SecureExecution", "workload-arch:s390x"),
        Rule("IncrementalBackup", "gate:incrementalBackup"),
        Rule("UtilityVolumes", "gate:incrementalBackup"),
        Rule("ConfigurableHypervisor", "hypervisors"),
        Rule("OptOutRoleAggregation", "role-aggregation"),
        Rule("ContainerPathVolumes", "gate:containerPathVolumes"),
        Rule("Template", "gate:template"),
        Rule("ExternalNetResourceInjection", "network-resources-injector-ready"),
    ),
    kubevirt_beta_gates=(
        "DeclarativeHotplugVolumes", "ExternalNetResourceInjection", "GPUsWithDRA", "HostDevicesWithDRA",
        "ImageVolume", "KubevirtSeccompProfile", "LibvirtHooksServerAndClient", "NodeRestriction",
        "OptOutRoleAggregation", "PasstBinding", "PodSecondaryInterfaceNamingUpgrade", "RebootPolicy", "Snapshot",
        "Template", "VmiMemoryOverheadReport", "WorkloadEncryptionSEV",
    ),
    obsolete_cpu_models=tuple(
        name
        for base in ("486", "pentium", "pentium2", "pentium3", "pentiumpro", "coreduo", "n270", "core2duo",
                     "Conroe", "athlon", "phenom", "qemu64", "qemu32", "kvm64", "kvm32", "Opteron_G1", "Opteron_G2")
        for name in (base, base + "-v1")
    ),
    tls=TLSProfiles(
        min_versions={"Old": "VersionTLS10", "Intermediate": "VersionTLS12", "Modern": "VersionTLS13"},
        ciphers={"Old": _OLD_CIPHERS, "Intermediate": _OLD_CIPHERS[:9], "Modern": _OLD_CIPHERS[:3]},
        openssl_to_iana={
            **{n: n for n in TLS13_NAMES},
            **OPENSSL_TO_IANA_TLS12,
            "ECDHE-RSA-DES-CBC3-SHA": "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
        },
        kubevirt_modern_object_drops_ciphers=True,
        go_cipher_ids=GO_CIPHER_IDS,
    ),
    cdi_feature_gates=("HonorWaitForFirstConsumer", "DataVolumeClaimAdoption"),
    cnao={"kube_mac_pool_ranges": True, "ipam_nad_namespace_openshift": "openshift-ovn-kubernetes"},
    ssp={
        "api_version": "ssp.kubevirt.io/v1beta3",
        "feature_gates": None,
        "cluster_architectures": True,
        "multiple_architectures": True,
    },
    aaq={"tls": True},
    common_dicts=(
        _dict("centos-stream9-image-cron", "centos-stream9", "docker://quay.io/containerdisks/centos-stream:9",
              "10Gi", "amd64,arm64,s390x"),
        _dict("centos-stream10-image-cron", "centos-stream10", "docker://quay.io/containerdisks/centos-stream:10",
              "10Gi", "amd64,arm64,s390x"),
        _dict("fedora-image-cron", "fedora", "docker://quay.io/containerdisks/fedora:latest", "5Gi",
              "arm64,s390x,amd64"),
    ),
    dicts={"load_time_defaults": True, "merge_custom_metadata": True, "multi_arch": True},
    operands=("kubevirt", "cdi", "cnao", "ssp", "aaq", "migcontroller", "filerestore", "priorityclass",
              "wasp_agent", "console", "network_resources_injector", "aie_webhook", "observability_controller"),
    images={
        "KV_CONSOLE_PLUGIN_IMAGE": (
            "quay.io/kubevirt-ui/kubevirt-plugin@sha256:9a0183d08db45d34bfe8dfd007ac7c58d57cfb1c386d0fac6d0ea780ab4cb660"),
        "KV_CONSOLE_PROXY_IMAGE": (
            "quay.io/kubevirt-ui/kubevirt-apiserver-proxy@sha256:"
            "147a0a9fbd8169bdf150242d8a7aaf4587634bf30e588639a0f854777aba62d1"),
        # The 1.20.0 CSV's pin (WASP_AGENT_VERSION v1.2.2).
        "WASP_AGENT_IMAGE": "quay.io/openshift-virtualization/wasp-agent@sha256:"
                            "daaf1bd032a32a99ef8e5c9d7d40d6732713b0cbfe49952d6d2ce5fa38e78294",
        # AIE webhook: the 1.20.0 CSV's pin at 1b9ae051, the revision whose observability-controller pin is the
        # profile commit's (below); a later revision (01cd3fae) moves the observability pin, not this one.
        "AIE_WEBHOOK_IMAGE": (
            "quay.io/kubevirt/kubevirt-aie-webhook@sha256:d45bf47b999a0b25d22db0f8355b0f063a5aa33ddf4e8ff14043b45001a0169d"),
        # Observability controller: the digest the 1.20.0 CSV pins at the profile's commit (01cd3fae has f2b52d26).
        "OBSERVABILITY_CONTROLLER_IMAGE": (
            "quay.io/kubevirt/virt-observability-controller@sha256:"
            "170a30602ba326b11b298f511553fbf479a5447632f051ed915f6af1b0e612a0"),
        "NETWORK_RESOURCES_INJECTOR_IMAGE": (
            "ghcr.io/k8snetworkplumbingwg/network-resources-injector@sha256:"
            "737225a33c418899667707a6e79668bb1a64c6b993bf7486074c5b8085d4ab7d"),
    },
)
