# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SR-IOV node policies and networks, with the sriov-network-operator's admission rules re-implemented.

Flavours differ: ``upstream`` (k8snetworkplumbingwg) and ``openshift`` (the OpenShift fork: another resource-name
rule, another supported-NIC list, resource prefix ``openshift.io``). The checks against the nodes are in
sriov_nodes.py, the networks and their NADs in sriov_networks.py.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import re
import typing as t

from .._common.names import QUALIFIED_NAME_PART
from .common import Problems, check_keys, check_label_map, node_list, path, selector_matches
from .sriov_networks import render_nad, sriov_network
from .sriov_nodes import SUPPORTED_NICS, check_nic_selector, check_nodes, check_overlaps, pf_aliases

KEYS = frozenset(("flavour", "operator_namespace", "supported_nics", "operator_config", "existing_policies", "policies",
                  "networks", "dev_mode", "allow_control_plane", "node_states"))
# SriovNetworkNodePolicy and SriovNetwork spec fields (their CRDs), plus the object's name and namespace.
POLICY_KEYS = frozenset(("name", "namespace", "state", "bridge", "deviceType", "eSwitchMode", "excludeTopology",
                         "externallyManaged", "isRdma", "linkType", "mtu", "needVhostNet", "nicSelector", "nodeSelector",
                         "numVfs", "priority", "resourceName", "vdpaType"))
NIC_SELECTOR_KEYS = frozenset(("deviceID", "netFilter", "pfNames", "rootDevices", "vendor"))
NETWORK_KEYS = frozenset(("name", "namespace", "state", "capabilities", "ipam", "linkState", "logFile", "logLevel", "maxTxRate",
                          "metaPlugins", "minTxRate", "networkNamespace", "resourceName", "spoofChk", "trust", "vlan",
                          "vlanProto", "vlanQoS"))
FLAVOURS: dict[str, dict[str, t.Any]] = {
    "upstream": {"name": "upstream", "namespace": "sriov-network-operator", "prefix": "openshift.io",
                 "resource_name": re.compile(r"^[a-zA-Z0-9]([a-zA-Z0-9_-]*[a-zA-Z0-9])?\Z")},
    # The fork checks ^[a-zA-Z0-9_]+$ only, with no length limit; beyond that the kubelet's rule is applied.
    "openshift": {"name": "openshift", "namespace": "openshift-sriov-network-operator", "prefix": "openshift.io",
                  "resource_name": re.compile(r"^[a-zA-Z0-9_]+\Z"), "unlimited": True},
}
MTU_RULE = "must be within 1-9216 (the config daemon cannot set a larger MTU on a PF, and the node fails)"


def check_input(problems: Problems, spec: t.Mapping[str, t.Any]) -> None:
    """Unknown keys in policies (with their nicSelector) and networks: the CRDs' spec fields plus name/namespace."""
    for index, policy in enumerate(spec.get("policies") or []):
        check_keys(problems, path("policies", index), policy, POLICY_KEYS)
        if isinstance(policy, dict):
            check_keys(problems, path("policies", index, "nicSelector"), policy.get("nicSelector"), NIC_SELECTOR_KEYS)
    for index, network in enumerate(spec.get("networks") or []):
        check_keys(problems, path("networks", index), network, NETWORK_KEYS)


