# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""OLM Subscription placement (vectors OL of node-prereqs-examples.md) and the descheduler check."""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import olm
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError

T1 = {"key": "a", "operator": "Exists"}
T2 = {"key": "b", "operator": "Exists"}
NODE_AFFINITY: dict[str, t.Any] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
ANTI: dict[str, t.Any] = {"preferredDuringSchedulingIgnoredDuringExecution": []}


def subscription(**extra):
    return {"name": "kubevirt-hyperconverged", "namespace": "openshift-cnv", "source": "redhat-operators",
            "source_namespace": "openshift-marketplace", **extra}


def test_subscription_objects():  # OL-08
    objects = olm.plan({"subscriptions": [subscription(channel="stable", config={
        "node_selector": {"node-role.kubernetes.io/infra": ""}})]})["objects"]
    assert [o["kind"] for o in objects] == ["Namespace", "OperatorGroup", "Subscription"]
    assert objects[2]["spec"] == {"name": "kubevirt-hyperconverged", "source": "redhat-operators",
                                  "sourceNamespace": "openshift-marketplace", "installPlanApproval": "Automatic",
                                  "channel": "stable", "config": {"nodeSelector": {"node-role.kubernetes.io/infra": ""}}}


def test_refusals():  # OL-04b trap, OL-06, OL-07
    with pytest.raises(PrerequisiteError) as failure:
        olm.plan({"subscriptions": [subscription(install_plan_approval="Auto", source_namespace=None,
                                                 config={"affinity": {"podAntiAffinity": {}}})]})
    assert {e.path for e in failure.value.errors} == {"subscriptions[0].install_plan_approval",
                                                      "subscriptions[0].source_namespace",
                                                      "subscriptions[0].config.affinity.podAntiAffinity"}


def test_mixed_approval_warns():  # OL-06b
    result = olm.plan({"subscriptions": [subscription(install_plan_approval="Manual"),
                                         subscription(name="other", operator_group=False)]})
    assert any("Manual" in w for w in result["warnings"])


def test_subscription_config_moves_only_the_operator():  # OL-05
    result = olm.plan({"subscriptions": [{"name": "kubevirt-hyperconverged", "namespace": "openshift-cnv",
                                          "source": "redhat-operators", "source_namespace": "openshift-marketplace",
                                          "config": {"node_selector": {"node-role.kubernetes.io/infra": ""}}}]})
    subscription = result["objects"][-1]
    assert subscription["spec"]["config"] == {"nodeSelector": {"node-role.kubernetes.io/infra": ""}}
    assert result["warnings"] == [
        ("subscriptions[0]: config places only the kubevirt-hyperconverged operator pods; its operands follow the "
         "HyperConverged spec.infra and spec.workloads nodePlacement")]
