# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The AIE webhook objects (mapping spec section 12: annotation hco.kubevirt.io/deployAIE, TLS flags of section 5.3)."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

INTERMEDIATE_IANA = ("TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,"
                     "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,"
                     "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,"
                     "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256")


def aie(annotation="true", tls=None, platform="kubernetes", variables=None):
    spec = {"tlsSecurityProfile": tls} if tls else {}
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged",
                       "annotations": {"hco.kubevirt.io/deployAIE": annotation} if annotation is not None else {}},
          "spec": spec}
    result = render(hyperconverged=hc, release="1.20", cluster={"platform": platform},
                    environment={"variables": variables} if variables is not None else None)
    return {o["kind"]: o for o in result.operands
            if (o["metadata"].get("labels") or {}).get("app.kubernetes.io/component") == "aie-webhook"}


@pytest.mark.parametrize("platform", ["kubernetes", "openshift"])
def test_annotation_true_deploys_the_webhook_and_its_config_map(platform):
    objects = aie(platform=platform)
    assert set(objects) == {"Deployment", "ConfigMap"}
    deployment, config_map = objects["Deployment"], objects["ConfigMap"]
    names = (deployment["metadata"]["name"], config_map["metadata"]["name"])
    assert names == ("kubevirt-aie-webhook", "kubevirt-aie-launcher-config")
    assert config_map["metadata"]["namespace"] == "kubevirt-hyperconverged"
    assert config_map["data"] == {"config.yaml": "rules:\n"}
    spec = deployment["spec"]
    assert spec["replicas"] == 1
    assert spec["selector"]["matchLabels"] == {"app": "kubevirt-hyperconverged", "app.kubernetes.io/component": "aie-webhook"}
    pod = spec["template"]["spec"]
    assert pod["serviceAccountName"] == "kubevirt-aie-webhook"
    assert pod["volumes"] == [{"name": "tls-cert", "secret": {"secretName": "kubevirt-aie-webhook-tls"}}]
    container = pod["containers"][0]
    assert [p["containerPort"] for p in container["ports"]] == [9443, 8443, 8081]
    assert container["image"].startswith("quay.io/kubevirt/kubevirt-aie-webhook@sha256:")


@pytest.mark.parametrize("value", ["True", "yes", "", None])
def test_only_the_exact_string_true_deploys_it(value):
    assert aie(annotation=value) == {}


def test_tls_flags_follow_the_effective_profile():
    args = aie()["Deployment"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[-2:] == ["--tls-min-version=VersionTLS12", f"--tls-cipher-suites={INTERMEDIATE_IANA}"]
    modern = aie(tls={"type": "Modern", "modern": {}})["Deployment"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert modern[-1] == "--tls-min-version=VersionTLS13" and not any("cipher" in a for a in modern)


def test_custom_profile_drops_cipher_names_without_an_iana_name():
    tls = {"type": "Custom", "custom": {"minTLSVersion": "VersionTLS11",
                                        "ciphers": ["ECDHE-RSA-AES128-GCM-SHA256", "NOT-A-CIPHER", "AES256-SHA"]}}
    args = aie(tls=tls)["Deployment"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[-2:] == ["--tls-min-version=VersionTLS11",
                         "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_256_CBC_SHA"]


def test_without_the_image_variable_the_deployment_has_no_image():
    container = aie(variables={"AIE_WEBHOOK_IMAGE": None})["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert "image" not in container
