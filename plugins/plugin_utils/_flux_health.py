# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Flux health checks (a Kustomization's ``spec.healthCheckExprs``, CEL; Flux 2.5 on) for the kinds whose status
kstatus reads as ready too early. kstatus (fluxcd/cli-utils, kstatus/status, Compute) judges a custom resource by
its observedGeneration and its Ready, Reconciling and Stalled conditions only: the operators here write Available,
Progressing and Degraded, and OLM a state or a phase, so kstatus calls each Current as soon as it exists, and the next
stage starts before the operator has done anything.

kustomize-controller evaluates them with github.com/fluxcd/pkg/runtime/cel (StatusEvaluator.Evaluate): a stale
observedGeneration first, then inProgress, failed, current; none true is InProgress (so no inProgress is needed).
An object without a status yet cannot be evaluated (``status`` is unbound) and reads Unknown, which a wait keeps
polling: not ready, as wanted.
The same judgement as the Argo CD checks (_argocd_health.py): Degraded wins over Progressing, then Available.
PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import typing as t

_CONDITIONS = "status.?conditions.orValue([])"
OPERATOR = {
    "failed": f"{_CONDITIONS}.exists(e, e.type == 'Degraded' && e.status == 'True')",
    "current": (f"{_CONDITIONS}.exists(e, e.type == 'Available' && e.status == 'True') && "
                f"!{_CONDITIONS}.exists(e, e.type == 'Progressing' && e.status == 'True')"),
}
# OLM's Subscription: installed at the latest known CSV, or resolution failed (operator-framework/api v1alpha1).
SUBSCRIPTION = {
    "failed": f"{_CONDITIONS}.exists(e, e.type == 'ResolutionFailed' && e.status == 'True')",
    "current": "status.?state.orValue('') == 'AtLatestKnown'",
}

# By apiVersion and kind (Flux matches on the group and kind). The Argo CD checks' kinds but three: Flux waits only
# for what it applied, never OLM's CSVs; the instances stage waits for the policies' CRD, not the NMState
# (_gitops_fleet.HEALTH_CHECKED); a SriovNetworkNodePolicy has no status to judge.
EXPRESSIONS: dict[tuple[str, str], dict[str, str]] = {
    ("hco.kubevirt.io/v1beta1", "HyperConverged"): OPERATOR,
    ("kubevirt.io/v1", "KubeVirt"): OPERATOR,
    ("cdi.kubevirt.io/v1beta1", "CDI"): OPERATOR,
    ("networkaddonsoperator.network.kubevirt.io/v1", "NetworkAddonsConfig"): OPERATOR,
    ("ssp.kubevirt.io/v1beta2", "SSP"): OPERATOR,
    ("hostpathprovisioner.kubevirt.io/v1beta1", "HostPathProvisioner"): OPERATOR,
    ("nmstate.io/v1", "NodeNetworkConfigurationPolicy"): OPERATOR,
    ("operators.coreos.com/v1alpha1", "Subscription"): SUBSCRIPTION,
}


def health_check_exprs(kinds: t.Collection[tuple[str, str]]) -> list[dict[str, str]]:
    """spec.healthCheckExprs for the kinds given by (group, kind), in a stable order."""
    return [{"apiVersion": api_version, "kind": kind, **exprs} for (api_version, kind), exprs in EXPRESSIONS.items()
            if (api_version.rpartition("/")[0], kind) in kinds]
