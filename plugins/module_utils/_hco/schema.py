# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HyperConverged v1beta1 spec as a structural schema: defaults, pruning and checks as the API server applies
them. The spec is described here as data (like HCO's Go types and kubebuilder markers, node types in
``schema_nodes``); the release profile supplies what differs between releases. PRIVATE.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import typing as t

from .._common.errors import FieldError
from .schema_nodes import (
    MISSING,
    AnyValue,
    Arr,
    Bool,
    Int,
    MapOf,
    Node,
    Obj,
    Quantity,
    Rule,
    Str,
    shown,
)

# --- Kubernetes building blocks ------------------------------------------------------------------


def label_selector() -> Obj:
    requirement = Obj(
        fields={"key": Str(), "operator": Str(), "values": Arr(items=Str())},
        required=("key", "operator"),
    )
    return Obj(fields={"matchLabels": MapOf(values=Str()), "matchExpressions": Arr(items=requirement)})


def node_placement() -> Obj:
    return Obj(fields={"nodeSelector": MapOf(values=Str()), "affinity": AnyValue(), "tolerations": Arr(items=AnyValue())})


def data_volume_spec() -> Obj:
    """A DICT's DataVolume spec (CDI's DataVolumeSpec, as the HyperConverged CRD embeds it): the storage requests
    and limits are quantities the API server checks; the rest is passed through."""
    claim_keys = ("accessModes", "dataSource", "dataSourceRef", "selector", "storageClassName",
                  "volumeAttributesClassName", "volumeMode", "volumeName")
    claim = Obj(fields={**{k: AnyValue() for k in claim_keys},
                        "resources": Obj(fields={"limits": MapOf(values=Quantity()),
                                                 "requests": MapOf(values=Quantity())})})
    keys = ("checkpoints", "contentType", "finalCheckpoint", "preallocation", "priorityClassName",
            "serviceAccountName", "source", "sourceRef")
    return Obj(fields={**{k: AnyValue() for k in keys}, "storage": claim, "pvc": claim})


def resource_requirements() -> Obj:
    return Obj(
        fields={
            "limits": MapOf(values=Quantity()),
            "requests": MapOf(values=Quantity()),
            "claims": Arr(items=Obj(fields={"name": Str(), "request": Str()}, required=("name",))),
        }
    )


def tls_profile() -> Obj:
    versions = ("VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13")
    return Obj(
        fields={
            "type": Str(enum=("Old", "Intermediate", "Modern", "Custom")),
            "old": AnyValue(),
            "intermediate": AnyValue(),
            "modern": AnyValue(),
            "custom": Obj(fields={"ciphers": Arr(items=Str()), "minTLSVersion": Str(enum=versions)}),
        }
    )


def _both_or_neither(first: str, second: str, message: str) -> Rule:
    def rule(value: t.Any) -> str | None:
        return None if (first in value) == (second in value) else message

    return rule


def _needs_mdev_types(where: str) -> Rule:
    def rule(value: t.Any) -> str | None:
        if value.get("mediatedDeviceTypes") or value.get("mediatedDevicesTypes"):
            return None
        return f"for {where} a non-empty mediatedDeviceTypes or mediatedDevicesTypes(deprecated) is required"

    return rule


def _positive_ratio(value: t.Any) -> str | None:
    ratio = value.get("vmiCPUAllocationRatio")
    if ratio is None or (isinstance(ratio, (int, float)) and ratio > 0):
        return None
    return "vmiCPUAllocationRatio must be greater than 0"


# --- the HyperConverged v1beta1 spec ----------------------------------------------------------------

