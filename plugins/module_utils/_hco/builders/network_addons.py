# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NetworkAddonsConfig (networkaddonsoperator.network.kubevirt.io/v1) as HCO builds it (HCO v1.20.0,
operands.NewNetworkAddons). PRIVATE."""

from __future__ import annotations

import ipaddress
import typing as t

from ..._common.errors import BuildError
from ..tls import field_copy
from ..view import HCView
from . import common

NAME = "cluster"


def _placement_side(source: t.Mapping[str, t.Any] | None) -> dict[str, t.Any] | None:
    # HCO: a side exists when the placement is non-nil and has a non-nil affinity pointer (``{}`` counts),
    # a toleration or a nodeSelector entry (len > 0).
    if source is None or not (source.get("affinity") is not None or source.get("nodeSelector")
                              or source.get("tolerations")):
        return None
    return common.placement(source, affinity_value_type=True)


def _name_server_ip(view: HCView) -> str:
    value = view.spec.get("kubeSecondaryDNSNameServerIP") or ""
    if value:
        try:
            ipaddress.IPv4Address(value)
        except ValueError as exc:
            raise BuildError("spec.kubeSecondaryDNSNameServerIP",
                             f"kubeSecondaryDNSNameServerIP isn't a valid IPv4: {value}") from exc
    return value


def build(view: HCView) -> dict[str, t.Any]:
    spec = view.spec
    cnao = common.new_object(view, "networkaddonsoperator.network.kubevirt.io/v1", "NetworkAddonsConfig", NAME,
                             "network", namespaced=False)
    mac_pool: dict[str, t.Any] = {}
    if view.profile.cnao["kube_mac_pool_ranges"]:
        ranges = spec.get("kubeMacPoolConfiguration") or {}
        mac_pool = common.omit_empty({"rangeStart": ranges.get("rangeStart"), "rangeEnd": ranges.get("rangeEnd")})
    ipam: dict[str, t.Any] = {}
    nad_namespace = view.profile.cnao["ipam_nad_namespace_openshift"]
    if view.facts.is_openshift and nad_namespace:
        ipam["defaultNetworkNADNamespace"] = nad_namespace
    name_server = _name_server_ip(view)
    result: dict[str, t.Any] = {
        "multus": {},
        "linuxBridge": {},
        "kubeMacPool": mac_pool,
        "kubevirtIpamController": ipam,
        "selfSignConfiguration": _self_sign(view),
        "tlsSecurityProfile": field_copy(view.tls_profile),
    }
    if view.gate("deployKubeSecondaryDNS"):
        result["kubeSecondaryDNS"] = common.omit_empty({"domain": view.facts.base_domain, "nameServerIP": name_server})
    if view.annotations.get("deployOVS") == "true":
        result["ovs"] = {}
    placement = common.omit_empty({"infra": _placement_side(view.infra), "workloads": _placement_side(view.workloads)})
    if placement:
        result["placementConfiguration"] = placement
    cnao["spec"] = result
    return cnao


def _self_sign(view: HCView) -> dict[str, str]:
    certs = common.cert_config(view)
    defaults = {"ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"},
                "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"}}

    def pick(part: str, key: str) -> str:
        return certs.get(part, {}).get(key) or defaults[part][key]

    return {
        "caRotateInterval": pick("ca", "duration"),
        "caOverlapInterval": pick("ca", "renewBefore"),
        "certRotateInterval": pick("server", "duration"),
        "certOverlapInterval": pick("server", "renewBefore"),
    }
