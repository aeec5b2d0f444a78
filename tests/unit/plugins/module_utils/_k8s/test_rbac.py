# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.rbac import RbacError, automation_rbac, guess_plural

KUBEVIRT = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "kubevirt"}, "spec": {}}
BARE_KUBEVIRT = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt"}
SERVED = {"kubevirt.io/v1/KubeVirt": {"resource": "kubevirts"}, "v1/ConfigMap": {"resource": "configmaps"},
          "apps/v1/Deployment": {"resource": "deployments"},
          "apiextensions.k8s.io/v1/CustomResourceDefinition": {"resource": "customresourcedefinitions"},
          "hco.kubevirt.io/v1beta1/HyperConverged": {"resource": "hyperconvergeds"}, "v1/Node": {"resource": "nodes"}}


def grants(result):
    return {(g, r): tuple(rule["verbs"]) for rule in result["rules"] for g in rule["apiGroups"] for r in rule["resources"]}


@pytest.mark.parametrize(("kind", "plural"), [
    ("SriovNetworkNodePolicy", "sriovnetworknodepolicies"), ("NetworkAttachmentDefinition", "networkattachmentdefinitions"),
    ("Ingress", "ingresses"), ("Gateway", "gateways"), ("Mesh", "meshes"), ("KubeVirt", "kubevirts")])
def test_default_plural_for_kinds_not_served_yet(kind, plural):
    assert guess_plural(kind) == plural


def test_written_kinds_get_apply_verbs_and_read_kinds_only_get_list():
    result = automation_rbac([BARE_KUBEVIRT], [{"apiVersion": "v1", "kind": "ConfigMap"}], SERVED)
    table = grants(result)
    assert table[("kubevirt.io", "kubevirts")] == ("create", "delete", "get", "list", "patch")
    assert table[("", "configmaps")] == ("get", "list")
    assert table[("apps", "deployments")] == ("get", "list")  # HCO detection
    assert table[("apiextensions.k8s.io", "customresourcedefinitions")] == ("get", "list")  # schema check
    assert table[("", "nodes")] == ("get", "list")  # the site plans from the live Nodes
    assert result["guessed"] == []


def test_without_delete_no_delete_verb_anywhere():
    result = automation_rbac([KUBEVIRT], resources=SERVED, delete=False)
    assert all("delete" not in rule["verbs"] for rule in result["rules"])


def test_a_kind_both_written_and_read_is_granted_once_with_the_write_verbs():
    result = automation_rbac([KUBEVIRT, {"apiVersion": "v1", "kind": "ConfigMap"}], [KUBEVIRT], SERVED)
    rules_with_configmaps = [r for r in result["rules"] if "configmaps" in r["resources"]]
    assert len(rules_with_configmaps) == 1 and "patch" in rules_with_configmaps[0]["verbs"]
    assert "kubevirt.io/v1/KubeVirt" not in result["read"] and result["written"].count("kubevirt.io/v1/KubeVirt") == 1


def test_what_every_run_reads_stays_readable_across_the_cluster_where_it_is_also_written():
    hyperconverged = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
                      "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kv"}}
    served: dict[str, dict[str, t.Any]] = {
        **SERVED, "hco.kubevirt.io/v1beta1/HyperConverged": {"resource": "hyperconvergeds", "namespaced": True}}
    result = automation_rbac([hyperconverged], resources=served)
    assert {"apiGroups": ["hco.kubevirt.io"], "resources": ["hyperconvergeds"], "verbs": ["get", "list"]} in result["rules"]
    assert result["roles"]["kv"][0]["resources"] == ["hyperconvergeds"]