def plan(spec: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    problems = Problems("sriov")
    flavour = spec.get("flavour", "openshift" if spec.get("platform") == "openshift" else "upstream")
    if flavour not in FLAVOURS:
        problems.error("flavour", "must be upstream or openshift")
        problems.raise_if_any()
    profile = FLAVOURS[flavour]
    namespace = spec.get("operator_namespace", profile["namespace"])
    nics = SUPPORTED_NICS[flavour]
    vf_models: dict[str, set[str]] | None = None   # unknown unless the cluster's list is given
    if spec.get("supported_nics"):  # the cluster's own ConfigMap data ("vendor pf-device vf-device" per entry)
        entries = spec["supported_nics"]
        nics, vf_models = {}, {}
        for entry in entries.values() if isinstance(entries, dict) else entries:
            fields = str(entry).split()
            if len(fields) < 2:
                problems.error("supported_nics", f"{entry!r} is not 'vendor pf-device vf-device'")
                continue
            nics.setdefault(fields[0], set()).add(fields[1])
            if len(fields) > 2:
                vf_models.setdefault(fields[0], set()).add(fields[2])
        problems.raise_if_any()   # every NIC check depends on the list: no knock-on errors
    objects: list[dict[str, t.Any]] = []
    operator_config = _operator_config(problems, spec.get("operator_config"), namespace)
    if operator_config:
        objects.append(operator_config)
    accepted: list[tuple[str, dict[str, t.Any]]] = [
        (f"existing policy {p.get('metadata', {}).get('name', i)}", p.get("spec", p))
        for i, p in enumerate(spec.get("existing_policies") or [])]
    resource_names = {p.get("resourceName") for _path, p in accepted}
    removed: list[dict[str, t.Any]] = []
    for index, policy in enumerate(spec.get("policies") or []):
        where = path("policies", index)
        if _absent(problems, where, policy):
            removed.append(_reference("SriovNetworkNodePolicy", policy, namespace))
            continue
        built = _policy(problems, where, policy, spec, profile, nics, accepted, vf_models)
        if built:
            built["metadata"]["namespace"] = policy.get("namespace", namespace)
            if built["metadata"]["namespace"] != namespace:
                problems.warn(f"{where}: policy {built['metadata']['name']} is created in namespace "
                              f"{built['metadata']['namespace']} but not used: the operator reads policies from "
                              f"{namespace} only")
            _reboot_warning(problems, where, built, spec)
            objects.append(built)
            accepted.append((f"policy {built['metadata']['name']}", built["spec"]))
            resource_names.add(built["spec"]["resourceName"])
    nads = []
    for index, network in enumerate(spec.get("networks") or []):
        if _absent(problems, path("networks", index), network):
            removed.append(_reference("SriovNetwork", network, namespace))
            continue
        built = sriov_network(problems, path("networks", index), network, namespace, resource_names)
        if built:
            objects.append(built)
            nads.append(render_nad(built, profile["prefix"]))
    problems.raise_if_any()
    return {"objects": objects, "delete": removed, "generated_nads": nads, "warnings": problems.warnings,
            "flavour": flavour}


def _absent(problems: Problems, where: str, item: t.Any) -> bool:
    """``state: absent`` marks an object to delete (only if this collection's apply set created it)."""
    if not isinstance(item, dict):
        return False
    state = item.get("state", "present")
    if state not in ("present", "absent"):
        problems.error(path(where, "state"), "must be present or absent")
    if state == "absent" and not item.get("name"):
        problems.error(path(where, "name"), "required to say what to delete")
    return state == "absent" and bool(item.get("name"))


def _reference(kind: str, item: t.Mapping[str, t.Any], namespace: str) -> dict[str, t.Any]:
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": kind,
            "metadata": {"name": item["name"], "namespace": item.get("namespace", namespace)}}


