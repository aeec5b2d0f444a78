# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The observability controller Deployment (mapping spec section 12: v1 gate deployObservabilityController, image
variable, monitoring available; TLS flags of section 5.3; v1 observability allow-lists)."""

from __future__ import annotations

import json

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

GATE_ON = {"featureGates": [{"name": "deployObservabilityController"}]}


def controller(v1_fields=None, tls=None, platform="openshift", variables=None, monitoring=None, release="1.20"):
    annotations = {"hco.kubevirt.io/v1-only-fields": json.dumps(v1_fields)} if v1_fields is not None else {}
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged",
                       "annotations": annotations},
          "spec": {"tlsSecurityProfile": tls} if tls else {}}
    cluster = {"platform": platform}
    if monitoring is not None:
        cluster["monitoring"] = monitoring
    result = render(hyperconverged=hc, release=release, cluster=cluster,
                    environment={"variables": variables} if variables is not None else None)
    found = [o for o in result.operands if o["metadata"]["name"] == "virt-observability-controller"]
    return found[0] if found else None


def container_of(deployment):
    return deployment["spec"]["template"]["spec"]["containers"][0]


def test_gate_on_deploys_the_controller():
    deployment = controller(GATE_ON)
    assert (deployment["kind"], deployment["metadata"]["namespace"]) == ("Deployment", "kubevirt-hyperconverged")
    pod = deployment["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "virt-observability-controller"
    assert pod["priorityClassName"] == "system-cluster-critical"
    assert pod["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
    assert pod["securityContext"] == {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
    container = container_of(deployment)
    assert container["name"] == "manager"
    assert container["args"][:4] == ["--metrics-bind-address=:8443", "--metrics-secure=true",
                                     "--health-probe-bind-address=:8081", "--leader-elect=false"]
    assert [e["name"] for e in container["env"]] == ["POD_NAMESPACE", "POD_SERVICE_ACCOUNT"]
    assert container["env"][1]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.serviceAccountName"
    assert [p["containerPort"] for p in container["ports"]] == [8443, 8081]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["resources"] == {"limits": {"memory": "128Mi"}, "requests": {"cpu": "10m", "memory": "64Mi"}}
    assert container["image"] == ("quay.io/kubevirt/virt-observability-controller@sha256:"
                                  "170a30602ba326b11b298f511553fbf479a5447632f051ed915f6af1b0e612a0")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert all(labels[k] == v for k, v in deployment["spec"]["selector"]["matchLabels"].items())


def test_labels_selector_and_defaults_as_hco_writes_them():
    # HCO's own output (1.20.0): the component is virt-observability-controller everywhere; neither the selector nor
    # the pod template carries a name label; fieldRef.apiVersion and the probes' scheme are left to the API server.
    deployment = controller(GATE_ON)
    assert deployment["metadata"]["labels"]["app.kubernetes.io/component"] == "virt-observability-controller"
    assert deployment["spec"]["selector"]["matchLabels"] == {
        "app": "kubevirt-hyperconverged", "app.kubernetes.io/component": "virt-observability-controller"}
    assert "name" not in deployment["spec"]["template"]["metadata"]["labels"]
    container = container_of(deployment)
    assert [e["valueFrom"]["fieldRef"] for e in container["env"]] == [
        {"fieldPath": "metadata.namespace"}, {"fieldPath": "spec.serviceAccountName"}]
    assert "scheme" not in container["livenessProbe"]["httpGet"]
    assert "scheme" not in container["readinessProbe"]["httpGet"]


@pytest.mark.parametrize("case", [
    {"v1_fields": None},                                                          # gate is alpha: off by default
    {"v1_fields": {"featureGates": [{"name": "deployObservabilityController", "state": "Disabled"}]}},
    {"v1_fields": GATE_ON, "variables": {"OBSERVABILITY_CONTROLLER_IMAGE": None}},  # image variable unset
    {"v1_fields": GATE_ON, "platform": "kubernetes"},                              # no monitoring CRDs by default
    {"v1_fields": GATE_ON, "monitoring": False},
    {"v1_fields": GATE_ON, "release": "1.14"},                                      # no v1 API in 1.14
])
def test_conditions_that_keep_it_away(case):
    assert controller(**case) is None


def test_monitoring_on_plain_kubernetes_deploys_it():
    assert controller(GATE_ON, platform="kubernetes", monitoring=True) is not None


def test_tls_profile_type_and_custom_settings():
    assert container_of(controller(GATE_ON))["args"][4:] == ["--tls-security-profile=Intermediate"]
    old = container_of(controller(GATE_ON, tls={"type": "Old", "old": {}}))["args"]
    assert old[4:] == ["--tls-security-profile=Old"]
    custom = {"type": "Custom", "custom": {"minTLSVersion": "VersionTLS12",
                                           "ciphers": ["ECDHE-RSA-AES128-GCM-SHA256", "not-a-known-cipher"]}}
    assert container_of(controller(GATE_ON, tls=custom))["args"][4:] == [
        "--tls-security-profile=Custom", "--tls-min-version=VersionTLS12",
        "--tls-cipher-suites=ECDHE-RSA-AES128-GCM-SHA256,not-a-known-cipher"]


def test_allowlists_from_the_v1_observability_settings():
    # The v1 type (HyperConverged CRD, v1): workloads.allowedMetrics; allowedAlerts and allowedRecordingRules
    # beside workloads. The same names inside workloads are not fields of the type and are dropped.
    fields = dict(GATE_ON, observability={"workloads": {"allowedMetrics": ["kubevirt_vmi_phase_count", "x"],
                                                        "allowedRecordingRules": ["ignored"]},
                                          "allowedAlerts": [], "allowedRecordingRules": ["r1"]})
    args = container_of(controller(fields))["args"]
    assert args[5:] == ["--metrics-allowlist=kubevirt_vmi_phase_count,x", "--recording-rules-allowlist=r1"]


def test_an_observability_value_of_the_wrong_type_is_refused_at_the_annotation():
    fields = dict(GATE_ON, observability={"allowedAlerts": "KubeVirtVMStuck"})
    with pytest.raises(RenderError) as failure:
        controller(fields)
    assert failure.value.errors[0].path == "metadata.annotations[hco.kubevirt.io/v1-only-fields]"
    assert "cannot unmarshal string into a slice at observability.allowedAlerts" in failure.value.errors[0].message
