# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A small structural-schema model: defaults, pruning and checks as the API server applies them.

The HyperConverged v1beta1 spec is described here as data (like HCO's Go types and kubebuilder
markers); the release profile supplies what differs between releases. PRIVATE.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import re
import typing as t

from .._common.errors import FieldError, join_path
from .._common.golang import QUANTITY_PATTERN

MISSING: t.Any = object()
Rule = t.Callable[[t.Any], t.Optional[str]]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Node:
    default: t.Any = MISSING
    rules: tuple[Rule, ...] = ()

    type_name: t.ClassVar[str] = "any"

    def accepts(self, value: t.Any) -> bool:
        return True

    def check(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if not self.accepts(value):
            errors.append(FieldError(path, f"Invalid value: {_show(value)}: must be of type {self.type_name}"))
            return
        self.check_value(value, path, errors)
        for rule in self.rules:
            message = rule(value)
            if message:
                errors.append(FieldError(path, f"Invalid value: {self.type_name}: {message}"))

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        """Checks beyond the type; overridden per kind."""

    def apply_defaults(self, value: t.Any) -> t.Any:
        return value

    def prune(self, value: t.Any, path: str, pruned: list[str]) -> t.Any:
        return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class AnyValue(Node):
    """Kept as given (Kubernetes core types we pass through unchanged)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Str(Node):
    enum: tuple[str, ...] = ()
    pattern: str | None = None
    min_length: int | None = None
    type_name: t.ClassVar[str] = "string"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, str)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if self.enum and value not in self.enum:
            allowed = ", ".join(f'"{e}"' for e in self.enum)
            errors.append(FieldError(path, f'Unsupported value: "{value}": supported values: {allowed}'))
        if self.pattern is not None and not re.search(self.pattern, value):
            errors.append(FieldError(path, f'Invalid value: "{value}": should match \'{self.pattern}\''))
        if self.min_length is not None and len(value) < self.min_length:
            errors.append(FieldError(path, f'Invalid value: "{value}": should be at least {self.min_length} chars long'))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Int(Node):
    minimum: int | None = None
    type_name: t.ClassVar[str] = "integer"

    def accepts(self, value: t.Any) -> bool:
        return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if self.minimum is not None and value < self.minimum:
            errors.append(FieldError(path, f"Invalid value: {_show(value)}: should be greater than or equal to {self.minimum}"))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Bool(Node):
    type_name: t.ClassVar[str] = "boolean"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, bool)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Quantity(Node):
    """``x-kubernetes-int-or-string`` with the Kubernetes quantity pattern."""

    type_name: t.ClassVar[str] = "string"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if isinstance(value, str) and not QUANTITY_PATTERN.match(value):
            errors.append(FieldError(path, f'Invalid value: "{value}": should match \'{QUANTITY_PATTERN.pattern}\''))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Arr(Node):
    items: Node = AnyValue()
    max_items: int | None = None
    type_name: t.ClassVar[str] = "array"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, list)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if self.max_items is not None and len(value) > self.max_items:
            errors.append(FieldError(path, f"Too many: {len(value)}: must have at most {self.max_items} items"))
        for index, item in enumerate(value):
            self.items.check(item, join_path(path, index), errors)

    def apply_defaults(self, value: t.Any) -> t.Any:
        if isinstance(value, list):
            return [self.items.apply_defaults(v) for v in value]
        return value

    def prune(self, value: t.Any, path: str, pruned: list[str]) -> t.Any:
        if isinstance(value, list):
            return [self.items.prune(v, join_path(path, i), pruned) for i, v in enumerate(value)]
        return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class MapOf(Node):
    values: Node = AnyValue()
    type_name: t.ClassVar[str] = "object"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, dict)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        for key, item in value.items():
            self.values.check(item, join_path(path, key), errors)

    def apply_defaults(self, value: t.Any) -> t.Any:
        if isinstance(value, dict):
            return {k: self.values.apply_defaults(v) for k, v in value.items()}
        return value

    def prune(self, value: t.Any, path: str, pruned: list[str]) -> t.Any:
        if isinstance(value, dict):
            return {k: self.values.prune(v, join_path(path, k), pruned) for k, v in value.items()}
        return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class Obj(Node):
    fields: t.Mapping[str, Node] = dataclasses.field(default_factory=dict)
    required: tuple[str, ...] = ()
    type_name: t.ClassVar[str] = "object"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, dict)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        for name in self.required:
            if name not in value:
                errors.append(FieldError(join_path(path, name), "Required value"))
        for key, item in value.items():
            node = self.fields.get(key)
            if node is not None and item is not None:
                node.check(item, join_path(path, key), errors)

    def apply_defaults(self, value: t.Any) -> t.Any:
        if not isinstance(value, dict):
            return value
        result = dict(value)
        for name, node in self.fields.items():
            if name not in result and node.default is not MISSING:
                result[name] = copy.deepcopy(node.default)
            if name in result:
                result[name] = node.apply_defaults(result[name])
        return result

    def prune(self, value: t.Any, path: str, pruned: list[str]) -> t.Any:
        if not isinstance(value, dict):
            return value
        result = {}
        for key, item in value.items():
            node = self.fields.get(key)
            if node is None:
                pruned.append(join_path(path, key))
                continue
            # A null on a non-nullable field is dropped by the API server, like an unknown one.
            if item is None:
                continue
            result[key] = node.prune(item, join_path(path, key), pruned)
        return result


def _show(value: t.Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


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
    mac = Str(pattern=r"^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$")
    overhead = Str(pattern=r"^(0(?:\.\d{1,3})?|1)$")
    mdev_node = Obj(
        fields={"nodeSelector": MapOf(values=Str()), "mediatedDeviceTypes": Arr(items=Str()), "mediatedDevicesTypes": Arr(items=Str())},
        required=("nodeSelector",),
        rules=(_needs_mdev_types("nodeMediatedDeviceTypes"),),
    )
    dict_spec = Obj(
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
        "certConfig": Obj(
            default=crd["spec_default"]["certConfig"],
            fields={
                part: Obj(
                    default=crd["spec_default"]["certConfig"][part],
                    fields={k: Str(default=v) for k, v in crd["spec_default"]["certConfig"][part].items()},
                )
                for part in ("ca", "server")
            },
        ),
        "changedBlockTrackingLabelSelectors": Obj(
            fields={"namespaceLabelSelector": label_selector(), "virtualMachineLabelSelector": label_selector()}
        ),
        "commonBootImageNamespace": Str(),
        "commonTemplatesNamespace": Str(),
        "dataImportCronTemplates": Arr(items=Obj(fields={"metadata": AnyValue(), "spec": dict_spec})),
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
        "liveMigrationConfig": Obj(
            default=crd["spec_default"]["liveMigrationConfig"],
            fields={
                **{name: (Bool if isinstance(v, bool) else Int)(default=v) for name, v in crd["live_migration_defaults"].items()},
                "bandwidthPerMigration": Quantity(),
                "network": Str(),
            },
        ),
        "liveUpdateConfiguration": Obj(fields={"maxCpuSockets": Int(), "maxGuest": Quantity(), "maxHotplugRatio": Int()}),
        "localStorageClassName": Str(),
        "logVerbosityConfig": Obj(
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
        ),
        "mediatedDevicesConfiguration": Obj(
            fields={
                "mediatedDeviceTypes": Arr(items=Str()),
                "mediatedDevicesTypes": Arr(items=Str()),
                "nodeMediatedDeviceTypes": Arr(items=mdev_node),
            },
            rules=(_needs_mdev_types("mediatedDevicesConfiguration"),),
        ),
        "networkBinding": MapOf(
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
        ),
        "obsoleteCPUs": Obj(fields={"cpuModels": Arr(items=Str()), "minCPUModel": Str()}),
        "permittedHostDevices": Obj(
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
        ),
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


def apply_structural_schema(spec_model: Obj, spec: t.Any) -> tuple[t.Any, list[str], list[FieldError]]:
    """Prune, default and check ``spec`` as the API server would. Returns (spec, pruned paths, errors)."""
    errors: list[FieldError] = []
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        errors.append(FieldError("spec", f"Invalid value: {_show(spec)}: must be of type object"))
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
