# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.rbac import RbacError, automation_rbac, guess_plural

KUBEVIRT = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "kubevirt"}, "spec": {}}
SERVED = {"kubevirt.io/v1/KubeVirt": {"resource": "kubevirts"}, "v1/ConfigMap": {"resource": "configmaps"},
          "apps/v1/Deployment": {"resource": "deployments"},
          "apiextensions.k8s.io/v1/CustomResourceDefinition": {"resource": "customresourcedefinitions"},
          "hco.kubevirt.io/v1beta1/HyperConverged": {"resource": "hyperconvergeds"}}


def grants(result):
    return {(g, r): tuple(rule["verbs"]) for rule in result["rules"] for g in rule["apiGroups"] for r in rule["resources"]}


@pytest.mark.parametrize(("kind", "plural"), [
    ("SriovNetworkNodePolicy", "sriovnetworknodepolicies"), ("NetworkAttachmentDefinition", "networkattachmentdefinitions"),
    ("Ingress", "ingresses"), ("Gateway", "gateways"), ("Mesh", "meshes"), ("KubeVirt", "kubevirts")])
def test_default_plural_for_kinds_not_served_yet(kind, plural):
    assert guess_plural(kind) == plural


def test_written_kinds_get_apply_verbs_and_read_kinds_only_get_list():
    result = automation_rbac([KUBEVIRT], [{"apiVersion": "v1", "kind": "ConfigMap"}], SERVED)
    table = grants(result)
    assert table[("kubevirt.io", "kubevirts")] == ("create", "delete", "get", "list", "patch")
    assert table[("", "configmaps")] == ("get", "list")
    assert table[("apps", "deployments")] == ("get", "list")  # HCO detection
    assert table[("apiextensions.k8s.io", "customresourcedefinitions")] == ("get", "list")  # schema check
    assert result["guessed"] == []


def test_without_delete_no_delete_verb_anywhere():
    result = automation_rbac([KUBEVIRT], resources=SERVED, delete=False)
    assert all("delete" not in rule["verbs"] for rule in result["rules"])


def test_a_kind_both_written_and_read_is_granted_once_with_the_write_verbs():
    result = automation_rbac([KUBEVIRT, {"apiVersion": "apps/v1", "kind": "Deployment"}], [KUBEVIRT], SERVED)
    rules_with_deployments = [r for r in result["rules"] if "deployments" in r["resources"]]
    assert len(rules_with_deployments) == 1 and "patch" in rules_with_deployments[0]["verbs"]
    assert "apps/v1/Deployment" not in result["read"] and result["written"].count("kubevirt.io/v1/KubeVirt") == 1


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
