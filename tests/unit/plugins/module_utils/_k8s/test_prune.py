# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prune finds first and deletes second: only members that left the input, in recorded namespaces, never a
copy, never a Namespace with someone else's objects in it."""

from __future__ import annotations

from k8s_fakes import CONFIG_MAPS, NAMESPACES, SET, FakeAPI, context, item, member, path

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import prune
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.applyset import Record
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import PruneCandidate


def test_members_that_left_the_input_are_found_and_nothing_else():
    copy = member("copy")
    copy["metadata"]["managedFields"][0]["manager"] = "kubectl"            # our labels, not applied by us
    elsewhere = member("far", namespace="other")
    api = FakeAPI({path("kept"): member("kept"), path("gone"): member("gone"), path("copy"): copy,
                   path("far", "other"): elsewhere})
    ctx = context(api)
    found, problems, kept = prune.find(ctx, SET, [item("kept")], Record({"ConfigMap"}, {"ns"}), {"ns"})
    assert [(c.name, c.uid) for c in found] == [("gone", "uid-gone")] and problems == [] and kept == Record()
    assert any("copy" in w and "not applied by field manager" in w for w in ctx.warnings)
    assert any("far" in w and "never recorded" in w for w in ctx.warnings)
    assert api.writes == 0


def test_a_namespace_is_kept_without_prune_namespaces_and_refused_with_foreign_contents():
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "old", "uid": "u", "labels": member("x")["metadata"]["labels"],
        "managedFields": member("x")["metadata"]["managedFields"]}}
    persons = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "data", "namespace": "old"}}
    api = FakeAPI({"/api/v1/namespaces/old": namespace, path("data", "old"): persons})
    ctx = context(api, prune_kinds=[("v1", "Namespace")])
    found, problems, kept = prune.find(ctx, SET, [], Record({"Namespace"}, set()), {"ns"})
    assert found == [] and problems == [] and kept.group_kinds == {"Namespace"}
    ctx = context(api, prune_kinds=[("v1", "Namespace")], prune_namespaces=True)
    found, problems, _kept = prune.find(ctx, SET, [], Record({"Namespace"}, set()), {"ns"})
    assert found == [] and [p.message for p in problems] == [
        "would be pruned, but holds objects this apply set does not own: ConfigMap old/data"]


def test_a_delete_names_the_uid_it_read_and_goes_into_the_ledger():
    api = FakeAPI({path("gone"): member("gone")})
    ctx = context(api)
    entry = prune.prune(ctx, PruneCandidate(CONFIG_MAPS, "ns", "gone", "uid-gone"))
    assert entry["action"] == "pruned" and api.objects == {}
    assert [p["name"] for p in ctx.ledger.pruned()] == ["gone"]
    # Gone already: nothing to record.
    prune.prune(ctx, PruneCandidate(CONFIG_MAPS, "ns", "gone", "uid-gone"))
    assert len(ctx.ledger.pruned()) == 1
    assert NAMESPACES.kind == "Namespace"


def test_an_account_that_may_not_list_across_the_cluster_is_served_namespace_by_namespace():
    # The automation account holds Roles in the site's namespaces only: the cluster-wide LIST is forbidden.
    api = FakeAPI({path("kept"): member("kept"), path("gone"): member("gone"), path("away", "two"): member("away", "two")})
    api.refuse[("GET", "/api/v1/configmaps")] = KubeError("forbidden", 403, {"kind": "Status", "code": 403})
    found, problems, _kept = prune.find(context(api), SET, [item("kept")], Record({"ConfigMap"}, {"ns", "two"}),
                                        {"ns", "two"})
    assert sorted(c.name for c in found) == ["away", "gone"] and problems == []
    assert api.sent("GET") == ["/api/v1/configmaps", "/api/v1/namespaces/ns/configmaps",
                               "/api/v1/namespaces/two/configmaps"]
