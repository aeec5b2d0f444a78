# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Presets from the KubeVirt-on-bare-metal guides, expressed on the HyperConverged.

Where HCO has a field, the preset sets it; where it has none (KubeVirt feature gates outside HCO's list, KubeVirt
monitorNamespace/monitorAccount), it adds operations to HCO's jsonpatch annotations, so HCO keeps the settings
(and counts them as unsafe modifications). In standalone mode the same annotations are applied by the engine when
it renders the operands, so both modes produce the same operands.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import copy
import json
import typing as t

from .._common.errors import FieldError
from .._common.golang import GoSyntaxError, quantity_value
from .._common.names import DNS1123_SUBDOMAIN
from .._prereqs.common import PrerequisiteError

KUBEVIRT_JSONPATCH = "kubevirt.kubevirt.io/jsonpatch"
CDI_JSONPATCH = "containerizeddataimporter.kubevirt.io/jsonpatch"
INSTANCETYPE_API = "instancetype.kubevirt.io/v1beta1"
TOPOLOGIES = ("preferSockets", "preferCores", "preferThreads", "preferSpread", "preferAny")

PRESETS: dict[str, dict[str, t.Any]] = {
    # KubeVirt cloud provider guide for Kubermatic KKP.
    "kkp": {
        "kubevirt_feature_gates": ["ExperimentalIgnitionSupport", "DataVolumes", "LiveMigration", "CPUManager",
                                   "CPUNodeDiscovery", "Sidecar", "Snapshot", "HotplugVolumes"],
        "cdi_feature_gates_with_local_storage": ["HonorWaitForFirstConsumer"],
        "monitoring": {"namespace": "monitoring", "account": "prometheus-k8s"},
        "instancetypes": [{"name": "standard-2", "cpus": 2, "memory": "8Gi"},
                          {"name": "standard-4", "cpus": 4, "memory": "16Gi"},
                          {"name": "standard-8", "cpus": 8, "memory": "32Gi"}],
        "preferences": [{"name": "sockets-advantage", "preferred_topology": "preferSockets"}],
        "vm_topology_spread": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                "whenUnsatisfiable": "ScheduleAnyway"}],
    },
}


def expand(name: str, hyperconverged: t.Mapping[str, t.Any], *, rendered: t.Mapping[str, t.Any],
           local_storage: bool = False, monitor_namespace: str | None = None,
           monitor_account: str | None = None) -> dict[str, t.Any]:
    """The HyperConverged with the preset applied, the extra objects, and what went where.

    ``rendered`` maps kind -> operand as the engine renders the HyperConverged without the preset, so only what
    HCO does not already set is added.
    """
    if name not in PRESETS:
        raise PrerequisiteError([FieldError("preset", f"unknown preset {name!r}; known: {', '.join(PRESETS)}",
                                            "input")])
    preset = PRESETS[name]
    result = copy.deepcopy(dict(hyperconverged))
    annotations = result.setdefault("metadata", {}).setdefault("annotations", {})
    kubevirt = rendered.get("KubeVirt") or {}
    cdi = rendered.get("CDI") or {}
    report: dict[str, list[str]] = {"already_set_by_hco": [], "jsonpatch": [], "objects": []}

    present = set((((kubevirt.get("spec") or {}).get("configuration") or {}).get("developerConfiguration") or {})
                  .get("featureGates") or [])
    kubevirt_ops = []
    for gate in preset["kubevirt_feature_gates"]:
        if gate in present:
            report["already_set_by_hco"].append(f"KubeVirt feature gate {gate}")
        else:
            kubevirt_ops.append({"op": "add", "path": "/spec/configuration/developerConfiguration/featureGates/-",
                                 "value": gate})
            report["jsonpatch"].append(f"KubeVirt feature gate {gate}")
    monitoring = preset["monitoring"]
    for field, value in (("monitorNamespace", monitor_namespace or monitoring["namespace"]),
                         ("monitorAccount", monitor_account or monitoring["account"])):
        if (kubevirt.get("spec") or {}).get(field) == value:
            report["already_set_by_hco"].append(f"KubeVirt {field}={value}")
        else:
            kubevirt_ops.append({"op": "add", "path": f"/spec/{field}", "value": value})
            report["jsonpatch"].append(f"KubeVirt {field}={value}")
    cdi_ops = []
    if local_storage:
        cdi_gates = set(((cdi.get("spec") or {}).get("config") or {}).get("featureGates") or [])
        for gate in preset["cdi_feature_gates_with_local_storage"]:
            if gate in cdi_gates:
                report["already_set_by_hco"].append(f"CDI feature gate {gate}")
            else:
                cdi_ops.append({"op": "add", "path": "/spec/config/featureGates/-", "value": gate})
                report["jsonpatch"].append(f"CDI feature gate {gate}")
    for key, ops in ((KUBEVIRT_JSONPATCH, kubevirt_ops), (CDI_JSONPATCH, cdi_ops)):
        if ops:
            existing = json.loads(annotations[key]) if annotations.get(key) else []
            annotations[key] = json.dumps(existing + [op for op in ops if op not in existing])
    if not annotations:
        result["metadata"].pop("annotations")
    objects = instancetype_objects(preset["instancetypes"], preset["preferences"])
    report["objects"] = [f"{o['kind']} {o['metadata']['name']}" for o in objects]
    return {"hyperconverged": result, "objects": objects, "report": report,
            "vm_defaults": {"topologySpreadConstraints": copy.deepcopy(preset["vm_topology_spread"])}}


