# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release profile of HCO v1.15.2 (tag v1.15.2 @ c8bb5aa9; KubeVirt v1.5.2, CDI v1.62.0, CNAO v0.98.2,
SSP v0.23.1, AAQ v1.4.0).

v1beta1 only. 1.15 moved ``enableCommonBootImageImport``, ``deployVmConsoleProxy`` and
``enableApplicationAwareQuota`` from featureGates to the spec and added ``instancetypeConfig`` and
``CommonInstancetypesDeployment``; it deploys neither wasp-agent nor the passt CNI, and its SSP is v1beta2. Built on
1.16's profile; each difference was found by running the tag's own code on the golden cases
(the test suite's golden files for this release). PRIVATE.
"""

from __future__ import annotations

import dataclasses

from ..profile import KubeVirtGateRule as Rule
from ..profile import earlier_crd
from .hco_1_14 import PROFILE as _SEED
from .hco_1_16 import FEATURE_GATES as _NEXT_GATES
from .hco_1_16 import PROFILE as _NEXT

FEATURE_GATES = {name: default for name, default in _NEXT_GATES.items()
                 if name not in ("decentralizedLiveMigration", "declarativeHotplugVolumes",
                                 "enableMultiArchBootImageImport")}

GATE_RULES = (
    Rule("DownwardMetrics", "gate:downwardMetrics"),
    Rule("DisableMDEVConfiguration", "gate:disableMDevConfiguration"),
    Rule("PersistentReservation", "gate:persistentReservation"),
    Rule("AlignCPUs", "gate:alignCPUs"),
)

PROFILE = dataclasses.replace(
    _NEXT,
    name="1.15",
    hco_version="1.15.2",
    summary="HCO v1.15.2: v1beta1 only; KubeVirt v1.5.2, CDI v1.62.0, CNAO v0.98.2, SSP v0.23.1, AAQ v1.4.0",
    crd=earlier_crd(_NEXT, FEATURE_GATES, memory_overcommit_minimum=1,
                    excluded_fields=["changedBlockTrackingLabelSelectors", "hypervisors", "kubeMacPoolConfiguration",
                                     "liveUpdateConfiguration", "roleAggregationStrategy"]),
    env_defaults={
        **{name: value for name, value in _NEXT.env_defaults.items()
           if name not in ("PASST_SIDECAR_IMAGE", "PASST_CNI_IMAGE")},
        "HCO_KV_IO_VERSION": "1.15.2",
    },
    kubevirt_gates_always=("CPUManager", "Snapshot", "HotplugVolumes", "ExpandDisks", "HostDevices", "VMExport",
                           "KubevirtSeccompProfile", "VMPersistentState", "InstancetypeReferencePolicy"),
    kubevirt_gate_rules=GATE_RULES,
    kubevirt={**_NEXT.kubevirt, "passt_annotation_binding": None},
    ssp=_SEED.ssp,
    cnao={**_NEXT.cnao, "ipam_nad_namespace_openshift": None},
    operands=tuple(o for o in _NEXT.operands if o not in ("wasp_agent", "passt_binding")),
    images={
        **{name: value for name, value in _NEXT.images.items() if name != "WASP_AGENT_IMAGE"},
        "KV_CONSOLE_PLUGIN_IMAGE": "quay.io/kubevirt-ui/kubevirt-plugin@sha256:"
                                   "9656716bf6aca3ae2b81d28de6d228c1797d3f81934ccd862854be62a895cc2a",
    },
)
