# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The operand registry: every release's operands in it, in HCO's reconcile order, and the rules that order carries."""

from __future__ import annotations

import json

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco import operands
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import PROFILES
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

BAD_PATCH = json.dumps([{"op": "replace", "path": "/spec/no/such/path", "value": 1}])


def hc(annotations=None, **spec):
    # 1.14 admits a request with a discontinued gate at once, without dry-running the operands (validator.py):
    # whatever fails is then the reconciler's failure.
    spec.setdefault("featureGates", {"nonRoot": True})
    return {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
            "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged",
                         "annotations": annotations or {}},
            "spec": spec}


@pytest.mark.parametrize("release", sorted(PROFILES))
def test_every_operand_a_release_names_is_registered_once(release):
    assert len(set(operands.KEYS)) == len(operands.KEYS)
    assert set(PROFILES[release].operands) <= set(operands.KEYS)
    assert [o.key for o in operands.of_release(PROFILES[release].operands)] == \
        [k for k in operands.KEYS if k in PROFILES[release].operands]


def test_the_reconcile_order_starts_as_hcos_operand_handler():
    # HCO v1.20.0 NewOperandHandler: priority class, KubeVirt, CDI, CNAO, AAQ, then the OpenShift-only SSP.
    assert operands.KEYS[:6] == ("priorityclass", "kubevirt", "cdi", "cnao", "aaq", "ssp")


def test_v1_14_controller_stops_at_the_first_failing_operand():
    # HCO's Ensure loop returns at the first error, so what was
    # ensured before it (the priority class) exists and nothing after it does.
    result = render(hc({"containerizeddataimporter.kubevirt.io/jsonpatch": BAD_PATCH}), release="1.14")
    assert [o["kind"] for o in result.operands] == ["KubeVirt", "PriorityClass"]
    reconcile = [c for c in result.hyperconverged["status"]["conditions"] if c["type"] == "ReconcileComplete"]
    assert reconcile and reconcile[0]["status"] == "False"


def test_v1_14_ssp_failure_does_not_stop_a_kubernetes_reconcile():
    # SSP is ensured only on OpenShift: on Kubernetes its failure is no reconcile step.
    result = render(hc({"ssp.kubevirt.io/jsonpatch": BAD_PATCH}), release="1.14",
                    cluster={"platform": "kubernetes"})
    assert "CDI" in [o["kind"] for o in result.operands]


def test_v1_14_ssp_failure_stops_an_openshift_reconcile_after_aaq():
    result = render(hc({"ssp.kubevirt.io/jsonpatch": BAD_PATCH}), release="1.14",
                    cluster={"platform": "openshift"})
    assert sorted(o["kind"] for o in result.operands) == ["CDI", "KubeVirt", "NetworkAddonsConfig", "PriorityClass"]


def test_results_are_listed_in_the_output_order_not_the_reconcile_order():
    result = render(hc(), cluster={"platform": "openshift"})
    kinds = [o["kind"] for o in result.operands]
    assert kinds.index("KubeVirt") < kinds.index("SSP") < kinds.index("PriorityClass")
