# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""AAQ (aaq.kubevirt.io/v1alpha1), built only when application-aware quota is enabled (HCO v1.20.0, operands.NewAAQ).
PRIVATE."""

from __future__ import annotations

import copy
import typing as t

from ..tls import field_copy
from ..view import HCView
from . import common

NAME = "aaq-kubevirt-hyperconverged"


def enabled(view: HCView) -> bool:
    return bool(view.switch("enableApplicationAwareQuota", False))


def build(view: HCView) -> dict[str, t.Any]:
    aaq = common.new_object(view, "aaq.kubevirt.io/v1alpha1", "AAQ", NAME, "quota-management", namespaced=False)
    config = view.spec.get("applicationAwareConfig") or {}
    configuration: dict[str, t.Any] = {
        "vmiCalculatorConfiguration": {"configName": config.get("vmiCalcConfigName") or "DedicatedVirtualResources"}
    }
    if config.get("allowApplicationAwareClusterResourceQuota"):
        configuration["allowApplicationAwareClusterResourceQuota"] = True
    spec: dict[str, t.Any] = {
        "priorityClass": "kubevirt-cluster-critical",
        "imagePullPolicy": "IfNotPresent",
        "certConfig": common.cert_config(view),
        "infra": common.placement(view.infra),
        "workload": common.placement(view.workloads),
        "configuration": configuration,
    }
    if view.profile.aaq["tls"]:
        spec["tlsSecurityProfile"] = field_copy(view.tls_profile)
    if config.get("namespaceSelector") is not None:
        spec["namespaceSelector"] = copy.deepcopy(config["namespaceSelector"])
    aaq["spec"] = spec
    return aaq
