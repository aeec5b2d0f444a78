# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The wasp-agent DaemonSet (swap for VMs on OpenShift, and on Kubernetes before LimitedSwap), its SCC and alerts,
and the upgrade from an older wasp-agent, as OpenShift Virtualization ships them.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .common import (
    Problems,
)
from .machine_configs import kubelet_config

WASP_IMAGE = "quay.io/openshift-virtualization/wasp-agent:v1.2.2"
# Eviction settings the agent dropped in wasp-agent@217a31c (FSROOT in @fd075f2): an old template still setting them
# belongs to an old image, which panics when they are unset.
OBSOLETE_WASP_ENV = ("SWAP_UTILIZATION_THRESHOLD_FACTOR", "MAX_AVERAGE_SWAP_IN_PAGES_PER_SECOND",
                     "MAX_AVERAGE_SWAP_OUT_PAGES_PER_SECOND", "AVERAGE_WINDOW_SIZE_SECONDS", "FSROOT")


def wasp_image(options: t.Mapping[str, t.Any], problems: Problems | None = None) -> str:
    """The image: given, else the wasp-agent entry of the HCO CSV's relatedImages, else the upstream release."""
    if options.get("image"):
        return str(options["image"])
    related = options.get("related_images")
    if related is None and isinstance(options.get("csv"), dict):
        related = (options["csv"].get("spec") or {}).get("relatedImages")
    for entry in related or []:
        if isinstance(entry, dict) and "wasp-agent" in str(entry.get("name", "")) and entry.get("image"):
            return str(entry["image"])
    if related is not None and problems is not None:
        problems.error("wasp.related_images", "no wasp-agent entry in the CSV's relatedImages")
    return WASP_IMAGE


def obsolete_wasp_env(daemonset: t.Mapping[str, t.Any]) -> list[str]:
    """Warnings for a wasp-agent DaemonSet that still sets the removed eviction variables."""
    warnings = []
    pod = ((daemonset.get("spec") or {}).get("template") or {}).get("spec") or {}
    for container in pod.get("containers") or []:
        for variable in container.get("env") or []:
            if variable.get("name") in OBSOLETE_WASP_ENV:
                warnings.append(f"wasp-agent container {container.get('name')}: {variable['name']} is obsolete "
                                "(eviction settings were removed in wasp-agent@217a31c, FSROOT in @fd075f2); "
                                "drop it together with the old image")
    return warnings


def wasp_upgrade(options: t.Mapping[str, t.Any], problems: Problems) -> list[dict[str, t.Any]]:
    """Objects of a wasp-agent v1.0 installation that the current one replaces (deleted before applying)."""
    previous = options.get("upgrade_from")
    if previous is None:
        return []
    if str(previous) != "1.0":
        problems.error("wasp.upgrade_from", "only 1.0 needs an upgrade step (later releases are applied in place)")
        return []
    old_config = options.get("previous_kubelet_config")
    if not isinstance(old_config, str) or not old_config:
        problems.error("wasp.previous_kubelet_config", "name the KubeletConfig created for wasp-agent 1.0 (with "
                                                       "evictionSoft): it is replaced by one with failSwapOn only")
        old_config = ""
    removed = [{"apiVersion": "monitoring.openshift.io/v1", "kind": "AlertingRule",
                "metadata": {"name": "wasp-alerts", "namespace": "openshift-monitoring"}}]
    if old_config and old_config != kubelet_config()["metadata"]["name"]:
        removed.append({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "KubeletConfig",
                        "metadata": {"name": old_config}})
    return removed