def test_unserved_kinds_are_guessed_and_reported():
    policy = {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy"}
    result = automation_rbac([policy], resources=SERVED)
    assert grants(result)[("sriovnetwork.openshift.io", "sriovnetworknodepolicies")][0] == "create"
    assert result["guessed"] == ["sriovnetwork.openshift.io/v1/SriovNetworkNodePolicy"]


def test_objects_bind_the_role_to_the_account():
    objects = automation_rbac([KUBEVIRT], resources=SERVED, name="ops", namespace="automation")["objects"]
    kinds = {o["kind"]: o for o in objects}
    assert kinds["ServiceAccount"]["metadata"] == {"name": "ops", "namespace": "automation",
                                                   "labels": {"app.kubernetes.io/managed-by": "virtinfra.hyperconverged"}}
    assert kinds["ClusterRoleBinding"]["roleRef"]["name"] == kinds["ClusterRole"]["metadata"]["name"] == "ops"
    assert kinds["ClusterRoleBinding"]["subjects"] == [{"kind": "ServiceAccount", "name": "ops", "namespace": "automation"}]


def test_every_malformed_entry_is_reported():
    with pytest.raises(RbacError) as failure:
        automation_rbac([{"kind": "KubeVirt"}, "text"], [{"apiVersion": "v1"}])
    assert str(failure.value) == ("written[0]: needs apiVersion and kind; written[1]: needs apiVersion and kind; "
                                  "read[0]: needs apiVersion and kind")


def test_apply_sets_get_their_parents_and_their_locks_by_name():
    rules = automation_rbac([{"apiVersion": "v1", "kind": "ConfigMap"}], apply_sets=["hyperconverged", "site"])["rules"]
    assert {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]} in rules
    assert {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
            "resourceNames": ["hyperconverged-lock", "site-lock"], "verbs": ["delete", "get", "update"]} in rules
    assert not [r for r in rules if "leases" in r["resources"] and "resourceNames" not in r and r["verbs"] != ["create"]]


CDI = {"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "CDI", "metadata": {"name": "cdi-kubevirt-hyperconverged"}}
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "vms"}}
NAD = {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
       "metadata": {"name": "net", "namespace": "vms"}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "injector", "namespace": "kv"}}
LEAST: dict[str, dict[str, t.Any]] = {
    **SERVED,
    "cdi.kubevirt.io/v1beta1/CDI": {"resource": "cdis", "namespaced": False},
    "v1/Namespace": {"resource": "namespaces", "namespaced": False},
    "k8s.cni.cncf.io/v1/NetworkAttachmentDefinition": {"resource": "network-attachment-definitions", "namespaced": True},
    "apps/v1/Deployment": {"resource": "deployments", "namespaced": True},
}


def least():
    return automation_rbac([CDI, NAMESPACE, NAD, DEPLOYMENT], resources=LEAST, apply_sets=["hyperconverged"],
                           parent_namespace="kv")


def test_cluster_scoped_objects_are_granted_by_name_and_namespaces_never_deleted():
    rules = least()["rules"]
    assert {"apiGroups": ["cdi.kubevirt.io"], "resources": ["cdis"], "resourceNames": ["cdi-kubevirt-hyperconverged"],
            "verbs": ["create", "delete", "get", "patch"]} in rules
    assert {"apiGroups": [""], "resources": ["namespaces"], "resourceNames": ["vms"],
            "verbs": ["create", "get", "patch"]} in rules
    # Only list goes without names (the pruner's labelled search); nothing namespaced is granted cluster-wide
    # beyond reading.
    unnamed = [r for r in rules if "resourceNames" not in r]
    assert all(set(r["verbs"]) <= {"get", "list"} for r in unnamed), unnamed
    assert not [r for r in rules if "network-attachment-definitions" in r["resources"] or "configmaps" in r["resources"]]


def test_namespaced_objects_are_granted_by_a_role_in_their_namespace_only():
    result = least()
    assert set(result["roles"]) == {"vms", "kv"}
    assert result["roles"]["vms"] == [{"apiGroups": ["k8s.cni.cncf.io"], "resources": ["network-attachment-definitions"],
                                       "verbs": ["create", "delete", "get", "list", "patch"]}]
    kv = result["roles"]["kv"]
    assert {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "delete", "get", "list", "patch"]} in kv
    assert {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["hyperconverged"],
            "verbs": ["get", "patch"]} in kv
    kinds = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in result["objects"]]
    assert ("RoleBinding", "vms", "virtinfra-hyperconverged") in kinds and ("Role", "kv", "virtinfra-hyperconverged") in kinds
    assert result["namespaces"] == [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kv"}},
                                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "vms"}}]
