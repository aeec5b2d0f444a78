# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A ``hco.kubevirt.io/v1`` HyperConverged as the v1beta1 object HCO converts it to (HCO 1.20.0,
``api/v1beta1/conversion.go``, ``ConvertFrom``): grouped fields moved back to the spec's root, the v1-only fields
(the gate list, the mediated-device, persistent-reservation and multi-arch switches, the network-resources-injector
switch, observability) kept in the ``hco.kubevirt.io/v1-only-fields`` annotation, from which the v1 conversion of the
pipeline restores them. The move table is the one rule of where each field goes. PRIVATE.
"""

from __future__ import annotations

import copy
import json
import typing as t

from .._common.errors import FieldError
from .conversion import CONVERTED_GATES, V1_ONLY_FIELDS
from .profile import ReleaseProfile

API_VERSION = "hco.kubevirt.io/v1"
V1BETA1 = "hco.kubevirt.io/v1beta1"

#: (v1 path under spec, v1beta1 path under spec): plain moves (convertVirtualizationV1ToV1beta1 and its siblings).
MOVES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("deployment", "nodePlacements", "infra"), ("infra", "nodePlacement")),
    (("deployment", "nodePlacements", "workload"), ("workloads", "nodePlacement")),
    (("deployment", "uninstallStrategy"), ("uninstallStrategy",)),
    (("deployment", "logVerbosityConfig"), ("logVerbosityConfig",)),
    (("deployment", "deployVmConsoleProxy"), ("deployVmConsoleProxy",)),
    (("virtualization", "tuningPolicy"), ("tuningPolicy",)),
    (("virtualization", "liveMigrationConfig"), ("liveMigrationConfig",)),
    (("virtualization", "permittedHostDevices"), ("permittedHostDevices",)),
    (("virtualization", "workloadUpdateStrategy"), ("workloadUpdateStrategy",)),
    (("virtualization", "obsoleteCPUModels"), ("obsoleteCPUs", "cpuModels")),
    (("virtualization", "evictionStrategy"), ("evictionStrategy",)),
    (("virtualization", "virtualMachineOptions", "disableFreePageReporting"),
     ("virtualMachineOptions", "disableFreePageReporting")),
    (("virtualization", "virtualMachineOptions", "disableSerialConsoleLog"),
     ("virtualMachineOptions", "disableSerialConsoleLog")),
    (("virtualization", "virtualMachineOptions", "defaultCPUModel"), ("defaultCPUModel",)),
    (("virtualization", "virtualMachineOptions", "defaultRuntimeClass"), ("defaultRuntimeClass",)),
    (("virtualization", "higherWorkloadDensity"), ("higherWorkloadDensity",)),
    (("virtualization", "liveUpdateConfiguration"), ("liveUpdateConfiguration",)),
    (("virtualization", "ksmConfiguration"), ("ksmConfiguration",)),
    (("virtualization", "changedBlockTrackingLabelSelectors"), ("changedBlockTrackingLabelSelectors",)),
    (("virtualization", "hypervisors"), ("hypervisors",)),
    (("virtualization", "roleAggregationStrategy"), ("roleAggregationStrategy",)),
    (("virtualization", "vmiCPUAllocationRatio"), ("resourceRequirements", "vmiCPUAllocationRatio")),
    (("virtualization", "autoCPULimitNamespaceLabelSelector"),
     ("resourceRequirements", "autoCPULimitNamespaceLabelSelector")),
    (("storage", "vmStateStorageClass"), ("vmStateStorageClass",)),
    (("storage", "scratchSpaceStorageClass"), ("scratchSpaceStorageClass",)),
    (("storage", "storageImport"), ("storageImport",)),
    (("storage", "filesystemOverhead"), ("filesystemOverhead",)),
    (("storage", "workloadResourceRequirements"), ("resourceRequirements", "storageWorkloads")),
    (("security", "certConfig"), ("certConfig",)),
    (("security", "tlsSecurityProfile"), ("tlsSecurityProfile",)),
    (("networking", "networkBinding"), ("networkBinding",)),
    (("networking", "kubeMacPoolConfiguration"), ("kubeMacPoolConfiguration",)),
    (("networking", "kubeSecondaryDNSNameServerIP"), ("kubeSecondaryDNSNameServerIP",)),
    (("workloadSources", "commonTemplatesNamespace"), ("commonTemplatesNamespace",)),
    (("workloadSources", "commonBootImageNamespace"), ("commonBootImageNamespace",)),
    (("workloadSources", "enableCommonBootImageImport"), ("enableCommonBootImageImport",)),
    (("workloadSources", "dataImportCronTemplates"), ("dataImportCronTemplates",)),
    (("workloadSources", "instancetypeConfig"), ("instancetypeConfig",)),
    (("workloadSources", "commonInstancetypesDeployment"), ("CommonInstancetypesDeployment",)),
)
#: v1 groups whose every field the table or the special cases below place.
GROUPS = ("deployment", "virtualization", "storage", "security", "networking", "workloadSources")


def _get(source: t.Mapping[str, t.Any], path: tuple[str, ...]) -> tuple[bool, t.Any]:
    value: t.Any = source
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return False, None
        value = value[key]
    return True, value


def _set(target: dict[str, t.Any], path: tuple[str, ...], value: t.Any) -> None:
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = copy.deepcopy(value)


def admitted(hyperconverged: t.Any, profile: ReleaseProfile,
             errors: list[FieldError]) -> tuple[t.Any, bool, list[str]]:
    """(the object the v1beta1 pipeline reads, whether it came as v1, the v1 fields the release pruned). A v1 object
    under a release that does not serve v1 is refused here (appended to ``errors``) and read with an empty spec:
    reading its v1 spec as v1beta1 would only add problems of the wrong version."""
    if not isinstance(hyperconverged, dict) or hyperconverged.get("apiVersion") != API_VERSION:
        return hyperconverged, False, []
    if not profile.v1_served:
        errors.append(FieldError("apiVersion", f"the {profile.name} profile (HCO {profile.hco_version}) serves "
                                               f"{V1BETA1} only: write the v1beta1 HyperConverged, or choose a "
                                               f"release that serves v1 (1.18 on)", "input"))
        return {**hyperconverged, "apiVersion": V1BETA1, "spec": {}}, False, []
    rules = profile.v1_input
    kept, dropped = pruned(hyperconverged, rules.get("unknown", ()))
    return to_v1beta1(kept, bool(rules.get("drops_high_burst"))), True, dropped


def pruned(hyperconverged: t.Mapping[str, t.Any], unknown: t.Iterable[str]) -> tuple[dict[str, t.Any], list[str]]:
    """The object without the v1 fields the release's v1 schema lacks (``unknown``, dotted paths under spec), and
    the paths it dropped (``spec.…``), as the API server prunes them."""
    result = copy.deepcopy(dict(hyperconverged))
    dropped = []
    for path in unknown:
        *parents, last = path.split(".")
        node = result.get("spec")
        for key in parents:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and last in node:
            del node[last]
            dropped.append(f"spec.{path}")
    return result, dropped


def to_v1beta1(hyperconverged: t.Mapping[str, t.Any], drops_high_burst: bool = False) -> dict[str, t.Any]:
    """The v1beta1 object of a v1 one. Keys outside the known groups stay at the spec's root, where the v1beta1
    schema prunes and reports them. ``drops_high_burst``: the release's v1 mutating webhook removes the deprecated
    ``highBurst`` tuning policy (HCO v1.18.1, ``mutateTuningPolicy``)."""
    given = hyperconverged.get("spec")
    v1_spec: dict[str, t.Any] = given if isinstance(given, dict) else {}
    spec: dict[str, t.Any] = {k: copy.deepcopy(v) for k, v in v1_spec.items()
                              if k not in GROUPS and k not in ("featureGates", "observability")}
    for source, target in MOVES:
        found, value = _get(v1_spec, source)
        if found and value is not None:
            _set(spec, target, value)
    if drops_high_burst and spec.get("tuningPolicy") == "highBurst":
        del spec["tuningPolicy"]
    only: dict[str, t.Any] = {}
    gates = v1_spec.get("featureGates")
    if isinstance(gates, list) and gates:
        only["featureGates"] = copy.deepcopy(gates)
        for gate in gates:   # convert_v1_FeatureGates_To_v1beta1: the gates v1beta1 still has as booleans
            name = gate.get("name") if isinstance(gate, dict) else None
            if name in CONVERTED_GATES:
                spec.setdefault("featureGates", {})[name] = gate.get("state", "Enabled") != "Disabled"
    mdev = _get(v1_spec, ("virtualization", "mediatedDevicesConfiguration"))[1]
    if isinstance(mdev, dict):
        spec["mediatedDevicesConfiguration"] = {k: copy.deepcopy(v) for k, v in mdev.items() if k != "enabled"}
        if mdev.get("enabled") is not None:
            spec.setdefault("featureGates", {})["disableMDevConfiguration"] = not mdev["enabled"]
            only["mdevConfigEnable"] = mdev["enabled"]
    reservation = _get(v1_spec, ("storage", "persistentReservationConfiguration", "enabled"))[1]
    if reservation is not None:
        spec.setdefault("featureGates", {})["persistentReservation"] = reservation
        only["persistentReservationEnabled"] = reservation
    multi_arch = _get(v1_spec, ("workloadSources", "enableMultiArchBootImageImport"))[1]
    if multi_arch is not None:
        spec.setdefault("featureGates", {})["enableMultiArchBootImageImport"] = multi_arch
        only["multiArchEnabled"] = multi_arch
    quota = _get(v1_spec, ("deployment", "applicationAwareConfig"))[1]
    if isinstance(quota, dict):
        spec["applicationAwareConfig"] = {k: copy.deepcopy(v) for k, v in quota.items() if k != "enable"}
        if quota.get("enable") is not None:
            spec["enableApplicationAwareQuota"] = quota["enable"]
    injector = _get(v1_spec, ("deployment", "deployNetworkResourcesInjector"))[1]
    if injector is not None:
        only["deployNetworkResourcesInjector"] = injector
    if v1_spec.get("observability") is not None:
        only["observability"] = copy.deepcopy(v1_spec["observability"])
    given_metadata = hyperconverged.get("metadata")
    metadata: dict[str, t.Any] = copy.deepcopy(given_metadata) if isinstance(given_metadata, dict) else {}
    if only:
        metadata.setdefault("annotations", {})[V1_ONLY_FIELDS] = json.dumps(only, separators=(",", ":"))
    result = {**copy.deepcopy(dict(hyperconverged)), "apiVersion": V1BETA1, "metadata": metadata,
              "spec": spec}
    return result