def instancetype_objects(instancetypes: t.Sequence[t.Mapping[str, t.Any]],
                         preferences: t.Sequence[t.Mapping[str, t.Any]]) -> list[dict[str, t.Any]]:
    """VirtualMachineClusterInstancetype/-Preference objects from a short list; every problem with its path."""
    errors: list[FieldError] = []
    objects: list[dict[str, t.Any]] = []
    seen: set[str] = set()
    for index, entry in enumerate(instancetypes):
        where = f"instancetypes[{index}]"
        name, cpus, memory = entry.get("name"), entry.get("cpus"), entry.get("memory")
        if not isinstance(name, str) or not DNS1123_SUBDOMAIN.match(name) or len(name) > 253:
            errors.append(FieldError(f"{where}.name", "must be a DNS subdomain name", "input"))
        elif name in seen:
            errors.append(FieldError(f"{where}.name", f"duplicate name {name}", "input"))
        seen.add(str(name))
        if isinstance(cpus, bool) or not isinstance(cpus, int) or cpus < 1:
            errors.append(FieldError(f"{where}.cpus", "must be an integer of at least 1", "input"))
        try:
            positive = quantity_value(memory) > 0
        except (GoSyntaxError, ArithmeticError):
            positive = False
        if not positive:
            errors.append(FieldError(f"{where}.memory", f"{memory!r} is not a positive memory quantity", "input"))
        spec: dict[str, t.Any] = {"cpu": {"guest": cpus}, "memory": {"guest": memory}}
        if entry.get("hugepages"):
            spec["memory"]["hugepages"] = {"pageSize": entry["hugepages"]}
        objects.append({"apiVersion": INSTANCETYPE_API, "kind": "VirtualMachineClusterInstancetype",
                        "metadata": {"name": name}, "spec": spec})
    for index, entry in enumerate(preferences):
        where = f"preferences[{index}]"
        name, topology = entry.get("name"), entry.get("preferred_topology", "preferSockets")
        if not isinstance(name, str) or not DNS1123_SUBDOMAIN.match(name):
            errors.append(FieldError(f"{where}.name", "must be a DNS subdomain name", "input"))
        if topology not in TOPOLOGIES:
            errors.append(FieldError(f"{where}.preferred_topology", f"must be one of {', '.join(TOPOLOGIES)}",
                                     "input"))
        objects.append({"apiVersion": INSTANCETYPE_API, "kind": "VirtualMachineClusterPreference",
                        "metadata": {"name": name}, "spec": {"cpu": {"preferredCPUTopology": topology}}})
    if errors:
        raise PrerequisiteError(errors)
    return objects
