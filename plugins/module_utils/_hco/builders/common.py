# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers every operand builder shares: labels, metadata, placement and cert copies. PRIVATE."""

from __future__ import annotations

import copy
import typing as t

from ..._common.errors import BuildError
from ..._common.golang import GoSyntaxError, canonical_quantity, normalize_duration
from .. import gotypes
from ..view import HCView

APP_LABEL = "kubevirt-hyperconverged"


def restricted_security_context() -> dict[str, t.Any]:
    """The container securityContext HCO gives its webhook Deployments (restricted pod security)."""
    return {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def labels(view: HCView, component: str) -> dict[str, str]:
    return {
        "app": APP_LABEL,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/managed-by": "hco-operator",
        "app.kubernetes.io/part-of": "hyperconverged-cluster",
        "app.kubernetes.io/version": view.version,
    }


def one_replica(view: HCView, component: str, pod: dict[str, t.Any]) -> dict[str, t.Any]:
    """The spec of a single-replica Deployment of ``component`` running ``pod``, as HCO's handlers write it."""
    return {
        "replicas": 1,
        "selector": {"matchLabels": {"app": APP_LABEL, "app.kubernetes.io/component": component}},
        "strategy": {},
        "template": {"metadata": {"labels": labels(view, component)}, "spec": pod},
    }


def pod_anti_affinity(component: str) -> dict[str, t.Any]:
    """HCO's spreading of a component's pods over nodes where the infrastructure is highly available
    (``operands.GetPodAntiAffinity``): preferred, weight 90, by ``app.kubernetes.io/component``."""
    return {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "podAffinityTerm": {
            "labelSelector": {"matchExpressions": [
                {"key": "app.kubernetes.io/component", "operator": "In", "values": [component]}]},
            "topologyKey": "kubernetes.io/hostname"},
        "weight": 90}]}}


def new_object(
    view: HCView,
    api_version: str,
    kind: str,
    name: str,
    component: str,
    namespaced: bool = True,
    annotations: dict[str, str] | None = None,
) -> dict[str, t.Any]:
    metadata: dict[str, t.Any] = {"name": name}
    if namespaced:
        metadata["namespace"] = view.facts.namespace
    metadata["labels"] = labels(view, component)
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata}


def placement(source: t.Mapping[str, t.Any] | None, affinity_value_type: bool = False) -> dict[str, t.Any]:
    """A ``NodePlacement`` copied as Go copies it: nil affinity omitted, ``affinity: {}`` kept, empty nodeSelector and
    tolerations omitted. ``affinity_value_type``: the target's affinity is a struct value (encoded even when empty)."""
    result = gotypes.decode(source, gotypes.root("NodePlacement"), "nodePlacement") or {}
    if affinity_value_type:
        result.setdefault("affinity", {})
    return result


def cert_config(view: HCView) -> dict[str, t.Any]:
    """``{ca, server}.{duration, renewBefore}`` in Go duration text."""
    source = view.spec.get("certConfig") or {}
    result: dict[str, t.Any] = {}
    for part in ("ca", "server"):
        values = source.get(part) or {}
        result[part] = {}
        for key in ("duration", "renewBefore"):
            if values.get(key):
                result[part][key] = duration(values[key], f"spec.certConfig.{part}.{key}")
    return result


def duration(text: str, path: str) -> str:
    try:
        return normalize_duration(text)
    except GoSyntaxError as exc:
        raise BuildError(path, f"cannot parse duration {text!r}: {exc}") from exc


def quantity(value: t.Any, path: str) -> str:
    try:
        return canonical_quantity(value)
    except (GoSyntaxError, ArithmeticError) as exc:
        raise BuildError(path, f"cannot parse quantity {value!r}: {exc}") from exc


def resource_requirements(source: t.Mapping[str, t.Any], path: str) -> dict[str, t.Any]:
    result: dict[str, t.Any] = {}
    for key in ("limits", "requests"):
        if source.get(key):
            result[key] = {name: quantity(v, f"{path}.{key}.{name}") for name, v in source[key].items()}
    if source.get("claims"):
        result["claims"] = copy.deepcopy(source["claims"])
    return result


def omit_empty(mapping: dict[str, t.Any]) -> dict[str, t.Any]:
    """Drop keys whose values Go's ``omitempty`` would drop (None, "", False, 0, empty list/map)."""
    return {k: v for k, v in mapping.items() if v not in (None, "", False, 0, [], {}) or v is True}
