# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""KubeVirt (kubevirt.io/v1) as HCO builds it (HCO v1.20.0, operands.NewKubeVirt). PRIVATE."""

from __future__ import annotations

import copy
import functools
import json
import typing as t

try:
    import yaml
except ImportError:  # pragma: no cover - reported by render() with the install hint
    yaml = None  # type: ignore[assignment]

from ..._common.errors import BuildError
from ..view import HCView
from . import common, passt_binding

NAME = "kubevirt-kubevirt-hyperconverged"
PARITY_ANNOTATION = "alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity"
TUNING_ANNOTATION = "hco.kubevirt.io/tuningPolicy"
NRI_READY_CONDITION = "VirtNetworkResourcesInjectorReady"


def _condition_holds(view: HCView, when: str) -> bool:
    kind, _separator, argument = when.partition(":")
    if kind == "gate":
        return view.gate(argument)
    if kind == "not-gate":
        return not view.gate(argument)
    if kind == "annotation":
        return view.annotation_true(argument)
    if kind == "workload-arch":
        return argument in view.facts.workload_architectures
    if kind == "hypervisors":
        return bool(view.spec.get("hypervisors"))
    if kind == "role-aggregation":
        return view.spec.get("roleAggregationStrategy") is not None
    if kind == "network-resources-injector-ready":
        conditions = view.status.get("conditions") or []
        ready = any(c.get("type") == NRI_READY_CONDITION and c.get("status") == "True" for c in conditions)
        return view.v1.deploy_network_resources_injector and ready
    raise ValueError(f"unknown gate condition {when!r} in the release profile")


def feature_gates(view: HCView) -> tuple[list[str], list[str]]:
    """(featureGates, disabledFeatureGates) of developerConfiguration."""
    profile = view.profile
    gates = list(profile.kubevirt_gates_always)
    if not view.env.kvm_emulation:
        gates.extend(profile.kubevirt_gates_unless_emulation)
    for rule in profile.kubevirt_gate_rules:
        if rule.gate not in gates and _condition_holds(view, rule.when):
            gates.append(rule.gate)
    if profile.kubevirt["sort_gates"]:
        gates.sort()
    disabled = [g for g in profile.kubevirt_beta_gates if g not in gates]
    return gates, disabled


def _developer_configuration(view: HCView) -> dict[str, t.Any]:
    spec = view.spec
    gates, disabled = feature_gates(view)
    result: dict[str, t.Any] = {}
    if gates:
        result["featureGates"] = gates
    if disabled:
        result["disabledFeatureGates"] = disabled
    result["diskVerification"] = {"memoryLimit": "2G"}
    density = spec.get("higherWorkloadDensity")
    if density and density.get("memoryOvercommitPercentage"):
        result["memoryOvercommit"] = density["memoryOvercommitPercentage"]
    ratio = (spec.get("resourceRequirements") or {}).get("vmiCPUAllocationRatio")
    if ratio:
        result["cpuAllocationRatio"] = ratio
    verbosity = (spec.get("logVerbosityConfig") or {}).get("kubevirt")
    if verbosity is not None:
        result["logVerbosity"] = common.omit_empty(copy.deepcopy(verbosity))
    if view.env.kvm_emulation:
        result["useEmulation"] = True
    return result


def _migrations(view: HCView) -> dict[str, t.Any]:
    source = view.spec.get("liveMigrationConfig") or {}
    result: dict[str, t.Any] = {}
    if source.get("bandwidthPerMigration") is not None:
        result["bandwidthPerMigration"] = common.quantity(
            source["bandwidthPerMigration"], "spec.liveMigrationConfig.bandwidthPerMigration"
        )
    for key in ("completionTimeoutPerGiB", "parallelMigrationsPerCluster", "parallelOutboundMigrationsPerNode",
                "progressTimeout", "network", "allowAutoConverge", "allowPostCopy", "allowWorkloadDisruption"):
        if source.get(key) is not None:
            result[key] = source[key]
    return result


