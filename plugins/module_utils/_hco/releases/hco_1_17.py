# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release profile of HCO v1.17.3 (tag v1.17.3 @ f17da29e; KubeVirt v1.7.4, CDI v1.64.0, CNAO v0.101.2,
SSP v0.24.1, AAQ v1.6.0).

v1beta1 only. Differences from 1.18, each found by running the tag's own code on the test suite's golden cases: no
``LiveUpdateNADRef`` gate, ``disableMDevConfiguration`` still a KubeVirt gate,
``enableMultiArchBootImageImport`` turns on ``MultiArchitecture``, the passt annotation turns on
``PasstIPStackMigration``, no default architecture, a MigController without TLS profile, and wasp-agent deployed
whatever the autopilot annotation says. PRIVATE.
"""

from __future__ import annotations

import copy
import dataclasses

from ..profile import KubeVirtGateRule as Rule
from ..profile import earlier_crd
from .hco_1_18 import FEATURE_GATES as _NEXT_GATES
from .hco_1_18 import PROFILE as _NEXT

FEATURE_GATES = {name: default for name, default in _NEXT_GATES.items()
                 if name not in ("containerPathVolumes", "incrementalBackup")}
FEATURE_GATES["decentralizedLiveMigration"] = False

#: getFeatureGateChecks at v1.17.3, in its order.
GATE_RULES = (
    Rule("DownwardMetrics", "gate:downwardMetrics"),
    Rule("DisableMDEVConfiguration", "gate:disableMDevConfiguration"),
    Rule("PersistentReservation", "gate:persistentReservation"),
    Rule("AlignCPUs", "gate:alignCPUs"),
    Rule("VideoConfig", "gate:videoConfig"),
    Rule("ObjectGraph", "gate:objectGraph"),
    Rule("DecentralizedLiveMigration", "gate:decentralizedLiveMigration"),
    Rule("MultiArchitecture", "gate:enableMultiArchBootImageImport"),
    Rule("DeclarativeHotplugVolumes", "gate:declarativeHotplugVolumes"),
    Rule("HotplugVolumes", "not-gate:declarativeHotplugVolumes"),
    Rule("PasstIPStackMigration", "annotation:hco.kubevirt.io/deployPasstNetworkBinding"),
    Rule("SecureExecution", "workload-arch:s390x"),
)


def _crd() -> dict:
    """1.18's table with 1.17's gates; decentralizedLiveMigration defaulted off (1.18 turned it on)."""
    crd = earlier_crd(_NEXT, FEATURE_GATES,
                      excluded_fields=["changedBlockTrackingLabelSelectors", "hypervisors", "roleAggregationStrategy"])
    crd["spec_default"]["featureGates"]["decentralizedLiveMigration"] = False
    return crd


def _shipped_dicts() -> tuple:
    """The assets' golden images: the same three, without importsToKeep (1.18 adds it when it loads them)."""
    result = []
    for entry in copy.deepcopy(_NEXT.common_dicts):
        entry["spec"].pop("importsToKeep")
        result.append(entry)
    return tuple(result)


PROFILE = dataclasses.replace(
    _NEXT,
    name="1.17",
    hco_version="1.17.3",
    summary="HCO v1.17.3: v1beta1 only; KubeVirt v1.7.4, CDI v1.64.0, CNAO v0.101.2, SSP v0.24.1, AAQ v1.6.0",
    crd=_crd(),
    env_defaults={
        **_NEXT.env_defaults,
        "HCO_KV_IO_VERSION": "1.17.3",
        "PASST_SIDECAR_IMAGE": "quay.io/kubevirt/network-passt-binding@sha256:"
                               "1c91d68bc8d4cb6d5565addf370941b8d795149299947f48a792a13a0f46fe5b",
        "PASST_CNI_IMAGE": "quay.io/kubevirt/network-passt-binding-cni@sha256:"
                           "d4b69ad996b2bc1a506d1d6c162105a0141f4b2ee33d00bc2d6d137d7d6154f8",
    },
    kubevirt={**_NEXT.kubevirt, "mdev": "v1beta1-lists", "default_architecture": False,
              "infra_arbiter_counts": True},
    kubevirt_gates_always=("CPUManager", "Snapshot", "ExpandDisks", "HostDevices", "VMExport",
                           "KubevirtSeccompProfile"),
    kubevirt_gate_rules=GATE_RULES,
    images={
        **_NEXT.images,
        "KV_CONSOLE_PLUGIN_IMAGE": "quay.io/kubevirt-ui/kubevirt-plugin@sha256:"
                                   "ab7a4a16cf77024abbd9eb0824e22dee587262648b3d16036cbd5cbb8163a42a",
    },
    mutator={**_NEXT.mutator, "dict_retention_defaults": False},
    dicts={**_NEXT.dicts, "load_time_defaults": False},
    common_dicts=_shipped_dicts(),
    aaq={"tls": False},
    console_tls=False,
    v1_served=False,
    migration_tls=False,
    wasp_autopilot_opt_out=False,
)