def hyperconverged_spec(crd: t.Mapping[str, t.Any]) -> Obj:
    """Build the v1beta1 spec model from a release profile's ``crd`` table."""
    # One line per top-level field, in the CRD's order, read beside its openAPIV3Schema; the larger subtrees are
    # the functions below, named after their field.
    mac = Str(pattern=r"^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$")
    overhead = Str(pattern=r"^(0(?:\.\d{1,3})?|1)$")
    gates = Obj(fields={name: Bool(default=MISSING if default is None else default)
                        for name, default in crd["feature_gates"].items()})
    fields: dict[str, Node] = {
        "CommonInstancetypesDeployment": Obj(fields={"enabled": Bool()}),
        "applicationAwareConfig": Obj(
            fields={
                "allowApplicationAwareClusterResourceQuota": Bool(default=False),
                "namespaceSelector": label_selector(),
                "vmiCalcConfigName": Str(default="DedicatedVirtualResources", enum=tuple(crd["vmi_calc_config_names"])),
            }
        ),
        "certConfig": _cert_config(crd),
        "changedBlockTrackingLabelSelectors": Obj(
            fields={"namespaceLabelSelector": label_selector(), "virtualMachineLabelSelector": label_selector()}
        ),
        "commonBootImageNamespace": Str(),
        "commonTemplatesNamespace": Str(),
        "dataImportCronTemplates": Arr(items=Obj(fields={"metadata": AnyValue(), "spec": _data_import_cron_spec(crd)})),
        "defaultCPUModel": Str(),
        "defaultRuntimeClass": Str(),
        "deployVmConsoleProxy": Bool(default=False),
        "enableApplicationAwareQuota": Bool(default=False),
        "enableCommonBootImageImport": Bool(default=True),
        "evictionStrategy": Str(enum=("None", "LiveMigrate", "LiveMigrateIfPossible", "External")),
        "featureGates": dataclasses.replace(gates, default=crd["spec_default"]["featureGates"]),
        "filesystemOverhead": Obj(fields={"global": overhead, "storageClass": MapOf(values=overhead)}),
        "higherWorkloadDensity": Obj(
            default={"memoryOvercommitPercentage": 100},
            fields={"memoryOvercommitPercentage": Int(default=100, minimum=crd["memory_overcommit_minimum"])},
        ),
        "hypervisors": Arr(items=Obj(fields={"name": Str(enum=("kvm", "hyperv-direct"))}), max_items=1),
        "infra": Obj(fields={"nodePlacement": node_placement()}),
        "instancetypeConfig": Obj(fields={"referencePolicy": Str(enum=("reference", "expand", "expandAll"))}),
        "ksmConfiguration": Obj(fields={"nodeLabelSelector": label_selector()}),
        "kubeMacPoolConfiguration": Obj(
            fields={"rangeStart": mac, "rangeEnd": mac},
            rules=(_both_or_neither("rangeStart", "rangeEnd",
                                    "both rangeStart and rangeEnd must be configured together, or both omitted"),),
        ),
        "kubeSecondaryDNSNameServerIP": Str(),
        "liveMigrationConfig": _live_migration_config(crd),
        "liveUpdateConfiguration": Obj(fields={"maxCpuSockets": Int(), "maxGuest": Quantity(), "maxHotplugRatio": Int()}),
        "localStorageClassName": Str(),
        "logVerbosityConfig": _log_verbosity_config(),
        "mediatedDevicesConfiguration": _mediated_devices_configuration(),
        "networkBinding": _network_binding(),
        "obsoleteCPUs": Obj(fields={"cpuModels": Arr(items=Str()), "minCPUModel": Str()}),
        "permittedHostDevices": _permitted_host_devices(),
        "resourceRequirements": Obj(
            default=crd["spec_default"].get("resourceRequirements", {"vmiCPUAllocationRatio": 10}),
            fields={
                "autoCPULimitNamespaceLabelSelector": label_selector(),
                "storageWorkloads": resource_requirements(),
                "vmiCPUAllocationRatio": Int(default=10, minimum=1),
            },
            rules=(_positive_ratio,),
        ),
        "roleAggregationStrategy": Str(enum=("AggregateToDefault", "Manual")),
        "scratchSpaceStorageClass": Str(),
        "storageImport": Obj(fields={"insecureRegistries": Arr(items=Str())}),
        "tektonPipelinesNamespace": Str(),
        "tektonTasksNamespace": Str(),
        "tlsSecurityProfile": tls_profile(),
        "tuningPolicy": Str(enum=("annotation", "highBurst")),
        "uninstallStrategy": Str(default="BlockUninstallIfWorkloadsExist",
                                 enum=("RemoveWorkloads", "BlockUninstallIfWorkloadsExist")),
        "vddkInitImage": Str(),
        "virtualMachineOptions": Obj(
            default=crd["spec_default"]["virtualMachineOptions"],
            fields={k: Bool(default=v) for k, v in crd["vm_options_defaults"].items()},
        ),
        "vmStateStorageClass": Str(),
        "workloadUpdateStrategy": Obj(
            default={"batchEvictionInterval": "1m0s", "batchEvictionSize": 10, "workloadUpdateMethods": ["LiveMigrate"]},
            fields={
                "batchEvictionInterval": Str(default="1m0s"),
                "batchEvictionSize": Int(default=10),
                "workloadUpdateMethods": Arr(items=Str(), default=["LiveMigrate"]),
            },
            required=("workloadUpdateMethods",),
        ),
        "workloads": Obj(fields={"nodePlacement": node_placement()}),
    }
    for name in crd.get("excluded_fields", ()):
        fields.pop(name, None)
    top_defaults = {k: v for k, v in crd["spec_default"].items() if k in fields}
    return Obj(default=top_defaults, fields=fields)


def _data_import_cron_spec(crd: t.Mapping[str, t.Any]) -> Node:
    """A dataImportCronTemplates entry's spec (CDI's DataImportCronSpec)."""
    return Obj(
        fields={
            "garbageCollect": Str(),
            "importsToKeep": Int(),
            "managedDataSource": Str(),
            "retentionPolicy": Str(),
            "schedule": Str(),
            "serviceAccountName": Str(min_length=crd.get("dict_service_account_min_length")),
            "template": Obj(
                fields={**{k: AnyValue() for k in ("apiVersion", "kind", "metadata", "status")},
                        "spec": data_volume_spec()},
                required=("spec",),
            ),
        },
        required=("managedDataSource", "schedule", "template"),
    )


