# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import datetime
import hashlib
import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import fields


def test_strip_removes_server_bookkeeping_and_our_fingerprint():
    live = {"apiVersion": "v1", "kind": "ConfigMap", "status": {"x": 1},
            "metadata": {"name": "a", "uid": "u", "resourceVersion": "7", "generation": 2, "managedFields": [],
                         "creationTimestamp": "t", "labels": {"k": "v"},
                         "annotations": {fields.FINGERPRINT_ANNOTATION: "abc"}}}
    expected = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "labels": {"k": "v"}}}
    assert fields.strip(live) == expected
    assert "status" in live and fields.strip(None) == {}


def test_diff_expands_added_maps_to_leaves_and_keeps_lists_whole_when_lengths_differ():
    before = {"spec": {"a": 1, "list": [1, 2], "same": [{"x": 1}]}}
    after = {"spec": {"a": 2, "list": [1], "same": [{"x": 3}], "new": {"b": {"c": True}}}}
    assert fields.public(fields.diff(before, after)) == [
        {"path": "spec.a", "op": "change", "before": 1, "after": 2},
        {"path": "spec.list", "op": "change", "before": [1, 2], "after": [1]},
        {"path": "spec.new.b.c", "op": "add", "before": None, "after": True},
        {"path": "spec.same[0].x", "op": "change", "before": 1, "after": 3},
    ]


def test_diff_tells_booleans_from_numbers():
    assert fields.diff({"a": True}, {"a": 1}) != []
    assert fields.diff({"a": 1}, {"a": 1.0}) == []


def test_contained_allows_server_defaults_but_not_list_length_changes():
    assert fields.contained({"spec": {"a": 1}}, {"spec": {"a": 1, "defaulted": "x"}})
    assert fields.contained({"l": [{"n": 1}]}, {"l": [{"n": 1, "d": 0}]})
    assert not fields.contained({"l": [{"n": 1}]}, {"l": [{"n": 1}, {"n": 2}]})
    assert not fields.contained({"spec": {"a": 1}}, {"spec": {}})


@pytest.mark.parametrize(("live", "expected"), [
    ("x", True), ("y", False), (None, False), (True, False), (1, False), (["x"], False), ({"x": 1}, False)])
def test_a_string_is_contained_only_where_the_live_value_is_that_string(live, expected):
    assert fields.contained({"data": {"k": "x"}}, {"data": {"k": live}}) is expected
    assert fields.contained({"data": {"k": "x"}}, {"data": {}}) is False


def test_true_is_not_the_string_or_number_one():
    assert fields.contained({"k": True}, {"k": True}) and not fields.contained({"k": True}, {"k": 1})
    assert not fields.contained({"k": "true"}, {"k": True}) and not fields.contained({"k": 1}, {"k": True})


def test_fieldset_paths_stop_at_lists():
    fields_v1 = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                 "f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:image": {}}}, "f:replicas": {}}}
    assert fields.fieldset_paths(fields_v1) == {("metadata", "labels", "app"), ("spec", "containers"),
                                                ("spec", "replicas")}


FIELDS_V1 = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
             "f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:image": {}}}, "f:replicas": {}}}


@pytest.mark.parametrize("obj, within", [
    ({"metadata": {"labels": {"app": "a", "more": "b"}}, "spec": {"containers": [], "replicas": 1}}, True),
    ({"metadata": {"labels": {"app": "a"}}, "spec": {"containers": "not a list", "replicas": 1}}, True),
    ({"metadata": {"labels": {"app": "a"}}, "spec": {"replicas": 1}}, False),           # the list is gone
    ({"metadata": {"labels": {}}, "spec": {"containers": [], "replicas": 1}}, False),    # a label is gone
    ({"metadata": {"labels": "app"}, "spec": {"containers": [], "replicas": 1}}, False),  # not a map on the way
    ({"metadata": {"labels": {"app": "a"}}}, False),
], ids=["more keys", "the list's value is not looked into", "list gone", "label gone", "not a map", "spec gone"])
def test_fieldset_within_as_the_paths_say(obj: dict, within: bool) -> None:
    wanted = _map_paths(obj)
    assert fields.fieldset_within(FIELDS_V1, obj) is within
    assert all(path in wanted for path in fields.fieldset_paths(FIELDS_V1)) is within   # the definition


def test_a_list_member_at_the_top_is_never_within() -> None:
    assert not fields.fieldset_within({'k:{"name":"c"}': {}}, {"name": "c"})
    assert fields.fieldset_paths({'k:{"name":"c"}': {}}) == {()}


def _map_paths(obj: t.Any, prefix: tuple = ()) -> set[tuple]:
    """Every key of a map reached through maps, as a path (the reference fieldset_within is checked against)."""
    found: set[tuple] = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            found |= {(*prefix, key)} | _map_paths(value, (*prefix, key))
    return found


def test_ownership_and_owns():
    live = {"metadata": {"managedFields": [
        {"manager": "us", "operation": "Apply", "fieldsV1": {"f:spec": {"f:a": {}}}},
        {"manager": "them", "operation": "Update", "fieldsV1": {"f:spec": {"f:b": {"f:c": {}}}}},
        {"manager": "kubelet", "operation": "Update", "subresource": "status", "fieldsV1": {"f:status": {}}},
    ]}}
    owners = fields.ownership(live)
    assert set(owners) == {"us", "them"}
    assert fields.owns(owners["them"], ("spec", "b", "c"))
    assert fields.owns(owners["them"], ("spec", "b"))
    assert not fields.owns(owners["them"], ("spec", "a"))
    assert fields.owns({("spec", "list")}, ("spec", "list", 3, "x"))


