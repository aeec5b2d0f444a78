# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One case per webhook rejection of mapping spec section 13.2 (V1-V17 on CREATE; V8 cannot pass the CRD enum, V18 and
V19 need live operands), each alone, on plain Kubernetes: the request is refused at the field the rule names."""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

DICT_SPEC = {"managedDataSource": "x", "schedule": "0 1 * * *",
             "template": {"spec": {"source": {"registry": {"url": "docker://registry.example/x"}},
                                   "storage": {"resources": {"requests": {"storage": "1Gi"}}}}}}
MISSING_VALUES = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In"}]}]}}}
ENABLE = "dataimportcrontemplate.kubevirt.io/enable"

CASES: list[tuple[str, dict[str, t.Any], dict[str, str], str]] = [
    ("V1", {"certConfig": {"server": {"duration": "9m", "renewBefore": "5m"}}}, {},
     "spec.certConfig.server.duration"),
    ("V2", {"certConfig": {"ca": {"duration": "30h", "renewBefore": "31h"}}}, {}, "spec.certConfig.ca"),
    ("V3", {"certConfig": {"server": {"duration": "1h", "renewBefore": "2h"}}}, {}, "spec.certConfig.server"),
    ("V4", {"certConfig": {"ca": {"duration": "20h", "renewBefore": "1h"},
                           "server": {"duration": "21h", "renewBefore": "1h"}}}, {}, "spec.certConfig"),
    ("V5", {"dataImportCronTemplates": [{"metadata": {"name": "d", "annotations": {ENABLE: "maybe"}},
                                         "spec": DICT_SPEC}]}, {},
     f"spec.dataImportCronTemplates[0].metadata.annotations[{ENABLE}]"),
    ("V6", {"dataImportCronTemplates": [{"metadata": {"name": "d"}}]}, {}, "spec.dataImportCronTemplates[0].spec"),
    ("V7", {"tlsSecurityProfile": {"type": "Custom"}}, {}, "spec.tlsSecurityProfile.custom"),
    ("V9", {"tlsSecurityProfile": {
        "type": "Custom", "custom": {"minTLSVersion": "VersionTLS12", "ciphers": ["AES128-SHA"]}}}, {},
     "spec.tlsSecurityProfile.custom.ciphers"),
    ("V10", {"tlsSecurityProfile": {
        "type": "Custom", "custom": {"minTLSVersion": "VersionTLS13", "ciphers": ["TLS_AES_128_GCM_SHA256"]}}}, {},
     "spec.tlsSecurityProfile.custom.ciphers"),
    ("V11", {"mediatedDevicesConfiguration": {"mediatedDeviceTypes": ["a"], "nodeMediatedDeviceTypes": [
        {"nodeSelector": {"a": "b"}, "mediatedDevicesTypes": ["x"], "mediatedDeviceTypes": ["y"]}]}}, {},
     "spec.mediatedDevicesConfiguration.nodeMediatedDeviceTypes[0].mediatedDevicesTypes"),
    ("V12", {"workloads": {"nodePlacement": {"affinity": MISSING_VALUES}}}, {}, "spec.workloads.nodePlacement.affinity"),
    ("V13", {"infra": {"nodePlacement": {"affinity": MISSING_VALUES}}}, {}, "spec.infra.nodePlacement.affinity"),
    ("V14", {}, {"hco.kubevirt.io/v1-only-fields": "{not json"},
     "metadata.annotations[hco.kubevirt.io/v1-only-fields]"),
    ("V15", {}, {"containerizeddataimporter.kubevirt.io/jsonpatch": '[{"op": "replace", "path": "/spec/x", "value": 1}]'},
     "metadata.annotations[containerizeddataimporter.kubevirt.io/jsonpatch]"),
    ("V16", {"kubeSecondaryDNSNameServerIP": "::1"}, {}, "spec.kubeSecondaryDNSNameServerIP"),
    ("V17", {}, {"ssp.kubevirt.io/jsonpatch": "not json"}, "metadata.annotations[ssp.kubevirt.io/jsonpatch]"),
]


@pytest.mark.parametrize("rule, spec, annotations, path", CASES, ids=[c[0] for c in CASES])
def test_each_webhook_rule_refuses_at_its_field(rule, spec, annotations, path):
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged",
                       "annotations": annotations}, "spec": spec}
    with pytest.raises(RenderError) as failure:
        render(hyperconverged=hc, release="1.20", cluster={"platform": "kubernetes"})
    by_path = {e.path: e.stage for e in failure.value.errors}
    assert by_path.get(path) == "validating-webhook", (rule, by_path)


def test_the_same_values_within_the_limits_are_accepted():
    spec = {"certConfig": {"ca": {"duration": "48h", "renewBefore": "24h"},
                           "server": {"duration": "48h", "renewBefore": "10m"}},
            "tlsSecurityProfile": {"type": "Custom", "custom": {"minTLSVersion": "VersionTLS13"}},
            "kubeSecondaryDNSNameServerIP": "10.0.0.53",
            "dataImportCronTemplates": [{"metadata": {"name": "d", "annotations": {ENABLE: "FALSE"}}}]}
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"}, "spec": spec}
    assert render(hyperconverged=hc, release="1.20", cluster={"platform": "kubernetes"}).operands


# HCO 1.20.0's warning texts and order (hco-mapping.md section 13.3), typed out from the spec's table.
EXPECTED_WARNINGS = [
    "spec.tuningPolicy: the highBurst profile is deprecated as of v1.16.0 and will be removed in a future release",
    "spec.featureGates.withHostPassthroughCPU is deprecated and ignored. It will be removed in a future version;",
    "spec.featureGates.nonRoot is deprecated and ignored. It will be removed in a future version;",
    ("spec.featureGates.disableMDevConfiguration is deprecated. Use "
     "spec.virtualization.mediatedDevicesConfiguration.enabled in the v1 API instead; it will be removed in a future "
     "version."),
    ("spec.featureGates.persistentReservation is deprecated. Use spec.storage.persistentReservationConfiguration.enabled "
     "in the v1 API instead; it will be removed in a future version."),
    ("spec.featureGates.enableMultiArchBootImageImport is deprecated. Use "
     "spec.workloadSources.enableMultiArchBootImageImport in the v1 API instead; it will be removed in a future version."),
    ("spec.featureGates.enableApplicationAwareQuota is deprecated and ignored. It will removed in a future version; "
     "use spec.enableApplicationAwareQuota instead"),
    ("spec.featureGates.deployVmConsoleProxy is deprecated and ignored. It will removed in a future version; "
     "use spec.deployVmConsoleProxy instead"),
]


@pytest.mark.parametrize("operation", ["create", "update"])
def test_warnings_carry_hcos_texts_in_hcos_order(operation):
    # Gates listed out of HCO's order: the warnings still follow it (group by group, gate by gate).
    gates = {"deployVmConsoleProxy": True, "enableMultiArchBootImageImport": True, "nonRoot": True,
             "persistentReservation": True, "enableApplicationAwareQuota": True, "disableMDevConfiguration": True,
             "withHostPassthroughCPU": True}
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
          "spec": {"featureGates": gates, "tuningPolicy": "highBurst"}}
    result = render(hyperconverged=hc, release="1.20", cluster={"platform": "kubernetes"}, operation=operation)
    assert result.warnings == EXPECTED_WARNINGS


def test_the_highburst_warning_comes_with_a_refusal_too():
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
          "spec": {"tuningPolicy": "highBurst", "kubeSecondaryDNSNameServerIP": "::1"}}
    with pytest.raises(RenderError) as failure:
        render(hyperconverged=hc, release="1.20", cluster={"platform": "kubernetes"})
    assert failure.value.warnings == EXPECTED_WARNINGS[:1]
