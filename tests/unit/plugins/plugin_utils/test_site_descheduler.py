# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""site_descheduler writes only what HCO's rule at the cluster's release needs, and never a field another manager
set (the rule: v1.14.0 pkg/util/cluster.go RefreshDeschedulerCR; from v1.15.2 controllers/descheduler,
isDeschedulerMisconfigured)."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.alert_inputs import AlertInputs, owners
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_descheduler as site_descheduler


def live(spec, managers=None, served=True):
    return AlertInputs(spec, (), managers or {}, served)


def written(planned: site_descheduler.Planned) -> dict:
    assert planned.object is not None, planned
    return planned.object


def test_missing_it_is_created_with_the_releases_profile_or_customization():
    assert written(site_descheduler.plan("1.20", live(None)))["spec"] == {"profiles": ["KubeVirtRelieveAndMigrate"]}
    assert written(site_descheduler.plan("1.16", live(None)))["spec"] == {"profiles": ["DevKubeVirtRelieveAndMigrate"]}
    assert written(site_descheduler.plan("1.14", live(None)))["spec"] == {
        "profileCustomizations": {"devEnableEvictionsInBackground": True}}
    # Render mode: the tree holds it as the site would create it.
    assert written(site_descheduler.plan("1.20", None))["metadata"] == {
        "name": "cluster", "namespace": "openshift-kube-descheduler-operator"}


def test_nothing_is_written_where_the_live_object_already_satisfies_the_rule():
    planned = site_descheduler.plan("1.18", live({"profiles": ["LongLifecycle"]}, {"spec.profiles": ("console",)}))
    assert planned.object is None and planned.problems == ()
    assert "already has LongLifecycle" in planned.note


def test_a_list_another_manager_set_is_never_taken_and_its_owner_named():
    planned = site_descheduler.plan("1.20", live({"profiles": ["AffinityAndTaints"]},
                                                 {"spec.profiles": ("kubectl-client-side-apply",)}))
    assert planned.object is None
    [problem] = planned.problems
    assert problem.startswith("site_descheduler: KubeDescheduler openshift-kube-descheduler-operator/cluster "
                              "spec.profiles (AffinityAndTaints) is set by kubectl-client-side-apply")
    assert "Add KubeVirtRelieveAndMigrate to it there" in problem
    # The site's own list it extends.
    ours = site_descheduler.plan("1.20", live({"profiles": ["AffinityAndTaints"]},
                                              {"spec.profiles": ("virtinfra.hyperconverged",)}))
    assert written(ours)["spec"] == {"profiles": ["AffinityAndTaints", "KubeVirtRelieveAndMigrate"]}


def test_the_customization_is_one_field_of_its_own():
    # 1.14: another manager's profiles are left alone; only the customization is set.
    planned = site_descheduler.plan("1.14", live({"profiles": ["LongLifecycle"]}, {"spec.profiles": ("oc",)}))
    assert written(planned)["spec"] == {"profileCustomizations": {"devEnableEvictionsInBackground": True}}
    refused = site_descheduler.plan("1.14", live(
        {"profileCustomizations": {"devEnableEvictionsInBackground": False}},
        {"spec.profileCustomizations.devEnableEvictionsInBackground": ("oc",)}))
    assert refused.object is None and "is set to another value by oc" in refused.problems[0]


def test_not_served_is_a_problem_before_any_write():
    [problem] = site_descheduler.plan("1.20", live(None, served=False)).problems
    assert problem.startswith("site_descheduler: the cluster does not serve KubeDescheduler")


def test_owners_are_read_from_managed_fields():
    metadata = {"managedFields": [
        {"manager": "kubectl-create", "operation": "Update", "fieldsV1": {"f:spec": {"f:profiles": {}, "f:mode": {}}}},
        {"manager": "virtinfra.hyperconverged", "operation": "Apply", "fieldsV1": {
            "f:spec": {"f:profileCustomizations": {"f:devEnableEvictionsInBackground": {}}}}}]}
    assert owners(metadata) == {"spec.profiles": ("kubectl-create",),
                                "spec.profileCustomizations.devEnableEvictionsInBackground": ("virtinfra.hyperconverged",)}