def test_fingerprint_stability():
    assert fields.fingerprint({"a": 1, "b": 2}) == fields.fingerprint({"b": 2, "a": 1})
    assert fields.fingerprint({"a": 1}) != fields.fingerprint({"a": 2})


def test_the_fingerprint_of_an_object_never_changes_between_releases():
    # Objects already applied carry it: another text or hash would make every object look changed by its input.
    obj = {"metadata": {"name": "café", "labels": {"z": "1", "a": "2"}}, "data": {"when": datetime.date(2026, 1, 2),
                                                                                  "n": 1.5, "on": True}}
    canonical = ('{"data":{"n":1.5,"on":true,"when":"2026-01-02"},"metadata":{"labels":{"a":"2","z":"1"},'
                 '"name":"caf\\u00e9"}}')
    assert fields.fingerprint(obj) == hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _deployment(image: str, hostnames: list[str], tolerations: list[dict], env_value: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "n"},
            "spec": {"replicas": 2, "template": {"spec": {
                "hostAliases": [{"ip": "10.0.0.1", "hostnames": hostnames}],
                "tolerations": tolerations,
                "containers": [{"name": "app", "image": image, "env": [{"name": "A", "value": env_value},
                                                                       {"name": "B", "value": "b"}]},
                               {"name": "side", "image": "side:1"}]}}}}


OURS = {"f:spec": {"f:replicas": {}, "f:template": {"f:spec": {
    "f:hostAliases": {'k:{"ip":"10.0.0.1"}': {".": {}, "f:ip": {}, "f:hostnames": {}}},
    "f:tolerations": {},
    "f:containers": {'k:{"name":"app"}': {".": {}, "f:name": {}, "f:env": {'k:{"name":"B"}': {".": {}, "f:name": {}, "f:value": {}}}},
                     'k:{"name":"side"}': {".": {}, "f:name": {}, "f:image": {}}}}}}}


def test_without_foreign_leaves_out_only_what_another_manager_changed_inside_list_items():
    desired = _deployment("app:1", ["db"], [{"key": "a", "operator": "Exists"}], "a")
    live = _deployment("app:2", ["cache"], [{"key": "other", "operator": "Exists"}], "changed")
    live["metadata"]["managedFields"] = [
        {"manager": "us", "operation": "Apply", "fieldsV1": OURS},
        # kubectl set image / edit: image, the hostnames of one alias, the atomic tolerations, one env value
        {"manager": "kubectl-set", "operation": "Update", "fieldsV1": {"f:spec": {"f:template": {"f:spec": {
            "f:hostAliases": {'k:{"ip":"10.0.0.1"}': {"f:hostnames": {}}},
            "f:tolerations": {},
            "f:containers": {'k:{"name":"app"}': {"f:image": {},
                                                  "f:env": {'k:{"name":"A"}': {"f:value": {}}}}}}}}}},
    ]
    body, kept = fields.without_foreign(desired, live, "us")
    pod = body["spec"]["template"]["spec"]
    # Each item stays, named by its keys, with everything we own; only the foreign fields are out.
    assert pod["containers"] == [{"name": "app", "env": [{"name": "A"}, {"name": "B", "value": "b"}]},
                                 {"name": "side", "image": "side:1"}]
    assert pod["hostAliases"] == [{"ip": "10.0.0.1"}]
    assert "tolerations" not in pod
    assert body["spec"]["replicas"] == 2
    assert sorted(k["path"] for k in kept) == [
        "spec.template.spec.containers[name=app].env[name=A].value",
        "spec.template.spec.containers[name=app].image",
        "spec.template.spec.hostAliases[ip=10.0.0.1].hostnames",
        "spec.template.spec.tolerations",
    ]
    assert {m for k in kept for m in k["managers"]} == {"kubectl-set"}
    assert desired["spec"]["template"]["spec"]["containers"][0]["image"] == "app:1"   # input untouched


def test_without_foreign_keeps_equal_values_and_fields_nobody_else_owns():
    desired = _deployment("app:1", ["db"], [], "a")
    live = _deployment("app:1", ["db"], [], "a")
    live["metadata"]["managedFields"] = [
        {"manager": "us", "operation": "Apply", "fieldsV1": OURS},
        {"manager": "other", "operation": "Apply", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
        {"manager": "kubelet", "operation": "Update", "subresource": "status", "fieldsV1": {"f:spec": {"f:x": {}}}},
    ]
    body, kept = fields.without_foreign(desired, live, "us")
    assert body == desired and kept == []


def test_mismatches_report_only_desired_fields():
    desired = {"spec": {"a": 1, "b": [1, 2], "c": "x"}}
    live = {"spec": {"a": 1, "b": [2, 1], "extra": True}}
    assert fields.public(fields.mismatches(desired, live)) == [
        {"path": "spec.b", "op": "change", "before": [2, 1], "after": [1, 2]},
        {"path": "spec.c", "op": "add", "before": None, "after": "x"},
    ]
