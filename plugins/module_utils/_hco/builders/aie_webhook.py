# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubevirt-aie-webhook Deployment and its launcher ConfigMap (HC annotation ``hco.kubevirt.io/deployAIE: "true"``).

Only the objects whose content depends on the HyperConverged are rendered: the Deployment (TLS flags) and the
ConfigMap (created with an empty rule list; users edit it). The Service, RBAC and webhook configuration are fixed.
PRIVATE.
"""

from __future__ import annotations

import typing as t

from ..tls import source_ciphers, to_iana
from ..view import HCView
from . import common

NAME = "kubevirt-aie-webhook"
COMPONENT = "aie-webhook"
CONFIG_MAP = "kubevirt-aie-launcher-config"
ANNOTATION = "hco.kubevirt.io/deployAIE"
CERT_PATH = "/tmp/k8s-webhook-server/serving-certs"  # inside the webhook container


def enabled(view: HCView) -> bool:
    return view.annotation_true(ANNOTATION)


def _tls_args(view: HCView) -> list[str]:
    ciphers, minimum = source_ciphers(view.tls_profile, view.profile.tls)
    args = [f"--tls-min-version={minimum}"] if minimum else []
    names = to_iana(ciphers, view.profile.tls)
    # HCO compares the version names as strings: VersionTLS10..12 sort before VersionTLS13.
    if minimum < "VersionTLS13" and names:
        args.append("--tls-cipher-suites=" + ",".join(names))
    return args


def _probe(path: str) -> dict[str, t.Any]:
    return {"httpGet": {"path": path, "port": 8081, "scheme": "HTTP"}, "initialDelaySeconds": 5, "periodSeconds": 10}


def build(view: HCView) -> list[dict[str, t.Any]]:
    deployment = common.new_object(view, "apps/v1", "Deployment", NAME, COMPONENT)
    container: dict[str, t.Any] = {
        "args": ["--metrics-bind-address=:8443", "--metrics-secure=true", f"--webhook-cert-path={CERT_PATH}",
                 f"--metrics-cert-path={CERT_PATH}", *_tls_args(view)],
        "env": [{"name": "NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}],
        "image": view.env.get("AIE_WEBHOOK_IMAGE"),
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": _probe("/healthz"),
        "name": "webhook",
        "ports": [{"containerPort": 9443, "name": "https", "protocol": "TCP"},
                  {"containerPort": 8443, "name": "metrics", "protocol": "TCP"},
                  {"containerPort": 8081, "name": "health", "protocol": "TCP"}],
        "readinessProbe": _probe("/readyz"),
        "resources": {"limits": {"cpu": "200m", "memory": "128Mi"}, "requests": {"cpu": "100m", "memory": "64Mi"}},
        "securityContext": common.restricted_security_context(),
        "volumeMounts": [{"mountPath": CERT_PATH, "name": "tls-cert", "readOnly": True}],
    }
    if not container["image"]:
        del container["image"]  # omitempty: HCO creates the Deployment even without the image variable
    deployment["spec"] = common.one_replica(view, COMPONENT, {
        "containers": [container],
        "serviceAccountName": NAME,
        "volumes": [{"name": "tls-cert", "secret": {"secretName": f"{NAME}-tls"}}],
    })
    config_map = common.new_object(view, "v1", "ConfigMap", CONFIG_MAP, COMPONENT)
    config_map["data"] = {"config.yaml": "rules:\n"}
    return [deployment, config_map]