def _policy(problems: Problems, where: str, policy: t.Any, spec: t.Mapping[str, t.Any], profile: dict[str, t.Any],
            nics: dict[str, set[str]], accepted: list[tuple[str, dict[str, t.Any]]],
            vf_models: dict[str, set[str]] | None = None) -> dict[str, t.Any] | None:
    if not isinstance(policy, dict) or not policy.get("name"):
        problems.error(where, "each policy needs a name")
        return None
    before = len(problems.errors)
    body = {k: v for k, v in policy.items() if k not in ("name", "namespace", "state")}
    if policy["name"] == "default":
        # The operator's own policy: its webhook does not validate it, and neither do we.
        problems.warn(f"{where}: policy 'default' is the operator's own and is not validated (its webhook skips it)")
        return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy",
                "metadata": {"name": "default"}, "spec": body}
    _check_resource_name(problems, path(where, "resourceName"), body.get("resourceName"), profile)
    selector = check_label_map(problems, path(where, "nodeSelector"), body.get("nodeSelector"))
    if not selector:
        problems.error(path(where, "nodeSelector"), "required")
    num_vfs = body.get("numVfs")
    if not isinstance(num_vfs, int) or isinstance(num_vfs, bool) or num_vfs < 0:
        problems.error(path(where, "numVfs"), "required, an integer of at least 0")
        num_vfs = 0
    priority = body.setdefault("priority", 99)  # mutating webhook default: lowest priority
    if not isinstance(priority, int) or not 0 <= priority <= 99:
        problems.error(path(where, "priority"), "must be within 0-99")
    if "mtu" in body and (not isinstance(body["mtu"], int) or not 1 <= body["mtu"] <= 9216):
        problems.error(path(where, "mtu"), MTU_RULE)
    _device_rules(problems, where, body)
    nic = body.get("nicSelector") or {}
    check_nic_selector(problems, path(where, "nicSelector"), nic, body, spec, nics, num_vfs)
    check_nodes(problems, where, body, selector, spec, nics, num_vfs, vf_models)
    # The stored copy of this same policy (a re-run with the cluster's policies) is not an overlap: the operator
    # skips the object with the policy's own name.
    others = [(label, other) for label, other in accepted if label != f"existing policy {policy['name']}"]
    check_overlaps(problems, where, body, others, num_vfs, pf_aliases(spec.get("node_states")))
    if len(problems.errors) > before:
        return None
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy",
            "metadata": {"name": policy["name"]}, "spec": body}


OPERATOR_CONFIG_FIELDS = frozenset((
    "configDaemonNodeSelector", "enableInjector", "enableOperatorWebhook", "logLevel", "disableDrain",
    "configurationMode", "useCDI", "disablePlugins", "featureGates", "configDaemonEnvVars"))


def _check_resource_name(problems: Problems, where: str, resource: t.Any, profile: dict[str, t.Any]) -> None:
    """The flavour's webhook rule, then the kubelet's (IsExtendedResourceName) where the webhook is looser."""
    if not isinstance(resource, str) or (len(resource) > 63 and not profile.get("unlimited")) \
            or not profile["resource_name"].match(resource):
        hint = (" (the OpenShift operator allows letters, digits and '_' only)"
                if "-" in str(resource) and profile["name"] == "openshift" else "")
        problems.error(where, f"resource name {resource!r} is invalid{hint}")
    elif len(resource) > 63 or not QUALIFIED_NAME_PART.match(resource):
        # Deliberately earlier than the OpenShift webhook, which admits it: the kubelet refuses it later.
        problems.error(where,
                       f"resource name {resource!r} is admitted by the OpenShift operator, but the kubelet would "
                       f"refuse the device plugin's registration (the ResourceName \"{profile['prefix']}/{resource}\" "
                       "is invalid: kubernetes pkg/kubelet/cm/devicemanager, IsExtendedResourceName, whose name part "
                       "is at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit) "
                       "and no VF would ever be allocatable")


def _device_rules(problems: Problems, where: str, body: dict[str, t.Any]) -> None:
    """The webhook's defaults and rules for how VFs are exposed: driver, link type, RDMA, switchdev, vDPA and the
    software bridge (``body`` gets the webhook's mutations)."""
    device_type = body.setdefault("deviceType", "vfio-pci")
    if device_type not in ("netdevice", "vfio-pci"):
        problems.error(path(where, "deviceType"), "must be netdevice or vfio-pci")
    elif device_type != "vfio-pci":
        problems.warn(f"{where}: KubeVirt VMs consume VFs bound to vfio-pci; netdevice VFs serve pods")
    link = body.get("linkType")
    if link is not None and link not in ("eth", "ETH", "ib", "IB"):
        problems.error(path(where, "linkType"), "must be eth or ib")
    if link in ("ib", "IB") and device_type == "netdevice":
        body["isRdma"] = True  # the webhook's mutation: an InfiniBand netdevice VF is always RDMA
    elif "isRdma" not in body:
        body["isRdma"] = False
    if device_type == "vfio-pci" and body.get("isRdma"):
        problems.error(path(where, "isRdma"), "RDMA mode is not supported with deviceType vfio-pci")
    switchdev = body.get("eSwitchMode") == "switchdev"
    if switchdev and link in ("ib", "IB"):
        problems.error(path(where, "eSwitchMode"), "switchdev mode is supported for ethernet link type only")
    if body.get("vdpaType") and (device_type != "netdevice" or not switchdev):
        problems.error(path(where, "vdpaType"), "vdpa requires deviceType netdevice and eSwitchMode switchdev")
    if body.get("bridge") and (not switchdev or body.get("externallyManaged")):
        problems.error(path(where, "bridge"), "software bridge management requires eSwitchMode switchdev and is "
                                              "incompatible with externallyManaged")


