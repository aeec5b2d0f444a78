# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CDI (cdi.kubevirt.io/v1beta1) as HCO builds it (HCO v1.20.0, operands.NewCDI). PRIVATE."""

from __future__ import annotations

import typing as t

from ..tls import field_copy
from ..view import HCView
from . import common

NAME = "cdi-kubevirt-hyperconverged"


def build(view: HCView) -> dict[str, t.Any]:
    spec = view.spec
    cdi = common.new_object(view, "cdi.kubevirt.io/v1beta1", "CDI", NAME, "storage", namespaced=False,
                            annotations={"cdi.kubevirt.io/configAuthority": ""})
    config: dict[str, t.Any] = {
        "featureGates": list(view.profile.cdi_feature_gates),
        "tlsSecurityProfile": field_copy(view.tls_profile),
    }
    workloads = (spec.get("resourceRequirements") or {}).get("storageWorkloads")
    if workloads is not None:
        config["podResourceRequirements"] = common.resource_requirements(
            workloads, "spec.resourceRequirements.storageWorkloads"
        )
    if spec.get("scratchSpaceStorageClass"):
        config["scratchSpaceStorageClass"] = spec["scratchSpaceStorageClass"]
    overhead = spec.get("filesystemOverhead")
    if overhead is not None:
        config["filesystemOverhead"] = common.omit_empty(
            {"global": overhead.get("global"), "storageClass": dict(overhead.get("storageClass") or {})}
        )
    registries = (spec.get("storageImport") or {}).get("insecureRegistries")
    if registries:
        config["insecureRegistries"] = list(registries)
    verbosity = (spec.get("logVerbosityConfig") or {}).get("cdi")
    if verbosity is not None:
        config["logVerbosity"] = verbosity
    cdi["spec"] = {
        "uninstallStrategy": "RemoveWorkloads" if spec.get("uninstallStrategy") == "RemoveWorkloads"
        else "BlockUninstallIfWorkloadsExist",
        "config": config,
        "certConfig": common.cert_config(view),
        "customizeComponents": {},
        "infra": common.placement(view.infra),
        "workload": common.placement(view.workloads),
    }
    return cdi
