# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SSP (ssp.kubevirt.io) as HCO builds it (HCO v1.20.0, operands.NewSSP). PRIVATE."""

from __future__ import annotations

import copy
import typing as t

from .. import golden_images
from ..tls import field_copy
from ..view import HCView
from . import common

NAME = "ssp-kubevirt-hyperconverged"


def build(view: HCView, dicts: t.Sequence[t.Mapping[str, t.Any]]) -> dict[str, t.Any]:
    profile = view.profile.ssp
    ssp = common.new_object(view, profile["api_version"], "SSP", NAME, "schedule")
    validator: dict[str, t.Any] = {"replicas": 2}
    if view.infra is not None:
        validator["placement"] = common.placement(view.infra)
    templates: dict[str, t.Any] = {"namespace": view.spec.get("commonTemplatesNamespace") or "openshift"}
    if dicts:
        templates["dataImportCronTemplates"] = copy.deepcopy(list(dicts))
    spec: dict[str, t.Any] = {
        "templateValidator": validator,
        "commonTemplates": templates,
        "tlsSecurityProfile": field_copy(view.tls_profile),
    }
    console_proxy = view.switch("deployVmConsoleProxy")
    if console_proxy is not None:
        spec["tokenGenerationService"] = {"enabled": True} if console_proxy else {}
    if profile["feature_gates"] is not None:
        spec["featureGates"] = dict(profile["feature_gates"])
    if profile["cluster_architectures"]:
        cluster = common.omit_empty({
            "controlPlaneArchitectures": list(view.facts.control_plane_architectures),
            "workloadArchitectures": list(view.facts.workload_architectures),
        })
        if cluster:
            spec["cluster"] = cluster
    if profile["multiple_architectures"]:
        spec["enableMultipleArchitectures"] = golden_images.multi_arch_enabled(view)
    ssp["spec"] = spec
    return ssp