def wasp_objects(options: t.Mapping[str, t.Any], *, openshift: bool,
                 problems: Problems | None = None) -> list[dict[str, t.Any]]:
    """The manual wasp-agent deployment with least privilege (pods watch/list, not cluster-admin)."""
    namespace = options.get("namespace", "wasp")
    labels = {"wasp.io": ""}
    if openshift and options.get("prometheus_rule", True):
        labels["openshift.io/cluster-monitoring"] = "true"
    subject = {"kind": "ServiceAccount", "name": "wasp", "namespace": namespace}
    objects: list[dict[str, t.Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": labels}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "wasp", "namespace": namespace}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "wasp-cluster"},
         "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["watch", "list"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "wasp"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "wasp-cluster"},
         "subjects": [subject]},
    ]
    if openshift:
        objects.append(_scc(namespace))
    daemonset = _daemonset(namespace, wasp_image(options, problems))
    extra_env = options.get("extra_env") or []
    daemonset["spec"]["template"]["spec"]["containers"][0]["env"] += [dict(e) for e in extra_env]
    if problems is not None:
        for warning in obsolete_wasp_env(daemonset):
            problems.warn(warning)
    objects.append(daemonset)
    if options.get("prometheus_rule", openshift):
        objects.append(_prometheus_rule(namespace))
    return objects


def _scc(namespace: str) -> dict[str, t.Any]:
    return {
        "apiVersion": "security.openshift.io/v1", "kind": "SecurityContextConstraints",
        "metadata": {"name": "wasp"},
        "allowPrivilegedContainer": True, "allowHostDirVolumePlugin": True, "allowHostIPC": True,
        "allowHostNetwork": True, "allowHostPID": True, "allowHostPorts": True, "allowPrivilegeEscalation": True,
        "allowedCapabilities": ["*"], "allowedUnsafeSysctls": ["*"], "readOnlyRootFilesystem": False,
        "runAsUser": {"type": "RunAsAny"}, "seLinuxContext": {"type": "RunAsAny"},
        "fsGroup": {"type": "RunAsAny"}, "supplementalGroups": {"type": "RunAsAny"},
        "seccompProfiles": ["*"], "volumes": ["*"], "users": [f"system:serviceaccount:{namespace}:wasp"],
    }


def _daemonset(namespace: str, image: str) -> dict[str, t.Any]:
    return {
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "wasp-agent", "namespace": namespace, "labels": {"app": "wasp", "tier": "node"}},
        "spec": {
            "selector": {"matchLabels": {"name": "wasp"}},
            "updateStrategy": {"type": "RollingUpdate",
                               "rollingUpdate": {"maxUnavailable": "10%", "maxSurge": 0}},
            "template": {
                "metadata": {"labels": {"name": "wasp"}, "annotations": {"description": "swap for burstable pods"}},
                "spec": {
                    "serviceAccountName": "wasp", "hostPID": True, "hostUsers": True,
                    "priorityClassName": "system-node-critical", "terminationGracePeriodSeconds": 5,
                    "containers": [{
                        "name": "wasp-agent", "image": image, "imagePullPolicy": "IfNotPresent",
                        "securityContext": {"privileged": True},
                        "resources": {"requests": {"cpu": "100m", "memory": "50M"}},
                        "env": [{"name": "VERBOSITY", "value": "1"},
                                {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                        "volumeMounts": [{"name": "host", "mountPath": "/host"},
                                         {"name": "rootfs", "mountPath": "/rootfs"}],
                    }],
                    "volumes": [{"name": "host", "hostPath": {"path": "/"}},
                                {"name": "rootfs", "hostPath": {"path": "/"}}],
                },
            },
        },
    }


def _prometheus_rule(namespace: str) -> dict[str, t.Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
        "metadata": {"name": "wasp-rules", "namespace": namespace, "labels": {"tier": "node", "wasp.io": ""}},
        "spec": {"groups": [{"name": "alerts.rules", "rules": [{
            "alert": "NodeHighSwapActivity",
            "expr": "rate(node_vmstat_pswpout[1m]) > 200 and rate(node_vmstat_pswpin[1m]) > 200",
            "for": "1m",
            "labels": {"severity": "warning", "operator_health_impact": "warning",
                       "kubernetes_operator_part_of": "kubevirt", "kubernetes_operator_component": "kubevirt"},
            "annotations": {
                "summary": "High swap activity detected at {{ $labels.instance }}",
                "description": "Node {{ $labels.instance }} swaps in and out more than 200 pages per second.",
                "runbook_url": "https://github.com/openshift-virtualization/wasp-agent/tree/main/docs/runbooks/"
                               "NodeHighSwapActivity.md"},
        }]}]},
    }
