# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""wasp-agent (memory overcommit with swap): ServiceAccount, SecurityContextConstraints and DaemonSet, on OpenShift,
when memoryOvercommitPercentage is above 100 and the autopilot annotation does not take swap over.

Placement follows the *infra* nodePlacement (an HCO quirk: pinning infra components keeps the agent off VM nodes).
PRIVATE.
"""

from __future__ import annotations

import typing as t

from ..view import HCView
from . import common

NAME = "wasp-agent"
SERVICE_ACCOUNT = "wasp"
AUTOPILOT_ANNOTATION = "platform.kubevirt.io/autopilot"
EGRESS_LABEL = "np.kubevirt.io/allow-access-cluster-services"
FIRST_EGRESS_LABEL = "hco.kubevirt.io/allow-access-cluster-services"


def enabled(view: HCView) -> bool:
    if not view.facts.is_openshift:
        return False
    tokens = {token.strip() for token in view.annotations.get(AUTOPILOT_ANNOTATION, "").split(",")}
    if view.profile.wasp_autopilot_opt_out and ("true" in tokens or "swap-enable" in tokens):
        return False
    density = view.spec.get("higherWorkloadDensity") or {}
    return int(density.get("memoryOvercommitPercentage", 100)) > 100


def build(view: HCView) -> list[dict[str, t.Any]]:
    account = common.new_object(view, "v1", "ServiceAccount", SERVICE_ACCOUNT, NAME)
    scc = common.new_object(view, "security.openshift.io/v1", "SecurityContextConstraints", "wasp", NAME,
                            namespaced=False)
    scc.update({
        "allowPrivilegedContainer": True, "allowHostDirVolumePlugin": True, "allowHostIPC": True,
        "allowHostNetwork": True, "allowHostPID": True, "allowHostPorts": True, "readOnlyRootFilesystem": False,
        "runAsUser": {"type": "RunAsAny"}, "seLinuxContext": {"type": "RunAsAny"},
        "supplementalGroups": {"type": "RunAsAny"},
        "users": [f"system:serviceaccount:{view.facts.namespace}:{SERVICE_ACCOUNT}"],
        "volumes": ["*"], "allowedCapabilities": ["*"], "allowedUnsafeSysctls": ["*"], "seccompProfiles": ["*"],
    })
    return [account, scc, _daemonset(view)]


def _daemonset(view: HCView) -> dict[str, t.Any]:
    daemonset = common.new_object(view, "apps/v1", "DaemonSet", NAME, NAME)
    egress = FIRST_EGRESS_LABEL if view.profile.first_daemonsets else EGRESS_LABEL
    pod_labels = {**common.labels(view, NAME), egress: "true", "name": NAME}
    container: dict[str, t.Any] = {
        "name": NAME,
        "image": view.env.get("WASP_AGENT_IMAGE"),
        "imagePullPolicy": "IfNotPresent",
        "env": [{"name": "VERBOSITY", "value": "1"},
                {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}],
        "resources": {"requests": {"cpu": "100m", "memory": "50M"}},
        "securityContext": {"privileged": True},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": [{"mountPath": "/host", "name": "host"}, {"mountPath": "/rootfs", "name": "rootfs"}],
    }
    if not container["image"]:
        del container["image"]
    first = view.profile.first_daemonsets
    if first:
        del container["env"][1]["valueFrom"]["fieldRef"]["apiVersion"]
        del container["terminationMessagePath"], container["terminationMessagePolicy"]
    pod: dict[str, t.Any] = {
        "containers": [container],
        "hostPID": True,
        "hostUsers": True,
        "priorityClassName": "system-node-critical",
        "serviceAccountName": SERVICE_ACCOUNT,
        "terminationGracePeriodSeconds": 5,
        "volumes": [{"hostPath": {"path": "/", **({} if first else {"type": ""})}, "name": name}
                    for name in ("host", "rootfs")],
    }
    if view.infra is not None:
        pod.update(common.placement(view.infra))
    elif view.facts.infrastructure_highly_available:  # unlike the console Deployments: only without any placement
        pod["affinity"] = common.pod_anti_affinity(NAME)
    daemonset["spec"] = {
        "selector": {"matchLabels": {"name": NAME}},
        "template": {"metadata": {"labels": pod_labels}, "spec": pod},
        "updateStrategy": {} if view.profile.first_daemonsets else {
            "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}, "type": "RollingUpdate"},
    }
    return daemonset