def _cert_config(crd: t.Mapping[str, t.Any]) -> Node:
    """certConfig: the CA's and the server certificate's durations."""
    return Obj(
        default=crd["spec_default"]["certConfig"],
        fields={
            part: Obj(
                default=crd["spec_default"]["certConfig"][part],
                fields={k: Str(default=v) for k, v in crd["spec_default"]["certConfig"][part].items()},
            )
            for part in ("ca", "server")
        },
    )


def _live_migration_config(crd: t.Mapping[str, t.Any]) -> Node:
    """liveMigrationConfig, with the release's defaults."""
    return Obj(
        default=crd["spec_default"]["liveMigrationConfig"],
        fields={
            **{name: (Bool if isinstance(v, bool) else Int)(default=v) for name, v in crd["live_migration_defaults"].items()},
            "bandwidthPerMigration": Quantity(),
            "network": Str(),
        },
    )


def _log_verbosity_config() -> Node:
    """logVerbosityConfig: CDI's level and each KubeVirt component's."""
    return Obj(
        fields={
            "cdi": Int(),
            "kubevirt": Obj(
                fields={
                    **{k: Int() for k in ("virtAPI", "virtController", "virtHandler", "virtLauncher",
                                          "virtOperator", "virtSynchronizationController")},
                    "nodeVerbosity": MapOf(values=Int()),
                }
            ),
        }
    )


def _mediated_devices_configuration() -> Node:
    """mediatedDevicesConfiguration, cluster-wide and per node selector."""
    mdev_node = Obj(
        fields={"nodeSelector": MapOf(values=Str()), "mediatedDeviceTypes": Arr(items=Str()), "mediatedDevicesTypes": Arr(items=Str())},
        required=("nodeSelector",),
        rules=(_needs_mdev_types("nodeMediatedDeviceTypes"),),
    )
    return Obj(
        fields={
            "mediatedDeviceTypes": Arr(items=Str()),
            "mediatedDevicesTypes": Arr(items=Str()),
            "nodeMediatedDeviceTypes": Arr(items=mdev_node),
        },
        rules=(_needs_mdev_types("mediatedDevicesConfiguration"),),
    )


def _network_binding() -> Node:
    """networkBinding: the network binding plugins by name."""
    return MapOf(
        values=Obj(
            fields={
                "computeResourceOverhead": resource_requirements(),
                "domainAttachmentType": Str(),
                "downwardAPI": Str(),
                "migration": Obj(fields={"method": Str()}),
                "networkAttachmentDefinition": Str(),
                "sidecarImage": Str(),
            }
        )
    )


def _permitted_host_devices() -> Node:
    """permittedHostDevices: PCI, mediated and USB devices."""
    return Obj(
        fields={
            "pciHostDevices": Arr(
                items=Obj(
                    fields={"pciDeviceSelector": Str(), "resourceName": Str(), "externalResourceProvider": Bool(),
                            "disabled": Bool()},
                    required=("pciDeviceSelector", "resourceName"),
                )
            ),
            "mediatedDevices": Arr(
                items=Obj(
                    fields={"mdevNameSelector": Str(), "resourceName": Str(), "externalResourceProvider": Bool(),
                            "disabled": Bool()},
                    required=("mdevNameSelector", "resourceName"),
                )
            ),
            "usbHostDevices": Arr(
                items=Obj(
                    fields={
                        "resourceName": Str(),
                        "externalResourceProvider": Bool(),
                        "disabled": Bool(),
                        "selectors": Arr(items=Obj(fields={"vendor": Str(), "product": Str()}, required=("product", "vendor"))),
                    },
                    required=("resourceName",),
                )
            ),
        }
    )


def apply_structural_schema(spec_model: Obj, spec: t.Any) -> tuple[t.Any, list[str], list[FieldError]]:
    """Prune, default and check ``spec`` as the API server would. Returns (spec, pruned paths, errors)."""
    errors: list[FieldError] = []
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        errors.append(FieldError("spec", f"Invalid value: {shown(spec)}: must be of type object"))
        return {}, [], errors
    pruned: list[str] = []
    spec = spec_model.prune(spec, "spec", pruned)
    spec = spec_model.apply_defaults(spec)
    spec_model.check(spec, "spec", errors)
    return spec, pruned, errors


def suggestion(model: Node, pruned_path: str, root: str = "spec") -> str | None:
    """The known field nearest to a pruned one (``spec.liveMigrationConfg`` -> ``liveMigrationConfig``), for the
    "did you mean" of a typo; None when nothing is close."""
    segments = re.findall(r"[^.\[\]]+|\[\d+\]", pruned_path)
    if segments and segments[0] == root:
        segments = segments[1:]
    node: Node | None = model
    for segment in segments[:-1]:
        if isinstance(node, Obj):
            node = node.fields.get(segment)
        elif isinstance(node, Arr):
            node = node.items if segment.startswith("[") else None
        elif isinstance(node, MapOf):
            node = node.values
        else:
            node = None
    if not isinstance(node, Obj) or not segments:
        return None
    close = difflib.get_close_matches(segments[-1], list(node.fields), n=1, cutoff=0.75)
    return close[0] if close else None
