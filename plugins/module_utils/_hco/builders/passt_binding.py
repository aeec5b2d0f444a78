# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The passt binding CNI that HCO 1.16 to 1.18 deploy on request (``hco.kubevirt.io/deployPasstNetworkBinding``):
a DaemonSet copying the plugin onto every node, the NetworkAttachmentDefinition KubeVirt's ``passt`` binding names,
and on OpenShift its ServiceAccount and SecurityContextConstraints (HCO v1.18.1,
``controllers/handlers/passt/passt.go``). From 1.19 KubeVirt's network-binding plumbing replaces it. PRIVATE.
"""

from __future__ import annotations

import typing as t

from ..view import HCView
from . import common

ANNOTATION = "hco.kubevirt.io/deployPasstNetworkBinding"
NAME = "passt-binding-cni"
COMPONENT = "network"
NETWORK_ATTACHMENT_DEFINITION = "default/primary-udn-kubevirt-binding"
_INSTALL = ('ls -la "/cni/kubevirt-passt-binding"\n'
            'cp -f "/cni/kubevirt-passt-binding" "/opt/cni/bin"\n'
            'echo "passt binding CNI plugin installation complete..sleep infinity"\n'
            'sleep 2147483647')
_NAD_CONFIG = ('{\n  "cniVersion": "1.0.0",\n  "name": "primary-udn-kubevirt-binding",\n  "plugins": [\n    {\n'
               '      "type": "kubevirt-passt-binding"\n    }\n  ]\n}')


def enabled(view: HCView) -> bool:
    return view.annotation_true(ANNOTATION)


def kubevirt_binding(view: HCView) -> dict[str, t.Any]:
    """KubeVirt's ``passt`` network binding that goes with the CNI (HCO v1.18.1, ``passt.NetworkBinding``)."""
    rules = view.profile.kubevirt.get("passt_annotation_binding")
    if not rules or not enabled(view):
        return {}
    return {"passt": {
        "networkAttachmentDefinition": NETWORK_ATTACHMENT_DEFINITION,
        **common.omit_empty({"sidecarImage": view.env.get(rules["sidecar_image_env"])}),
        "migration": {},
        "computeResourceOverhead": {"requests": {"memory": rules["memory"]}},
    }}


def build(view: HCView) -> list[dict[str, t.Any]]:
    objects = [_daemonset(view), _network_attachment_definition(view)]
    if view.facts.is_openshift:
        objects.insert(0, common.new_object(view, "v1", "ServiceAccount", NAME, COMPONENT))
        objects.append(_security_context_constraints(view))
    return objects


def _daemonset(view: HCView) -> dict[str, t.Any]:
    daemonset = common.new_object(view, "apps/v1", "DaemonSet", NAME, COMPONENT)
    daemonset["metadata"]["labels"]["tier"] = "node"
    openshift = view.facts.is_openshift
    pod: dict[str, t.Any] = {
        "containers": [{
            "args": [_INSTALL],
            "command": ["/bin/sh", "-ce"],
            **common.omit_empty({"image": view.env.get("PASST_CNI_IMAGE")}),
            "imagePullPolicy": "IfNotPresent",
            "name": "installer",
            "resources": {"requests": {"cpu": "10m", "memory": "15Mi"}},
            "securityContext": {"privileged": True},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "FallbackToLogsOnError",
            "volumeMounts": [{"mountPath": "/opt/cni/bin", "name": "cnibin"}],
        }],
        "priorityClassName": "system-cluster-critical",
        "volumes": [{"hostPath": {"path": "/var/lib/cni/bin" if openshift else "/opt/cni/bin", "type": ""},
                     "name": "cnibin"}],
    }
    if openshift:
        pod["serviceAccountName"] = NAME
    first = view.profile.first_daemonsets
    if first:
        del pod["containers"][0]["terminationMessagePath"], pod["containers"][0]["terminationMessagePolicy"]
        del pod["volumes"][0]["hostPath"]["type"]
    if view.infra is not None:
        pod.update(common.placement(view.infra))
    elif view.facts.infrastructure_highly_available:
        pod["affinity"] = common.pod_anti_affinity(COMPONENT)
    daemonset["spec"] = {
        "selector": {"matchLabels": {"name": NAME}},
        "template": {
            "metadata": {"annotations": {"description": f"{NAME} installs 'passt binding' CNI on cluster nodes"},
                         "labels": {"app": NAME, "name": NAME, "tier": "node"}},
            "spec": pod,
        },
        "updateStrategy": {"rollingUpdate": {"maxUnavailable": "10%"} if first else
                           {"maxSurge": 0, "maxUnavailable": "10%"}, "type": "RollingUpdate"},
    }
    return daemonset


def _network_attachment_definition(view: HCView) -> dict[str, t.Any]:
    namespace, name = NETWORK_ATTACHMENT_DEFINITION.split("/")
    nad = common.new_object(view, "k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition", name, COMPONENT)
    nad["metadata"]["namespace"] = namespace
    nad["spec"] = {"config": _NAD_CONFIG}
    return nad


def _security_context_constraints(view: HCView) -> dict[str, t.Any]:
    scc = common.new_object(view, "security.openshift.io/v1", "SecurityContextConstraints", NAME, COMPONENT,
                            namespaced=False)
    scc.update({
        "allowHostDirVolumePlugin": True, "allowHostIPC": False, "allowHostNetwork": False, "allowHostPID": False,
        "allowHostPorts": False, "allowPrivilegedContainer": True, "readOnlyRootFilesystem": False,
        "runAsUser": {"type": "RunAsAny"}, "seLinuxContext": {"type": "RunAsAny"},
        "users": [f"system:serviceaccount:{view.facts.namespace}:{NAME}"], "volumes": ["*"],
    })
    return scc
