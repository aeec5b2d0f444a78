# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The virt-network-resources-injector Deployment (deployed unless v1 ``deployNetworkResourcesInjector`` is false).

Only the Deployment is rendered: its Service, RBAC, PDB and webhook configuration do not depend on the
HyperConverged spec. PRIVATE.
"""

from __future__ import annotations

import typing as t

from ..tls import source_ciphers, to_iana
from ..view import HCView
from . import common

NAME = "virt-network-resources-injector"


def enabled(view: HCView) -> bool:
    return view.v1.deploy_network_resources_injector


def _tls_args(view: HCView) -> list[str]:
    ciphers, minimum = source_ciphers(view.tls_profile, view.profile.tls)
    args = [f"-tls-min-version={minimum}"]
    names = to_iana(ciphers, view.profile.tls)
    if minimum != "VersionTLS13" and names:
        args.append("-tls-cipher-suites=" + ",".join(names))
    return args


def _prefer(key: str, operator: str, weight: int) -> dict[str, t.Any]:
    return {"preference": {"matchExpressions": [{"key": key, "operator": operator}]}, "weight": weight}


def build(view: HCView) -> dict[str, t.Any]:
    # The Deployment as HCO writes it (a literal tree, compared field for field with HCO's); only its labels,
    # replicas, TLS arguments and image depend on the inputs.
    deployment = common.new_object(view, "apps/v1", "Deployment", NAME, NAME)
    pod_labels = common.labels(view, NAME)
    deployment["spec"] = {
        "replicas": 2 if view.facts.infrastructure_highly_available else 1,
        "selector": {"matchLabels": {"app": common.APP_LABEL, "app.kubernetes.io/component": NAME}},
        "strategy": {},
        "template": {
            "metadata": {"annotations": {"openshift.io/required-scc": "restricted-v2"}, "labels": pod_labels},
            "spec": {
                "affinity": _affinity(),
                "containers": [_container(view)],
                "nodeSelector": {"kubernetes.io/os": "linux"},
                "priorityClassName": "system-cluster-critical",
                "securityContext": {"runAsNonRoot": True},
                "serviceAccountName": "virt-network-resources-injector-sa",
                "tolerations": [
                    {"key": "CriticalAddonsOnly", "operator": "Exists"},
                    {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane", "operator": "Exists"},
                ],
                "volumes": [{"name": "tls", "secret": {"secretName": "virt-network-resources-injector-secret"}}],
            },
        },
    }
    return deployment


def _affinity() -> dict[str, t.Any]:
    """Preferably on control-plane nodes, one replica per node."""
    return {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                _prefer("node-role.kubernetes.io/control-plane", "Exists", 100),
                _prefer("node-role.kubevirt.io/control-plane", "Exists", 100),
                _prefer("node-role.kubernetes.io/worker", "DoesNotExist", 50),
            ]
        },
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "podAffinityTerm": {
                        "labelSelector": {"matchExpressions": [
                            {"key": "app.kubernetes.io/component", "operator": "In", "values": [NAME]}
                        ]},
                        "topologyKey": "kubernetes.io/hostname",
                    },
                    "weight": 1,
                }
            ]
        },
    }


def _container(view: HCView) -> dict[str, t.Any]:
    container: dict[str, t.Any] = {
        "args": [
            "-bind-address=0.0.0.0",
            "-port=6443",
            "-tls-private-key-file=/etc/tls/tls.key",
            "-tls-cert-file=/etc/tls/tls.crt",
            "-insecure=true",
            "-logtostderr=true",
            "-alsologtostderr=true",
            *_tls_args(view),
        ],
        "command": ["webhook"],
        "env": [{"name": "NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                 "fieldPath": "metadata.namespace"}}}],
        "image": view.env.get("NETWORK_RESOURCES_INJECTOR_IMAGE"),
        "imagePullPolicy": "IfNotPresent",
        "name": "webhook-server",
        "resources": {"requests": {"cpu": "10m", "memory": "50Mi"}},
        "securityContext": common.restricted_security_context(),
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": [{"mountPath": "/etc/tls", "name": "tls", "readOnly": True}],
    }
    if not container["image"]:
        del container["image"]   # no image in the environment: none is written
    return container
