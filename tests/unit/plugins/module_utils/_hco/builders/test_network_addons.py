# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NetworkAddonsConfig builder (mapping spec section 8)."""

from __future__ import annotations

import json

import pytest
from hco_cases import operand

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render


def test_constants_per_platform():
    openshift = operand("NetworkAddonsConfig")
    assert openshift["metadata"]["name"] == "cluster" and "namespace" not in openshift["metadata"]
    assert (openshift["spec"]["multus"], openshift["spec"]["linuxBridge"], openshift["spec"]["kubeMacPool"]) == \
        ({}, {}, {})
    assert openshift["spec"]["kubevirtIpamController"] == {"defaultNetworkNADNamespace": "openshift-ovn-kubernetes"}
    assert operand("NetworkAddonsConfig", platform="kubernetes")["spec"]["kubevirtIpamController"] == {}
    assert openshift["spec"]["selfSignConfiguration"] == {"caRotateInterval": "48h0m0s", "caOverlapInterval": "24h0m0s",
                                                          "certRotateInterval": "24h0m0s",
                                                          "certOverlapInterval": "12h0m0s"}


@pytest.mark.parametrize("value, deployed", [("true", True), ("True", False), ("false", False), (None, False)])
def test_ovs_only_for_the_exact_annotation_true(value, deployed):
    annotations = {"deployOVS": value} if value is not None else {}
    assert ("ovs" in operand("NetworkAddonsConfig", annotations=annotations)["spec"]) is deployed


def test_kube_secondary_dns_follows_the_gate_and_base_domain():
    spec = {"featureGates": {"deployKubeSecondaryDNS": True}, "kubeSecondaryDNSNameServerIP": "10.0.0.53"}
    dns = operand("NetworkAddonsConfig", spec, base_domain="lab.example")["spec"]["kubeSecondaryDNS"]
    assert dns == {"domain": "lab.example", "nameServerIP": "10.0.0.53"}
    assert operand("NetworkAddonsConfig", spec, platform="kubernetes")["spec"]["kubeSecondaryDNS"] == {
        "nameServerIP": "10.0.0.53"}
    assert "kubeSecondaryDNS" not in operand("NetworkAddonsConfig", {"kubeSecondaryDNSNameServerIP": "10.0.0.53"})[
        "spec"]


def test_name_server_ip_is_checked_even_with_the_gate_off():
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
          "spec": {"kubeSecondaryDNSNameServerIP": "not-an-ip"}}
    with pytest.raises(RenderError) as failure:
        render(hyperconverged=hc, release="1.20", cluster={"platform": "openshift"})
    assert any("kubeSecondaryDNSNameServerIP" in e.path for e in failure.value.errors), json.dumps(
        [e.as_dict() for e in failure.value.errors])


def test_mac_pool_range_is_copied():
    spec = {"kubeMacPoolConfiguration": {"rangeStart": "02:00:00:00:00:00", "rangeEnd": "02:00:00:00:FF:FF"}}
    assert operand("NetworkAddonsConfig", spec)["spec"]["kubeMacPool"] == spec["kubeMacPoolConfiguration"]
