# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SriovNetworks, and the NetworkAttachmentDefinition the operator renders from each (the OpenShift fork and
upstream render the same CNI configuration).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import json
import typing as t

from .common import Problems, path

LOG_LEVELS = ("panic", "error", "warning", "info", "debug", "")


def sriov_network(problems: Problems, where: str, network: t.Any, namespace: str,
                  resource_names: set[t.Any]) -> dict[str, t.Any] | None:
    if not isinstance(network, dict) or not network.get("name"):
        problems.error(where, "each network needs a name")
        return None
    before = len(problems.errors)
    body = {k: v for k, v in network.items() if k not in ("name", "namespace", "state")}
    network_namespace = network.get("namespace", namespace)
    if network_namespace != namespace and body.get("networkNamespace"):
        problems.error(path(where, "networkNamespace"), f"networkNamespace is allowed only for a SriovNetwork in the "
                                                        f"operator namespace {namespace}")
    if not body.get("resourceName"):
        problems.error(path(where, "resourceName"), "required")
    elif body["resourceName"] not in resource_names:
        # Networks are often managed apart from the policies; the operator accepts them, so only say it.
        problems.warn(f"{where}: no policy in this run or in existing_policies provides resource "
                      f"{body['resourceName']!r}; pods and VMs using the network wait until one does")
    checks = (("vlan", 0, 4094), ("vlanQoS", 0, 7), ("minTxRate", 0, None), ("maxTxRate", 0, None))
    for field, low, high in checks:
        value = body.get(field)
        if value is not None and (not isinstance(value, int) or value < low or (high is not None and value > high)):
            problems.error(path(where, field), f"must be an integer within {low}-{high if high is not None else 'inf'}")
    if body.get("minTxRate") and body.get("maxTxRate") and body["minTxRate"] > body["maxTxRate"]:
        problems.error(path(where, "minTxRate"), "must not exceed maxTxRate")
    for field, allowed in (("spoofChk", ("on", "off")), ("trust", ("on", "off")),
                           ("linkState", ("auto", "enable", "disable")),
                           ("vlanProto", ("802.1q", "802.1Q", "802.1ad", "802.1AD"))):
        if field in body and body[field] not in allowed:
            problems.error(path(where, field), f"must be one of {', '.join(allowed)}")
    for field in ("ipam", "capabilities"):  # JSON strings in the CRD; a mapping is written out for the user
        if field in body and not isinstance(body[field], str):
            body[field] = json.dumps(body[field], separators=(",", ":"))
        if body.get(field):
            _check_json(problems, path(where, field), body[field])
    if "metaPlugins" in body:
        if isinstance(body["metaPlugins"], list):
            body["metaPlugins"] = ",".join(json.dumps(p, separators=(",", ":")) for p in body["metaPlugins"])
        if body["metaPlugins"]:
            _check_json(problems, path(where, "metaPlugins"), body["metaPlugins"], plugins=True)
    if body.get("logLevel", "") not in LOG_LEVELS:
        problems.error(path(where, "logLevel"), f"must be one of {', '.join(repr(v) for v in LOG_LEVELS)}")
    if len(problems.errors) > before:
        return None
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetwork",
            "metadata": {"name": network["name"], "namespace": network_namespace}, "spec": body}


def _check_json(problems: Problems, where: str, text: t.Any, plugins: bool = False) -> None:
    """A JSON string the operator pastes into the generated CNI config: an object, or (metaPlugins) the plugin
    objects that follow sriov in the conflist's plugins list, comma-separated."""
    try:
        value = json.loads(f"[{text}]" if plugins else str(text))
    except json.JSONDecodeError as exc:
        problems.error(where, f"is not valid JSON ({exc}): the operator would render a broken CNI config")
        return
    if plugins and not all(isinstance(p, dict) and p.get("type") for p in value):
        problems.error(where, "must be CNI plugin objects, each with a type")
    elif not plugins and not isinstance(value, dict):
        problems.error(where, "must be a JSON object")


def render_nad(network: t.Mapping[str, t.Any], prefix: str) -> dict[str, t.Any]:
    """The NetworkAttachmentDefinition the operator generates from a SriovNetwork (for review, not applied)."""
    spec = network["spec"]
    meta = network["metadata"]
    target = spec.get("networkNamespace") or meta["namespace"]
    plugin: dict[str, t.Any] = {"type": "sriov", "vlan": spec.get("vlan", 0), "vlanQoS": spec.get("vlanQoS", 0)}
    for field, key in (("spoofChk", "spoofchk"), ("trust", "trust"), ("vlanProto", "vlanProto"),
                       ("minTxRate", "min_tx_rate"), ("maxTxRate", "max_tx_rate")):
        if field in spec:
            plugin[key] = spec[field]
    if spec.get("capabilities"):
        plugin["capabilities"] = json.loads(spec["capabilities"])
    if spec.get("linkState"):
        plugin["link_state"] = spec["linkState"]
    for field in ("logLevel", "logFile"):  # passed on only when set
        if spec.get(field):
            plugin[field] = spec[field]
    # The operator strips every whitespace character from the ipam string, even inside its values.
    plugin["ipam"] = json.loads("".join(spec["ipam"].split())) if spec.get("ipam") else {}
    config: dict[str, t.Any] = {"cniVersion": "1.0.0", "name": meta["name"]}
    if spec.get("metaPlugins"):  # a conflist: sriov first, then the chained plugins
        config["plugins"] = [plugin, *json.loads(f"[{spec['metaPlugins']}]")]
    else:
        config.update(plugin)
    return {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
            "metadata": {"name": meta["name"], "namespace": target, "annotations": {
                "k8s.v1.cni.cncf.io/resourceName": f"{prefix}/{spec['resourceName']}",
                "sriovnetwork.openshift.io/owner-ref": f"SriovNetwork.sriovnetwork.openshift.io/{meta['namespace']}/"
                                                       f"{meta['name']}"}},
            "spec": {"config": json.dumps(config, separators=(",", ":"))}}
