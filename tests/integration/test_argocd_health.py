# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tree's Argo CD health checks, run in gopher-lua as Argo CD runs them (tests/harness/argocd_health: its library
set, its obj, its check of the returned status), against status samples of each kind as its operator writes it: the
condition types and reasons of HCO (controllers/hyperconverged: Init, ReconcileCompleted, HCOProgressing, HCODegraded),
virt-operator and cdi-operator (phase and conditions), kubernetes-nmstate's policies (SuccessfullyConfigured,
ConfigurationProgressing, FailedToConfigure) and OLM (operator-framework/api v1alpha1: Subscription states and
condition types, CSV phases). Each kind: a fresh object, one in progress, one degraded, one healthy."""

from __future__ import annotations

import json
import pathlib
import subprocess
import typing as t

import pytest
from harness.go_tools import built

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._argocd_health import HEALTH


@pytest.fixture(scope="module")
def vm() -> pathlib.Path:
    return built("build-argocd-health")


def judge(vm: pathlib.Path, script: str, objects: list[dict[str, t.Any]]) -> list[dict[str, str]]:
    done = subprocess.run([str(vm)], input=json.dumps({"script": script, "objects": objects}), capture_output=True,
                          text=True, check=True, timeout=60)
    return [json.loads(line) for line in done.stdout.splitlines()]


def condition(kind: str, status: str, reason: str, message: str = "") -> dict[str, str]:
    return {"type": kind, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": "2026-11-30T10:02:11Z"}


def operator_samples(api_version: str, kind: str, phase: bool) -> list[tuple[dict[str, t.Any], str]]:
    """A fresh object, one deploying, one degraded, one healthy, one healthy but for an older generation."""
    base = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", "generation": 3}}

    def with_status(conditions, phase_name, observed=3):
        status: dict[str, t.Any] = {"conditions": conditions, "observedGeneration": observed}
        if phase:
            status["phase"] = phase_name
        return {**base, "status": status}

    deploying = [condition("Available", "False", "DeploymentInProgress", "Deploying version v1.6.2"),
                 condition("Progressing", "True", "DeploymentInProgress", "Deploying version v1.6.2"),
                 condition("Degraded", "False", "DeploymentInProgress")]
    degraded = [condition("Available", "False", "HCODegraded", "virt-handler is not ready"),
                condition("Progressing", "False", "HCODegraded"),
                condition("Degraded", "True", "HCODegraded", "virt-handler is not ready")]
    healthy = [condition("ReconcileComplete", "True", "ReconcileCompleted", "Reconcile completed successfully"),
               condition("Available", "True", "ReconcileCompleted", "Reconcile completed successfully"),
               condition("Progressing", "False", "ReconcileCompleted"),
               condition("Degraded", "False", "ReconcileCompleted")]
    return [(base, "Progressing"), (with_status(deploying, "Deploying"), "Progressing"),
            (with_status(degraded, "Deployed"), "Degraded"), (with_status(healthy, "Deployed"), "Healthy"),
            (with_status(healthy, "Deployed", observed=2), "Progressing")]


def nncp_samples() -> list[tuple[dict[str, t.Any], str]]:
    base = {"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
            "metadata": {"name": "br1", "generation": 1}}
    return [
        (base, "Progressing"),
        ({**base, "status": {"conditions": [
            condition("Available", "Unknown", "ConfigurationProgressing"),
            condition("Degraded", "Unknown", "ConfigurationProgressing"),
            condition("Progressing", "True", "ConfigurationProgressing", "Policy is progressing 1/3 nodes finished")]}},
         "Progressing"),
        ({**base, "status": {"conditions": [
            condition("Available", "False", "FailedToConfigure"),
            condition("Degraded", "True", "FailedToConfigure", "1/3 nodes failed to configure"),
            condition("Progressing", "False", "FailedToConfigure")]}}, "Degraded"),
        ({**base, "status": {"conditions": [
            condition("Available", "True", "SuccessfullyConfigured", "3/3 nodes successfully configured"),
            condition("Degraded", "False", "SuccessfullyConfigured"),
            condition("Progressing", "False", "SuccessfullyConfigured")]}}, "Healthy"),
    ]


def subscription_samples() -> list[tuple[dict[str, t.Any], str]]:
    base = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
            "metadata": {"name": "kubevirt-hyperconverged"}}
    return [
        (base, "Progressing"),
        ({**base, "status": {"state": "UpgradePending", "currentCSV": "kubevirt-hyperconverged-operator.v1.16.0",
                             "conditions": [condition("InstallPlanPending", "True", "Installing")]}}, "Progressing"),
        ({**base, "status": {"state": "UpgradePending", "conditions": [
            condition("InstallPlanPending", "True", "RequiresApproval")]}}, "Suspended"),
        ({**base, "status": {"conditions": [
            condition("ResolutionFailed", "True", "ConstraintsNotSatisfiable",
                      "no operators found in channel stable of package community-kubevirt-hyperconverged")]}},
         "Degraded"),
        ({**base, "status": {"state": "AtLatestKnown", "installedCSV": "kubevirt-hyperconverged-operator.v1.16.0",
                             "conditions": [condition("CatalogSourcesUnhealthy", "False", "AllCatalogSourcesHealthy")]}},
         "Healthy"),
    ]


def csv_samples() -> list[tuple[dict[str, t.Any], str]]:
    base = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
            "metadata": {"name": "kubevirt-hyperconverged-operator.v1.16.0"}}
    return [(base, "Progressing"),
            ({**base, "status": {"phase": "Installing", "reason": "InstallWaiting"}}, "Progressing"),
            ({**base, "status": {"phase": "Failed", "reason": "InstallCheckFailed",
                                 "message": "install timeout"}}, "Degraded"),
            ({**base, "status": {"phase": "Succeeded", "reason": "InstallSucceeded",
                                 "message": "install strategy completed with no errors"}}, "Healthy")]


SAMPLES = {
    **{key: operator_samples(f"{key[0]}/v1beta1", key[1], phase=key[1] in ("KubeVirt", "CDI", "SSP"))
       for key in HEALTH if key[0] not in ("operators.coreos.com",) and key[1] != "NodeNetworkConfigurationPolicy"},
    ("nmstate.io", "NodeNetworkConfigurationPolicy"): nncp_samples(),
    ("operators.coreos.com", "Subscription"): subscription_samples(),
    ("operators.coreos.com", "ClusterServiceVersion"): csv_samples(),
}


@pytest.mark.parametrize("key", sorted(HEALTH), ids=lambda key: key[1])
def test_each_health_check_judges_its_operators_statuses_as_argo_cd_would(vm, key):
    objects, expected = zip(*SAMPLES[key])
    judged = judge(vm, HEALTH[key], list(objects))
    assert [answer.get("status", answer.get("error")) for answer in judged] == list(expected), judged
    assert all(answer.get("message") for answer in judged), judged


def test_a_script_that_needs_the_string_library_fails_as_in_argo_cd(vm):
    # The VM is Argo CD's, not a full Lua: the checks above run without string.*, which Argo CD does not open.
    [answer] = judge(vm, 'return {status = string.upper("healthy")}', [{}])
    assert "error" in answer and "string" in answer["error"]
