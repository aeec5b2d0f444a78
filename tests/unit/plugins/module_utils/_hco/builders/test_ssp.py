# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SSP builder (mapping spec section 9)."""

from __future__ import annotations

from hco_cases import INFRA, NAMESPACE, operand, operands


def test_openshift_only_with_two_template_validators():
    ssp = operand("SSP")
    assert (ssp["apiVersion"], ssp["metadata"]["name"], ssp["metadata"]["namespace"]) == (
        "ssp.kubevirt.io/v1beta3", "ssp-kubevirt-hyperconverged", NAMESPACE)
    assert ssp["spec"]["templateValidator"]["replicas"] == 2
    assert ssp["spec"]["commonTemplates"]["namespace"] == "openshift"
    assert ssp["spec"]["enableMultipleArchitectures"] is False
    assert ssp["spec"]["tokenGenerationService"] == {}
    assert "SSP" not in {o["kind"] for o in operands(platform="kubernetes")}


def test_placement_namespace_and_console_proxy():
    ssp = operand("SSP", {"infra": {"nodePlacement": INFRA}, "commonTemplatesNamespace": "templates",
                          "deployVmConsoleProxy": True})
    assert ssp["spec"]["templateValidator"]["placement"] == INFRA
    assert ssp["spec"]["commonTemplates"]["namespace"] == "templates"
    assert ssp["spec"]["tokenGenerationService"] == {"enabled": True}


def test_common_golden_images_sorted_and_disabled_by_annotation():
    names = [d["metadata"]["name"] for d in operand("SSP")["spec"]["commonTemplates"]["dataImportCronTemplates"]]
    assert names == sorted(names) and "fedora-image-cron" in names
    disabled = {"dataImportCronTemplates": [{"metadata": {"name": "fedora-image-cron", "annotations": {
        "dataimportcrontemplate.kubevirt.io/enable": "false"}}, "spec": {
            "managedDataSource": "fedora", "schedule": "0 */12 * * *",
            "template": {"spec": {"source": {"registry": {"url": "docker://quay.io/containerdisks/fedora:latest"}},
                                  "storage": {"resources": {"requests": {"storage": "5Gi"}}}}}}}]}
    kept = [d["metadata"]["name"] for d in operand("SSP", disabled)["spec"]["commonTemplates"]["dataImportCronTemplates"]]
    assert "fedora-image-cron" not in kept
    none = operand("SSP", {"enableCommonBootImageImport": False})["spec"]["commonTemplates"]
    assert not none.get("dataImportCronTemplates")


def test_every_template_requests_immediate_binding():
    for entry in operand("SSP")["spec"]["commonTemplates"]["dataImportCronTemplates"]:
        assert entry["metadata"]["annotations"]["cdi.kubevirt.io/storage.bind.immediate.requested"] == "true"
