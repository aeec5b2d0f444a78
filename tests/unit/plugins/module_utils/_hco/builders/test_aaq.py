# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""AAQ builder (mapping spec section 10)."""

from __future__ import annotations

from hco_cases import INFRA, WORKLOADS, operand, operands


def test_only_when_enabled():
    assert "AAQ" not in {o["kind"] for o in operands()}
    assert "AAQ" not in {o["kind"] for o in operands({"applicationAwareConfig": {"vmiCalcConfigName": "GuestEffectiveResources"}})}


def test_constants_defaults_and_copies():
    aaq = operand("AAQ", {"enableApplicationAwareQuota": True})
    assert aaq["metadata"]["name"] == "aaq-kubevirt-hyperconverged" and "namespace" not in aaq["metadata"]
    spec = aaq["spec"]
    assert (spec["priorityClass"], spec["imagePullPolicy"]) == ("kubevirt-cluster-critical", "IfNotPresent")
    assert spec["configuration"]["vmiCalculatorConfiguration"]["configName"] == "DedicatedVirtualResources"
    assert (spec["infra"], spec["workload"]) == ({}, {})
    configured = operand("AAQ", {
        "enableApplicationAwareQuota": True, "infra": {"nodePlacement": INFRA},
        "workloads": {"nodePlacement": WORKLOADS},
        "applicationAwareConfig": {"vmiCalcConfigName": "GuestEffectiveResources",
                                   "namespaceSelector": {"matchLabels": {"quota": "on"}},
                                   "allowApplicationAwareClusterResourceQuota": True}})["spec"]
    assert configured["configuration"] == {"vmiCalculatorConfiguration": {"configName": "GuestEffectiveResources"},
                                           "allowApplicationAwareClusterResourceQuota": True}
    assert configured["namespaceSelector"] == {"matchLabels": {"quota": "on"}}
    assert (configured["infra"], configured["workload"]) == (INFRA, WORKLOADS)