def _network(view: HCView) -> dict[str, t.Any]:
    bindings: dict[str, t.Any] = {}
    for name, plugin in (view.spec.get("networkBinding") or {}).items():
        entry = common.omit_empty({k: v for k, v in plugin.items() if k != "computeResourceOverhead"})
        if "migration" in plugin and plugin["migration"] is not None:
            entry["migration"] = common.omit_empty(dict(plugin["migration"]))
        overhead = plugin.get("computeResourceOverhead")
        if overhead is not None:
            entry["computeResourceOverhead"] = common.resource_requirements(
                overhead, f"spec.networkBinding.{name}.computeResourceOverhead"
            )
        bindings[name] = entry
    bindings.update(copy.deepcopy(dict(view.profile.kubevirt["extra_bindings"])))
    if view.profile.kubevirt["passt_binding"]:
        passt: dict[str, t.Any] = {"networkAttachmentDefinition": "default/primary-udn-kubevirt-binding"}
        if view.env.get("PRIMARY_UDN_SIDECAR_IMAGE"):
            passt["sidecarImage"] = view.env.get("PRIMARY_UDN_SIDECAR_IMAGE")
        passt["migration"] = {"method": "link-refresh"}
        passt["computeResourceOverhead"] = {"requests": {"memory": "500Mi"}}
        bindings["passt"] = passt
    bindings.update(passt_binding.kubevirt_binding(view))
    return {"binding": bindings, "defaultNetworkInterface": "masquerade"}


