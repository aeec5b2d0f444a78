# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Console plugin / apiserver proxy and network-resources-injector builders (mapping spec section 12, TLS of 5.3)."""

from __future__ import annotations

import json

from hco_cases import INFRA, operands

CP = {"node-role.kubernetes.io/control-plane": ""}
WORKER = {"node-role.kubernetes.io/worker": ""}


def deployments(spec=None, **options):
    return {o["metadata"]["name"]: o for o in operands(spec, **options) if o["kind"] == "Deployment"}


def test_console_objects_on_openshift_only():
    openshift = deployments()
    assert {"kubevirt-console-plugin", "kubevirt-apiserver-proxy"} <= set(openshift)
    assert not {"kubevirt-console-plugin", "kubevirt-apiserver-proxy"} & set(deployments(platform="kubernetes"))
    assert "nginx-conf" in {o["metadata"]["name"] for o in operands() if o["kind"] == "ConfigMap"}


def test_replicas_follow_infrastructure_high_availability_and_infra_placement():
    placed = deployments({"infra": {"nodePlacement": INFRA}})
    for name in ("kubevirt-console-plugin", "kubevirt-apiserver-proxy", "virt-network-resources-injector"):
        assert placed[name]["spec"]["replicas"] == 2, name  # default nodes: three workers
    pod = placed["kubevirt-console-plugin"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == INFRA["nodeSelector"]
    single = [{"name": "cp0", "labels": dict(CP)}, {"name": "w0", "labels": dict(WORKER)}]
    for name, deployment in deployments(nodes=single).items():
        if name in ("kubevirt-console-plugin", "kubevirt-apiserver-proxy", "virt-network-resources-injector"):
            assert deployment["spec"]["replicas"] == 1, name


def test_injector_is_on_by_default_and_off_through_the_v1_switch():
    assert "virt-network-resources-injector" in deployments(platform="kubernetes")
    off = {"hco.kubevirt.io/v1-only-fields": json.dumps({"deployNetworkResourcesInjector": False})}
    assert "virt-network-resources-injector" not in deployments(annotations=off)


def test_injector_and_proxy_tls_flags():
    injector = deployments()["virt-network-resources-injector"]["spec"]["template"]["spec"]["containers"][0]
    flags = " ".join(injector.get("args", []) + injector.get("command", []))
    assert "-tls-min-version=VersionTLS12" in flags and "-tls-cipher-suites=" in flags
    modern = deployments({"tlsSecurityProfile": {"type": "Modern", "modern": {}}})
    injector = modern["virt-network-resources-injector"]["spec"]["template"]["spec"]["containers"][0]
    flags = " ".join(injector.get("args", []) + injector.get("command", []))
    assert "-tls-min-version=VersionTLS13" in flags and "cipher" not in flags
    proxy = modern["kubevirt-apiserver-proxy"]["spec"]["template"]["spec"]["containers"][0]
    proxy_flags = " ".join(proxy.get("args", []) + proxy.get("command", []))
    assert "--tls-min-version=772" in proxy_flags and "cipher" not in proxy_flags  # Go's number for TLS 1.3
