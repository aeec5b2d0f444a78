# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""DataImportCronTemplates (golden images) for SSP and the HC status (HCO v1.20.0,
controllers/handlers/golden-images/golden_images.go). PRIVATE."""

from __future__ import annotations

import copy
import typing as t

from .._common.errors import BuildError
from .._common.golang import canonical_quantity
from .._common.times import metav1_time
from .mutator import IMMEDIATE_BIND
from .view import HCView

ENABLE_ANNOTATION = "dataimportcrontemplate.kubevirt.io/enable"
ARCH_ANNOTATION = "ssp.kubevirt.io/dict.architectures"


def multi_arch_enabled(view: HCView) -> bool:
    if not view.profile.dicts["multi_arch"]:
        return False
    if view.v1.multi_arch_enabled is not None:
        return bool(view.v1.multi_arch_enabled)
    return view.gate("enableMultiArchBootImageImport")


def _common_list(view: HCView, common_dicts: t.Sequence[t.Mapping[str, t.Any]] | None) -> list[dict[str, t.Any]]:
    schedule = view.status.get("dataImportSchedule", "")
    result: list[dict[str, t.Any]] = []
    sources = common_dicts if common_dicts is not None else view.profile.common_dicts
    for entry in (dict(copy.deepcopy(source)) for source in sources):
        spec = entry.setdefault("spec", {})
        if view.profile.dicts["load_time_defaults"]:
            spec.setdefault("retentionPolicy", "None")
            spec.setdefault("importsToKeep", 1)
        spec["schedule"] = schedule
        result.append(entry)
    return result


def _enabled(entry: t.Mapping[str, t.Any]) -> bool:
    value = ((entry.get("metadata") or {}).get("annotations") or {}).get(ENABLE_ANNOTATION)
    return value is None or str(value).lower() == "true"


def _source(entry: t.Mapping[str, t.Any]) -> t.Any:
    return (((entry.get("spec") or {}).get("template") or {}).get("spec") or {}).get("source")


def _registry(entry: t.Mapping[str, t.Any]) -> t.Any:
    return (_source(entry) or {}).get("registry")


def _customised_annotations(common_annotations: t.Mapping[str, str], custom: t.Mapping[str, t.Any],
                            common: t.Mapping[str, t.Any], multi_arch: bool) -> dict[str, str]:
    """The annotations of a customised common DICT. Only a changed *registry* source makes the HC entry's
    architecture list (or its absence) win; any other source keeps the common template's (HCO v1.20.0,
    controllers/handlers/golden-images/golden_images.go, customizeCommonDictAnnotations, adoptOrigCommonDictAnnotation,
    adoptCRDictAnnotation)."""
    registry_modified = _registry(custom) is not None and _registry(custom) != _registry(common)
    annotations = dict(common_annotations)
    given = (custom.get("metadata") or {}).get("annotations")
    if given is not None:
        given = dict(given)
        if multi_arch and not registry_modified:
            if ARCH_ANNOTATION in annotations:
                given[ARCH_ANNOTATION] = annotations[ARCH_ANNOTATION]
            else:
                given.pop(ARCH_ANNOTATION, None)
        annotations.update(given)
    if multi_arch and registry_modified and ARCH_ANNOTATION not in (given or {}):
        annotations.pop(ARCH_ANNOTATION, None)
    return annotations


Chosen = tuple[dict[str, t.Any], dict[str, t.Any]]   # (the DICT, its status entry)


def _by_name(hc_list: t.Sequence[t.Mapping[str, t.Any]]) -> dict[str, tuple[int, t.Mapping[str, t.Any]]]:
    """The HC entries by name, with their index (for error paths); a name given twice is refused."""
    found: dict[str, tuple[int, t.Mapping[str, t.Any]]] = {}
    for index, entry in enumerate(hc_list):
        name = (entry.get("metadata") or {}).get("name", "")
        if name in found:
            raise BuildError(f"spec.dataImportCronTemplates[{index}].metadata.name",
                             f"{name} DataImportCronTemplate is defined twice")
        found[name] = (index, entry)
    return found


def _customised(view: HCView, common: dict[str, t.Any], index: int, custom: t.Mapping[str, t.Any],
                multi_arch: bool) -> dict[str, t.Any]:
    """A common DICT as the HC entry customises it (HCO's customizeCommonDICT)."""
    name = common["metadata"].get("name", "")
    if _source(custom) is None:
        # HCO reads the entry's Source.Registry without a nil check; its webhook recovers the panic into a refusal
        # (customizeCommonDictAnnotations). Said here in words instead.
        raise BuildError(f"spec.dataImportCronTemplates[{index}].spec.template.spec.source",
                         f"required when customising the common DataImportCronTemplate {name}: HCO reads its "
                         "registry and refuses the HyperConverged without a source")
    entry = copy.deepcopy(common)
    entry["spec"] = copy.deepcopy(custom.get("spec") or {})
    if not entry["spec"].get("schedule"):
        entry["spec"]["schedule"] = common["spec"].get("schedule", "")
    custom_meta = custom.get("metadata") or {}
    if custom_meta.get("namespace"):
        entry["metadata"]["namespace"] = custom_meta["namespace"]
    else:
        entry["metadata"].pop("namespace", None)
    if view.profile.dicts["merge_custom_metadata"]:
        # The HC entry gives annotations, spec and namespace; its labels are not taken.
        entry["metadata"]["annotations"] = _customised_annotations(
            common["metadata"].get("annotations") or {}, custom, common, multi_arch)
    return entry


def _chosen(view: HCView, common_dicts: t.Sequence[t.Mapping[str, t.Any]] | None, multi_arch: bool) -> list[Chosen]:
    """The common DICTs (customised where the HC names them, unless disabled), then the HC's own enabled ones."""
    hc_list = view.spec.get("dataImportCronTemplates") or []
    by_name = _by_name(hc_list)
    shipped = _common_list(view, common_dicts)
    common_names = {(c.get("metadata") or {}).get("name", "") for c in shipped}
    namespace_override = view.spec.get("commonBootImageNamespace") or ""
    chosen: list[Chosen] = []
    if view.switch("enableCommonBootImageImport", True):
        for common in shipped:
            metadata = common.setdefault("metadata", {})
            found = by_name.get(metadata.get("name", ""))
            if found is None:
                if namespace_override:
                    metadata["namespace"] = namespace_override
                chosen.append((common, {"commonTemplate": True}))
            elif _enabled(found[1]):
                chosen.append((_customised(view, common, *found, multi_arch), {"commonTemplate": True,
                                                                               "modified": True}))
    for entry in hc_list:
        name = (entry.get("metadata") or {}).get("name", "")
        if name not in common_names and _enabled(entry):
            chosen.append((copy.deepcopy(entry), {}))
    return chosen


def build(view: HCView, common_dicts: t.Sequence[t.Mapping[str, t.Any]] | None = None
          ) -> tuple[list[dict[str, t.Any]], list[dict[str, t.Any]]]:
    """Return (the DICTs sent to SSP, the HC ``status.dataImportCronTemplates`` list)."""
    multi_arch = multi_arch_enabled(view)
    for_ssp: list[dict[str, t.Any]] = []
    status: list[dict[str, t.Any]] = []
    for entry, entry_status in _chosen(view, common_dicts, multi_arch):
        annotations = entry.setdefault("metadata", {}).setdefault("annotations", {})
        deployed = True
        if multi_arch and ARCH_ANNOTATION in annotations:
            wanted = [a for a in str(annotations[ARCH_ANNOTATION]).split(",") if a]
            entry_status["originalSupportedArchitectures"] = annotations[ARCH_ANNOTATION]
            supported = [a for a in wanted if a in view.facts.workload_architectures]
            if supported:
                annotations[ARCH_ANNOTATION] = ",".join(supported)
            else:
                deployed = False
                entry_status["conditions"] = [{"type": "Deployed", "status": "False",
                                               "reason": "UnsupportedArchitectures",
                                               "message": "DataImportCronTemplate has no supported architectures "
                                                          "for the current cluster"}]
        if not multi_arch:
            annotations.pop(ARCH_ANNOTATION, None)
        annotations.setdefault(IMMEDIATE_BIND, "true")
        normalised = _normalise(entry)
        status.append({**copy.deepcopy(normalised), "status": entry_status})
        if deployed:
            for_ssp.append(normalised)
    for_ssp.sort(key=lambda e: e["metadata"].get("name", "").encode())
    status.sort(key=lambda e: e["metadata"].get("name", "").encode())
    return for_ssp, status


def _normalise(entry: dict[str, t.Any]) -> dict[str, t.Any]:
    """Go serialisation of a DataImportCronTemplate: value-type structs present, quantities canonical."""
    metadata = {k: v for k, v in entry.get("metadata", {}).items() if v not in (None, "", {}, [])}
    spec = copy.deepcopy(entry.get("spec") or {})
    template = spec.get("template")
    if isinstance(template, dict):
        template.setdefault("metadata", {})
        template.setdefault("status", {})
        # Condition times are metav1.Time: decoded into Go and written back (the mutating webhook refused what Go
        # cannot decode).
        for condition in (template.get("status") or {}).get("conditions") or []:
            if isinstance(condition, dict):
                for key in ("lastTransitionTime", "lastHeartbeatTime"):
                    if key in condition:
                        condition[key] = metav1_time(condition[key])
        for claim in ("storage", "pvc"):
            resources = ((template.get("spec") or {}).get(claim) or {}).get("resources") or {}
            for key in ("requests", "limits"):
                if isinstance(resources.get(key), dict):
                    resources[key] = {k: canonical_quantity(v) for k, v in resources[key].items()}
    return {"metadata": metadata, "spec": {k: v for k, v in spec.items() if v not in (None, "")}}
