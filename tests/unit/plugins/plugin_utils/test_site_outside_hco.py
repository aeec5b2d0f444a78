# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What is compared to find operands changed outside HCO (the reads themselves: test_site_alerts, on a real API
server, against HCO's own output)."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_outside_hco as outside

KUBEVIRT = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt",
            "metadata": {"name": "kubevirt-kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged",
                         "labels": {"app.kubernetes.io/version": "1.20.0"}, "annotations": {"a": "b"}},
            "spec": {"configuration": {"developerConfiguration": {"cpuAllocationRatio": 10}}}}
INJECTOR = {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "virt-network-resources-injector", "namespace": "kubevirt-hyperconverged"},
            "spec": {"template": {"spec": {"containers": [{"image": "quay.io/kubevirt/injector:v1.20.0"}]}}}}


def test_labels_and_hcos_own_workloads_are_not_compared():
    assert outside.compared([KUBEVIRT, INJECTOR]) == [
        {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt",
         "metadata": {"name": "kubevirt-kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
         "spec": {"configuration": {"developerConfiguration": {"cpuAllocationRatio": 10}}}}]


def test_the_hyperconverged_is_the_one_hco_reconciles_in_the_sites_namespace_without_its_status():
    stored: dict[str, t.Any] = {
        "apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
        "metadata": {"name": "kubevirt-hyperconverged", "namespace": "openshift-cnv", "resourceVersion": "7",
                     "annotations": {"kubevirt.kubevirt.io/jsonpatch": "[]"}},
        "spec": {"featureGates": {}}, "status": {"conditions": []}}
    other = {**stored, "metadata": {**stored["metadata"], "namespace": "elsewhere"}}
    assert outside.live_hyperconverged([other], "openshift-cnv") is None
    assert outside.live_hyperconverged([other, stored], "openshift-cnv") == {
        "apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
        "metadata": {"name": "kubevirt-hyperconverged", "namespace": "openshift-cnv",
                     "annotations": {"kubevirt.kubevirt.io/jsonpatch": "[]"}},
        "spec": {"featureGates": {}}}


def test_a_hyperconverged_the_engine_refuses_is_said_not_guessed():
    found = outside.changed(None, lambda _hc: None, {"spec": {}})   # type: ignore[arg-type]
    assert found.entries == () and "cannot be computed" in found.warnings[0]
