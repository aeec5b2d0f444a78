# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan stage: settled objects cost nothing, the dry run decides the rest, an existing object's owner is
decided before anything is planned to be written (tests/properties/test_plan_properties.py: what report mode
applies never changes a field another manager owns)."""

from __future__ import annotations

import typing as t

from k8s_fakes import FakeAPI

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.applyset import PART_OF_LABEL, ApplySet
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.context import Context
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.discovery import Resource
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Options, Target
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.plan import Planner
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.resolve import label

OURS = "virtinfra.hyperconverged"
CONFIG_MAPS = Resource("", "v1", "ConfigMap", "configmaps", True)
NAMESPACES = Resource("", "v1", "Namespace", "namespaces", False)
SET = ApplySet("site", "ns")
PATH = "/api/v1/namespaces/ns/configmaps/cm"


def planner(api: FakeAPI, applyset: ApplySet | None = SET, **options: t.Any) -> Planner:
    found = Planner(Context(api, Options(**options), None))  # type: ignore[arg-type]
    found.begin(applyset, set())
    return found


def config_map(data: dict[str, str], live: dict[str, t.Any] | None = None, unknown: bool = False,
               applyset: ApplySet | None = SET) -> Target:
    item = Target(0, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "ns"},
                      "data": data}, "v1", "ConfigMap", "cm", "ns", resource=CONFIG_MAPS, live=live,
                  live_unknown=unknown)
    return label(item, applyset)


def applied_by_us(obj: dict[str, t.Any], **fields: t.Any) -> dict[str, t.Any]:
    obj = {**obj, "metadata": {**obj["metadata"], "managedFields": [
        {"manager": OURS, "operation": "Apply", "fieldsV1": {
            "f:metadata": {"f:labels": {f"f:{k}": {} for k in obj["metadata"].get("labels", {})}},
            **fields}}]}}
    return obj


def test_a_settled_object_costs_no_request():
    desired = config_map({"k": "v"})
    live = applied_by_us(desired.desired, **{"f:data": {"f:k": {}}})
    api = FakeAPI()
    [step], problems = planner(api).plan_all([config_map({"k": "v"}, live=live)])
    assert problems == [] and step.action == "unchanged"
    assert api.calls == []


def test_settled_reads_only_our_main_resource_fields():
    # Our field no longer wanted (data.gone) keeps the object unsettled; the same field in our status-subresource
    # entry or in another manager's entry does not.
    desired = config_map({"k": "v"})
    live = applied_by_us(desired.desired, **{"f:data": {"f:k": {}}})
    entries = live["metadata"]["managedFields"]
    for extra, settled in (({"manager": OURS, "operation": "Apply", "fieldsV1": {"f:data": {"f:gone": {}}}}, False),
                           ({"manager": OURS, "operation": "Update", "subresource": "status",
                             "fieldsV1": {"f:data": {"f:gone": {}}}}, True),
                           ({"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:data": {"f:gone": {}}}},
                            True)):
        item = config_map({"k": "v"}, live={**live, "metadata": {**live["metadata"], "managedFields": [*entries, extra]}})
        assert planner(FakeAPI()).settled(item) is settled, extra


def test_a_new_object_is_planned_by_one_dry_run_and_never_read():
    api = FakeAPI()
    [step], problems = planner(api).plan_all([config_map({"k": "v"}, unknown=True)])
    assert problems == []
    assert step.action == "created" and api.sent("PATCH", dry_run=True) == [PATCH_PATH] and api.sent("GET") == []


PATCH_PATH = PATH


def test_a_persons_object_found_by_the_dry_run_is_refused_before_anything_is_planned():
    persons = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "cm", "namespace": "ns", "managedFields": [{"manager": "kubectl-create", "operation": "Update"}]},
        "data": {"k": "mine"}}
    api = FakeAPI({PATH: persons})
    [step], [problem] = planner(api).plan_all([config_map({"k": "v"}, unknown=True)])
    assert "kubectl-create (Update)" in problem.message and step.action == "unchanged" and step.body is None
    assert api.sent("GET") == [PATH] and api.writes == 0

    [adopted], problems = planner(FakeAPI({PATH: persons}), adopt=True).plan_all([config_map({"k": "v"}, unknown=True)])
    assert problems == [] and adopted.action == "adopted" and adopted.adopting


def test_an_existing_namespace_is_shared_applied_without_the_membership_label():
    given = label(Target(0, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}, "v1", "Namespace",
                         "ns", resource=NAMESPACES,
                         live={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}), SET)
    api = FakeAPI({"/api/v1/namespaces/ns": dict(given.live or {})})
    [namespace], problems = planner(api).plan_all([given])
    assert problems == [] and PART_OF_LABEL in given.desired["metadata"]["labels"]   # the input record stays
    assert namespace.shared and PART_OF_LABEL not in namespace.desired["metadata"]["labels"]
    assert namespace.action == "updated"                     # our labels, not the set's
    assert PART_OF_LABEL not in (namespace.body or {})["metadata"]["labels"]


def test_report_mode_with_an_unchanged_input_writes_nothing_and_reports_the_edit():
    desired = config_map({"k": "v"})
    live = applied_by_us(desired.desired, **{"f:data": {}})
    live["data"] = {"k": "edited"}
    live["metadata"]["managedFields"].append({"manager": "someone", "operation": "Update",
                                              "fieldsV1": {"f:data": {"f:k": {}}}})
    api = FakeAPI({PATH: live})
    [item], problems = planner(api, drift="report").plan_all([config_map({"k": "v"}, live=live)])
    assert problems == [] and item.action == "unchanged" and item.body is None
    assert [(d["path"], d["managers"]) for d in item.drift] == [("data.k", ["someone"])]
    assert api.writes == 0


def test_without_an_apply_set_a_field_another_manager_set_on_an_object_never_applied_by_us_is_a_conflict():
    persons = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "cm", "namespace": "ns", "managedFields": [{"manager": "kubectl-create", "operation": "Update"}]},
        "data": {"k": "mine"}}
    api = FakeAPI({PATH: persons})
    conflict = KubeError("Apply failed with 1 conflict", 409, {"kind": "Status", "code": 409, "details": {"causes": [
        {"reason": "FieldManagerConflict", "message": 'conflict with "kubectl-create" using v1', "field": ".data.k"}]}})
    original = api.exchange

    def refuse_unforced(method, target, **options):
        if method == "PATCH" and (options.get("query") or {}).get("force") == "false":
            raise conflict
        return original(method, target, **options)

    api.exchange = refuse_unforced  # type: ignore[method-assign,assignment]
    [_step], [problem] = planner(api, applyset=None).plan_all([config_map({"k": "v"}, unknown=True, applyset=None)])
    assert problem.path == "data.k" and 'conflict with "kubectl-create"' in problem.message
    assert "adopt: true" in problem.message and api.writes == 0

    given = config_map({"k": "v"}, unknown=True, applyset=None)
    [taken], problems = planner(api, applyset=None, adopt=True).plan_all([given])
    assert problems == [] and taken.action == "updated"