def _operator_config(problems: Problems, config: t.Any, namespace: str) -> dict[str, t.Any] | None:
    """The SriovOperatorConfig: the operator only reads the one named ``default`` in its own namespace."""
    if config is None:
        return None
    if not isinstance(config, dict):
        problems.error("operator_config", "must be a mapping")
        return None
    name = config.get("name", "default")
    if name != "default":
        problems.error("operator_config.name", f"only default SriovOperatorConfig in {namespace} namespace is used")
    body = {k: v for k, v in config.items() if k != "name"}
    for key in sorted(set(body) - OPERATOR_CONFIG_FIELDS):
        problems.error(path("operator_config", key), "unknown SriovOperatorConfig field")
    level = body.get("logLevel")
    if level is not None and (not isinstance(level, int) or not 0 <= level <= 2):
        problems.error("operator_config.logLevel", "must be within 0-2")
    if body.get("configurationMode", "daemon") not in ("daemon", "systemd"):
        problems.error("operator_config.configurationMode", "must be daemon or systemd")
    check_label_map(problems, "operator_config.configDaemonNodeSelector", body.get("configDaemonNodeSelector"))
    return {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovOperatorConfig",
            "metadata": {"name": "default", "namespace": namespace}, "spec": body}


IOMMU_KERNEL_ARGS = {"intel": "intel_iommu=on iommu=pt", "amd": "iommu=pt"}


def _reboot_warning(problems: Problems, where: str, policy: t.Mapping[str, t.Any],
                    spec: t.Mapping[str, t.Any]) -> None:
    """vfio-pci needs the IOMMU: the config daemon adds kernel arguments, which drains and reboots each node."""
    if policy["spec"].get("deviceType") != "vfio-pci":
        return
    selector = policy["spec"].get("nodeSelector") or {}
    nodes = spec.get("nodes")
    if nodes is None:
        problems.warn(f"{where}: vfio-pci needs the IOMMU: on nodes without it the config daemon adds the kernel "
                      f"arguments {IOMMU_KERNEL_ARGS['intel']} (Intel) or {IOMMU_KERNEL_ARGS['amd']} (AMD), then "
                      "drains and reboots each selected node")
        return
    without: dict[str, list[str]] = {}   # kernel arguments -> the nodes that get them: one warning each
    for node in nodes:
        # Only a node known to lack it: where the inventory does not say, the preflight role checks the node itself.
        if isinstance(node, dict) and selector_matches(selector, node.get("labels") or {}) \
                and node.get("iommu") is False:
            vendor = str(node.get("cpu_vendor", "intel")).lower()
            without.setdefault(IOMMU_KERNEL_ARGS.get(vendor, IOMMU_KERNEL_ARGS["intel"]), []).append(str(node.get("name")))
    for arguments, names in without.items():
        subject = f"node {names[0]} has" if len(names) == 1 else f"nodes {node_list(names)} have"
        problems.warn(f"{where}: {subject} no IOMMU enabled: the config daemon adds the kernel arguments {arguments}, "
                      f"then drains and reboots {'it' if len(names) == 1 else 'each'}")
