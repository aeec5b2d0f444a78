# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release profile of HCO v1.16.0 (tag v1.16.0 @ 9d801ab1; KubeVirt v1.6.2, CDI v1.63.1, CNAO v0.100.2,
SSP v0.24.1, AAQ v1.6.0).

v1beta1 only; the first release that deploys wasp-agent itself and the passt binding CNI on request. Differences
from 1.17, each found by running the tag's own code on the test suite's golden cases: no MigController,
no s390x machine type in the CSV, ``VMPersistentState`` and ``InstancetypeReferencePolicy`` among the fixed gates,
``minCPUModel`` still passed to KubeVirt, no default ``ksmConfiguration``, no ``kubeMacPoolConfiguration`` field,
no highBurst warning, the console under the "default" ServiceAccount, wasp-agent's first DaemonSet, an arbiter
that does not count as a control-plane node, and ``creationTimestamp: null`` in embedded metadata. PRIVATE.
"""

from __future__ import annotations

import dataclasses

from ..profile import KubeVirtGateRule as Rule
from ..profile import earlier_crd
from .hco_1_17 import FEATURE_GATES as _NEXT_GATES
from .hco_1_17 import PROFILE as _NEXT

FEATURE_GATES = {name: default for name, default in _NEXT_GATES.items() if name not in ("objectGraph", "videoConfig")}

#: getFeatureGateChecks at v1.16.0, in its order.
GATE_RULES = (
    Rule("DownwardMetrics", "gate:downwardMetrics"),
    Rule("DisableMDEVConfiguration", "gate:disableMDevConfiguration"),
    Rule("PersistentReservation", "gate:persistentReservation"),
    Rule("AlignCPUs", "gate:alignCPUs"),
    Rule("DecentralizedLiveMigration", "gate:decentralizedLiveMigration"),
    Rule("MultiArchitecture", "gate:enableMultiArchBootImageImport"),
    Rule("DeclarativeHotplugVolumes", "gate:declarativeHotplugVolumes"),
    Rule("HotplugVolumes", "not-gate:declarativeHotplugVolumes"),
    Rule("PasstIPStackMigration", "annotation:hco.kubevirt.io/deployPasstNetworkBinding"),
)

PROFILE = dataclasses.replace(
    _NEXT,
    name="1.16",
    hco_version="1.16.0",
    summary="HCO v1.16.0: v1beta1 only; KubeVirt v1.6.2, CDI v1.63.1, CNAO v0.100.2, SSP v0.24.1, AAQ v1.6.0",
    crd=earlier_crd(_NEXT, FEATURE_GATES,
                    vmi_calc_config_names=["VmiPodUsage", "VirtualResources", "DedicatedVirtualResources",
                                           "IgnoreVmiCalculator"],
                    excluded_fields=["changedBlockTrackingLabelSelectors", "hypervisors", "kubeMacPoolConfiguration",
                                     "roleAggregationStrategy"]),
    env_defaults={
        **_NEXT.env_defaults,
        "HCO_KV_IO_VERSION": "1.16.0",
        "S390X_MACHINETYPE": None,
        "PASST_SIDECAR_IMAGE": "quay.io/kubevirt/network-passt-binding@sha256:"
                               "11cf7036b49f30c4f6b5c28feb274ea231533df981a58fce9e191f9f815f0a1c",
        "PASST_CNI_IMAGE": "quay.io/kubevirt/network-passt-binding-cni@sha256:"
                           "8e9a0fe4c0096abfea49f4eb36038842621bcb770ab6358ff5a6315016b6a243",
    },
    mutator={**_NEXT.mutator, "ksm_default_on_create": False},
    webhook={**_NEXT.webhook, "high_burst_warning": False},
    kubevirt={**_NEXT.kubevirt, "min_cpu_model": True, "infra_arbiter_counts": False},
    kubevirt_gates_always=("CPUManager", "Snapshot", "ExpandDisks", "HostDevices", "VMExport",
                           "KubevirtSeccompProfile", "VMPersistentState", "InstancetypeReferencePolicy"),
    kubevirt_gate_rules=GATE_RULES,
    cnao={**_NEXT.cnao, "kube_mac_pool_ranges": False},
    operands=tuple(o for o in _NEXT.operands if o != "migcontroller"),
    images={
        **_NEXT.images,
        "KV_CONSOLE_PLUGIN_IMAGE": "quay.io/kubevirt-ui/kubevirt-plugin@sha256:"
                                   "89269df1481bed69cac7095c8d8d875acbfa238e4b5735ab802cda90c9375a1b",
        "KV_CONSOLE_PROXY_IMAGE": "quay.io/kubevirt-ui/kubevirt-apiserver-proxy@sha256:"
                                  "935475c2850466aa5ac57e4de627fb177515cb2c402a95842ead095d82b6df5f",
        "WASP_AGENT_IMAGE": "quay.io/openshift-virtualization/wasp-agent@sha256:"
                            "eabfa6a425213f520f7a9e5b81b43e8b6430779d42c5c8b1bfd48a4f1730447a",
    },
    first_daemonsets=True,
    console_service_accounts=False,
    null_creation_timestamps=True,
)
