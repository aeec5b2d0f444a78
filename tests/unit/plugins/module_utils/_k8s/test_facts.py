# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What cluster_info reports: the platform, HCO's presence, the kinds served, the objects read (never a Secret)."""

from __future__ import annotations

import typing as t

import pytest
from k8s_fakes import group

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.facts import cluster_facts


class Cluster:
    """Discovery, /version and a few lists, as a Kubernetes 1.34 API server answers them."""

    def __init__(self, *, hco: bool, openshift: bool = False, deployments_forbidden: bool = False) -> None:
        self.hco, self.openshift, self.forbidden = hco, openshift, deployments_forbidden
        self.asked: list[str] = []

    def request(self, method: str, path: str, **options: t.Any) -> t.Any:
        self.asked.append(path)
        if path == "/api":
            return {"kind": "APIGroupDiscoveryList", "items": [group("", ("v1", [
                ("ConfigMap", "configmaps", True), ("Secret", "secrets", True), ("Node", "nodes", False)]))]}
        if path == "/apis":
            groups = [group("apps", ("v1", [("Deployment", "deployments", True)]))]
            if self.hco:
                groups.append(group("hco.kubevirt.io", ("v1beta1", [("HyperConverged", "hyperconvergeds", True)])))
            if self.openshift:
                groups.append(group("config.openshift.io", ("v1", [("ClusterVersion", "clusterversions", False)])))
            return {"kind": "APIGroupDiscoveryList", "items": groups}
        if path == "/version":
            return {"gitVersion": "v1.34.1", "major": "1", "minor": "34+"}
        if path == "/apis/apps/v1/deployments":
            if self.forbidden:
                raise KubeError("forbidden", 403, {"kind": "Status", "code": 403})
            assert (options.get("query") or {}).get("labelSelector") == "name=hyperconverged-cluster-operator"
            return {"items": [{"metadata": {"name": "hco-operator", "namespace": "kubevirt-hyperconverged"}}]}
        if path == "/apis/hco.kubevirt.io/v1beta1/hyperconvergeds":
            return {"items": [{"metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"}}]}
        if path == "/api/v1/nodes":
            return {"items": [{"metadata": {"name": "worker-0", "managedFields": [{"manager": "kubelet"}]}}]}
        raise AssertionError(f"not expected: {method} {path}")


def test_a_kubernetes_cluster_with_hco_served_and_running():
    facts = cluster_facts(Cluster(hco=True), kinds=[("v1", "Node"), ("kubevirt.io/v1", "KubeVirt")],  # type: ignore[arg-type]
                          read=[("v1", "Node"), ("kubevirt.io/v1", "KubeVirt")])
    assert facts["platform"] == "kubernetes"
    assert facts["version"] == {"git_version": "v1.34.1", "major": "1", "minor": "34"}   # "34+" read as 34
    assert facts["hco"]["present"] and facts["hco"]["hyperconvergeds"] == [
        {"namespace": "kubevirt-hyperconverged", "name": "kubevirt-hyperconverged"}]
    assert facts["served"] == {"v1/Node": True, "kubevirt.io/v1/KubeVirt": False}
    assert facts["resources"] == {"v1/Node": {"resource": "nodes", "namespaced": False}}
    [node] = facts["objects"]["v1/Node"]
    assert node["kind"] == "Node" and node["apiVersion"] == "v1" and "managedFields" not in node["metadata"]
    assert facts["objects"]["kubevirt.io/v1/KubeVirt"] == []       # unserved: nothing to list, not an error


def test_openshift_without_hco_and_without_the_right_to_list_deployments():
    facts = cluster_facts(Cluster(hco=False, openshift=True, deployments_forbidden=True))  # type: ignore[arg-type]
    assert facts["platform"] == "openshift"
    assert facts["hco"] == {"crd": False, "hyperconvergeds": [], "operator_deployments": [], "present": False}


def test_secrets_are_never_read_into_facts():
    connection = Cluster(hco=False)
    with pytest.raises(KubeError, match="Secret objects are not read into facts"):
        cluster_facts(connection, read=[("v1", "Secret")])  # type: ignore[arg-type]
    assert "/api/v1/secrets" not in connection.asked and "/api/v1/namespaces" not in connection.asked
