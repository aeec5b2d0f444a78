# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The virt-observability-controller Deployment (v1 gate ``deployObservabilityController``).

HCO creates it only when the gate is on (a v1-only setting, carried on v1beta1 by the ``hco.kubevirt.io/v1-only-fields``
annotation), its image variable is set and monitoring is available (PrometheusRule and ServiceMonitor CRDs). Only the
Deployment depends on the HyperConverged (TLS profile, v1 ``observability`` allow-lists); its ServiceAccount and RBAC
are fixed. PRIVATE.
"""

from __future__ import annotations

import typing as t

from ..tls import source_ciphers
from ..view import HCView
from . import common

NAME = "virt-observability-controller"
# hcoutil.AppComponentObservability, on every object and in the Deployment's selector and pod template (HCO v1.20.0,
# controllers/handlers/observabilitycontroller/deployment.go).
COMPONENT = "virt-observability-controller"
IMAGE_VARIABLE = "OBSERVABILITY_CONTROLLER_IMAGE"
GATE = "deployObservabilityController"
# v1 ``observability`` allow-list -> controller flag, in the order the flags are added.
ALLOWLISTS = (("allowedMetrics", "--metrics-allowlist"), ("allowedAlerts", "--alerts-allowlist"),
              ("allowedRecordingRules", "--recording-rules-allowlist"))


def enabled(view: HCView) -> bool:
    return bool(view.profile.v1_hub and view.gate(GATE) and view.env.get(IMAGE_VARIABLE) and view.facts.monitoring)


def _tls_args(view: HCView) -> list[str]:
    kind = view.tls_profile.get("type", "")
    args = [f"--tls-security-profile={kind}"]
    if kind == "Custom":
        ciphers, minimum = source_ciphers(view.tls_profile, view.profile.tls)
        if minimum:
            args.append(f"--tls-min-version={minimum}")
        if ciphers:
            args.append("--tls-cipher-suites=" + ",".join(ciphers))  # OpenSSL names, as the profile gives them
    return args


def _allowlist_args(view: HCView) -> list[str]:
    # v1 Observability: workloads.allowedMetrics, and allowedAlerts / allowedRecordingRules beside workloads.
    observability: dict[str, t.Any] = view.v1.observability or {}
    sources: dict[str, list[t.Any]] = {
        "allowedMetrics": (observability.get("workloads") or {}).get("allowedMetrics") or [],
        "allowedAlerts": observability.get("allowedAlerts") or [],
        "allowedRecordingRules": observability.get("allowedRecordingRules") or []}
    return [f"{flag}={','.join(str(v) for v in sources[field])}" for field, flag in ALLOWLISTS if sources[field]]


def build(view: HCView) -> list[dict[str, t.Any]]:
    deployment = common.new_object(view, "apps/v1", "Deployment", NAME, COMPONENT)
    container: dict[str, t.Any] = {
        "args": ["--metrics-bind-address=:8443", "--metrics-secure=true", "--health-probe-bind-address=:8081",
                 "--leader-elect=false", *_tls_args(view), *_allowlist_args(view)],
        # HCO leaves fieldRef.apiVersion and the probes' scheme unset (the API server's defaults fill them).
        "env": [
            {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
            {"name": "POD_SERVICE_ACCOUNT", "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}}},
        ],
        "image": view.env.get(IMAGE_VARIABLE),
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8081},
                          "initialDelaySeconds": 15, "periodSeconds": 20},
        "name": "manager",
        "ports": [{"containerPort": 8443, "name": "metrics", "protocol": "TCP"},
                  {"containerPort": 8081, "name": "health", "protocol": "TCP"}],
        "readinessProbe": {"httpGet": {"path": "/readyz", "port": 8081},
                           "initialDelaySeconds": 5, "periodSeconds": 10},
        "resources": {"limits": {"memory": "128Mi"}, "requests": {"cpu": "10m", "memory": "64Mi"}},
        "securityContext": common.restricted_security_context(),
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    deployment["spec"] = common.one_replica(view, COMPONENT, {
        "containers": [container],
        "priorityClassName": "system-cluster-critical",
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "serviceAccountName": NAME,
        "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}],
    })
    return [deployment]