def _permitted_host_devices(source: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    result: dict[str, t.Any] = {}
    # Selector and resourceName have no omitempty in KubeVirt's types ("" is encoded); externalResourceProvider has.
    pci = [
        {"pciVendorSelector": d.get("pciDeviceSelector"), "resourceName": d.get("resourceName"),
         **common.omit_empty({"externalResourceProvider": d.get("externalResourceProvider")})}
        for d in source.get("pciHostDevices") or [] if not d.get("disabled")
    ]
    mdevs = [
        {"mdevNameSelector": d.get("mdevNameSelector"), "resourceName": d.get("resourceName"),
         **common.omit_empty({"externalResourceProvider": d.get("externalResourceProvider")})}
        for d in source.get("mediatedDevices") or [] if not d.get("disabled")
    ]
    usb = []
    for device in source.get("usbHostDevices") or []:
        if device.get("disabled"):
            continue
        entry = {"resourceName": device.get("resourceName"),
                 **common.omit_empty({"externalResourceProvider": device.get("externalResourceProvider")})}
        if device.get("selectors"):
            entry["selectors"] = [{"vendor": s.get("vendor", ""), "product": s.get("product", "")}
                                  for s in device["selectors"]]
        usb.append(entry)
    # Go's omitempty on the three lists of KubeVirt's PermittedHostDevices.
    result.update(common.omit_empty({"pciHostDevices": pci, "mediatedDevices": mdevs, "usb": usb}))
    return result


def _mediated_devices(view: HCView) -> dict[str, t.Any] | None:
    source = view.spec.get("mediatedDevicesConfiguration")
    mode = view.profile.kubevirt["mdev"]
    if mode == "v1beta1-lists":
        if source is None:
            return None
        result: dict[str, t.Any] = {}
        types = source.get("mediatedDeviceTypes") or source.get("mediatedDevicesTypes")
        if types:
            result["mediatedDeviceTypes"] = list(types)
        nodes = []
        for node in source.get("nodeMediatedDeviceTypes") or []:
            node_types = node.get("mediatedDeviceTypes") or node.get("mediatedDevicesTypes")
            nodes.append(common.omit_empty({"nodeSelector": dict(node.get("nodeSelector") or {}),
                                            "mediatedDeviceTypes": list(node_types or [])}))
        if nodes:
            result["nodeMediatedDeviceTypes"] = nodes
        return result
    enabled = view.v1.mdev_enabled
    if enabled is None and view.gate("disableMDevConfiguration"):
        enabled = False
    if source is None and enabled is None:
        return None
    result = {}
    source = source or {}
    if source.get("mediatedDeviceTypes"):
        result["mediatedDeviceTypes"] = list(source["mediatedDeviceTypes"])
    nodes = [
        common.omit_empty({"nodeSelector": dict(n.get("nodeSelector") or {}),
                           "mediatedDeviceTypes": list(n.get("mediatedDeviceTypes") or [])})
        for n in source.get("nodeMediatedDeviceTypes") or []
    ]
    if nodes:
        result["nodeMediatedDeviceTypes"] = nodes
    if enabled is not None:
        result["enabled"] = enabled
    return result


def _rate_limiters(view: HCView) -> dict[str, t.Any] | None:
    policy = view.spec.get("tuningPolicy")
    high_burst = view.profile.kubevirt["high_burst"]
    if policy == "annotation":
        raw = view.annotations.get(TUNING_ANNOTATION)
        path = f"metadata.annotations[{TUNING_ANNOTATION}]"
        if raw is None:
            raise BuildError(path, "tuning policy set but no annotation hco.kubevirt.io/tuningPolicy was found")
        try:
            decoded = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise BuildError(path, f"the tuning policy annotation is not valid JSON: {exc}") from exc
        if not isinstance(decoded, dict):
            raise BuildError(path, "the tuning policy annotation must be a JSON object with qps and burst")
        values = {k.lower(): v for k, v in decoded.items()}  # Go matches JSON keys case-insensitively
        qps, burst = values.get("qps"), values.get("burst")
        if burst is not None and (isinstance(burst, bool) or not isinstance(burst, int)):
            raise BuildError(path, f"burst must be an integer, got {burst!r}")
        if qps is not None and (isinstance(qps, bool) or not isinstance(qps, (int, float))):
            raise BuildError(path, f"qps must be a number, got {qps!r}")
        if not qps or qps <= 0:
            raise BuildError(path, "qps parameter not found or not positive in the tuning policy annotation")
        if not burst or burst <= 0:
            raise BuildError(path, "burst parameter not found or not positive in the tuning policy annotation")
        limiter = {"qps": qps, "burst": burst}
    elif policy == "highBurst" and high_burst:
        limiter = dict(high_burst)
    else:
        return None
    return {"restClient": {"rateLimiter": {"tokenBucketRateLimiter": limiter}}}


def _architectures(view: HCView) -> dict[str, t.Any] | None:
    result: dict[str, t.Any] = {}
    for arch, data in view.profile.kubevirt["architectures"].items():
        machine = view.env.get(data["env"])
        if arch == "amd64" and view.env.get("MACHINETYPE"):
            machine = view.env.get("MACHINETYPE")  # the legacy variable wins for amd64
        if not machine:
            continue
        entry: dict[str, t.Any] = {"machineType": machine}
        if data.get("ovmfPath"):
            entry["ovmfPath"] = data["ovmfPath"]
        entry["emulatedMachines"] = list(data["emulatedMachines"])
        result[arch] = entry
    if view.profile.kubevirt["default_architecture"] and view.facts.default_architecture:
        result["defaultArchitecture"] = view.facts.default_architecture
    return result or None


def _smbios(view: HCView) -> dict[str, t.Any] | None:
    raw = view.env.get("SMBIOS")
    return dict(_smbios_values(raw)) if raw else None


@functools.lru_cache(maxsize=8)
def _smbios_values(raw: str) -> tuple[tuple[str, str], ...]:
    """The SMBIOS variable's values, parsed once per text (every KubeVirt build reads it; YAML parsing is the
    dearest step of that build)."""
    try:
        parsed = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise BuildError("environment.smbios", f"cannot parse the SMBIOS environment value: {exc}") from exc
    if not isinstance(parsed, dict):
        raise BuildError("environment.smbios", "the SMBIOS environment value must be a YAML mapping")
    values = {str(k).lower(): v for k, v in parsed.items()}  # sigs.k8s.io/yaml matches keys case-insensitively
    return tuple(common.omit_empty({k: str(values[k]) for k in ("family", "product", "manufacturer", "sku", "version")
                                    if values.get(k) is not None}).items())


def _infra(view: HCView) -> dict[str, t.Any] | None:
    placement = view.infra
    facts = view.facts
    multi_node = facts.control_plane_nodes >= view.profile.kubevirt["infra_multi_node_min_cp"]
    # HCO 1.16 to 1.18 (IsControlPlaneHighlyAvailable): two control-plane nodes and an arbiter count as three.
    if view.profile.kubevirt.get("infra_arbiter_counts") and facts.control_plane_nodes >= 2 and facts.arbiter_nodes:
        multi_node = True
    if placement is None and multi_node:
        return None
    if placement is None and not facts.control_plane_exists:
        result: dict[str, t.Any] = {"nodePlacement": {}}
        if not facts.infrastructure_highly_available:
            result["replicas"] = 1
        return result
    result = {}
    if not multi_node:
        result["replicas"] = 1
    if placement is not None:
        result["nodePlacement"] = common.placement(placement)
    return result


def _configuration(view: HCView) -> dict[str, t.Any]:
    spec = view.spec
    kv_profile = view.profile.kubevirt
    config: dict[str, t.Any] = {
        "developerConfiguration": _developer_configuration(view),
        "migrations": _migrations(view),
        "network": _network(view),
        "seccompConfiguration": {
            "virtualMachineInstanceProfile": {"customProfile": {"localhostProfile": "kubevirt/kubevirt.json"}}
        },
        "vmRolloutStrategy": "LiveUpdate",
        "tlsConfiguration": _tls(view),
    }
    if spec.get("permittedHostDevices") is not None:
        config["permittedHostDevices"] = _permitted_host_devices(spec["permittedHostDevices"])
    mdev = _mediated_devices(view)
    if mdev is not None:
        config["mediatedDevicesConfiguration"] = mdev
    if kv_profile["persistent_reservation"] == "v1-field":
        enabled = view.v1.persistent_reservation_enabled
        if enabled is None and view.gate("persistentReservation"):
            enabled = True
        if enabled is not None:
            config["persistentReservationConfiguration"] = {"enabled": enabled}
    config.update(_cpu_models(view))
    for source, target in (("defaultCPUModel", "cpuModel"), ("defaultRuntimeClass", "defaultRuntimeClass"),
                           ("vmStateStorageClass", "vmStateStorageClass"), ("evictionStrategy", "evictionStrategy"),
                           ("roleAggregationStrategy", "roleAggregationStrategy")):
        if spec.get(source):
            config[target] = spec[source]
    vm_options = spec.get("virtualMachineOptions") or {}
    options: dict[str, dict[str, t.Any]] = {k: {} for k in ("disableFreePageReporting", "disableSerialConsoleLog") if vm_options.get(k)}
    if options:
        config["virtualMachineOptions"] = options
    limiter = _rate_limiters(view)
    if limiter is not None:
        for key in ("apiConfiguration", "webhookConfiguration", "controllerConfiguration", "handlerConfiguration"):
            config[key] = copy.deepcopy(limiter)
    config.update(_passed_through(view))
    architectures = _architectures(view)
    if architectures is not None:
        config["architectureConfiguration"] = architectures
    smbios = _smbios(view)
    if smbios is not None:
        config["smbios"] = smbios
    return config


def _cpu_models(view: HCView) -> dict[str, t.Any]:
    """The release's obsolete CPU models and the user's, and the minimum CPU model where the release has it."""
    spec = view.spec
    config: dict[str, t.Any] = {}
    obsolete = dict.fromkeys(view.profile.obsolete_cpu_models, True)
    obsolete.update(dict.fromkeys((spec.get("obsoleteCPUs") or {}).get("cpuModels") or [], True))
    config["obsoleteCPUModels"] = obsolete
    if view.profile.kubevirt["min_cpu_model"] and (spec.get("obsoleteCPUs") or {}).get("minCPUModel"):
        config["minCPUModel"] = spec["obsoleteCPUs"]["minCPUModel"]
    return config


def _passed_through(view: HCView) -> dict[str, t.Any]:
    """HyperConverged fields KubeVirt takes as they are (some under another name)."""
    spec = view.spec
    config: dict[str, t.Any] = {}
    for source, target in (("ksmConfiguration", "ksmConfiguration"),
                           ("changedBlockTrackingLabelSelectors", "changedBlockTrackingLabelSelectors"),
                           ("instancetypeConfig", "instancetype"),
                           ("CommonInstancetypesDeployment", "commonInstancetypesDeployment")):
        if spec.get(source) is not None:
            config[target] = copy.deepcopy(spec[source])
    auto_cpu = (spec.get("resourceRequirements") or {}).get("autoCPULimitNamespaceLabelSelector")
    if auto_cpu is not None:
        config["autoCPULimitNamespaceLabelSelector"] = copy.deepcopy(auto_cpu)
    live_update = spec.get("liveUpdateConfiguration")
    if live_update is not None:
        update = common.omit_empty(copy.deepcopy(live_update))
        if "maxGuest" in update:
            update["maxGuest"] = common.quantity(update["maxGuest"], "spec.liveUpdateConfiguration.maxGuest")
        config["liveUpdateConfiguration"] = update
    if spec.get("hypervisors"):
        config["hypervisors"] = copy.deepcopy(spec["hypervisors"])
    return config


def _tls(view: HCView) -> dict[str, t.Any]:
    from ..tls import kubevirt_tls_configuration  # pylint: disable=import-outside-toplevel

    return kubevirt_tls_configuration(view.tls_profile, view.profile.tls)


def _workload_update_strategy(view: HCView) -> dict[str, t.Any]:
    source = view.spec.get("workloadUpdateStrategy") or {}
    result: dict[str, t.Any] = {}
    if source.get("workloadUpdateMethods"):
        result["workloadUpdateMethods"] = list(source["workloadUpdateMethods"])
    if source.get("batchEvictionSize") is not None:
        result["batchEvictionSize"] = source["batchEvictionSize"]
    if source.get("batchEvictionInterval") is not None:
        result["batchEvictionInterval"] = common.duration(
            source["batchEvictionInterval"], "spec.workloadUpdateStrategy.batchEvictionInterval"
        )
    return result


def build(view: HCView) -> dict[str, t.Any]:
    annotations = {PARITY_ANNOTATION: ""} if view.gate("alignCPUs") else None
    kubevirt = common.new_object(view, "kubevirt.io/v1", "KubeVirt", NAME, "compute", annotations=annotations)
    uninstall = view.spec.get("uninstallStrategy")
    spec: dict[str, t.Any] = {
        "uninstallStrategy": "RemoveWorkloads" if uninstall == "RemoveWorkloads" else "BlockUninstallIfWorkloadsExist",
        "certificateRotateStrategy": {"selfSigned": common.cert_config(view)},
        "configuration": _configuration(view),
        "customizeComponents": {},
        "productName": "hyperconverged-cluster",
        "productVersion": view.version,
        "productComponent": "compute",
        "serviceMonitorNamespace": view.namespace,
        "workloadUpdateStrategy": _workload_update_strategy(view),
    }
    infra = _infra(view)
    if infra is not None:
        spec["infra"] = infra
    if view.workloads is not None:
        spec["workloads"] = {"nodePlacement": common.placement(view.workloads)}
    kubevirt["spec"] = spec
    return kubevirt
