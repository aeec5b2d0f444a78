# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""k8s_apply's requests at scale against a real API server: what it learns from lists, what it asks once, and a
429 storm from the server's own priority and fairness."""

from __future__ import annotations

import json
import typing as t
import urllib.parse

import pytest
from harness.control_plane import ControlPlane, build
from test_k8s_apply import apply, server_writes
from test_k8s_apply_safety import config_map

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection


@pytest.fixture
def namespace(control_plane, request) -> str:
    name = "scale-" + request.node.name.replace("_", "-")[-40:].strip("-").lower()
    control_plane.kubectl_run("create", "namespace", name)
    return name


def by_resource_and_verb(events: list[dict[str, t.Any]]) -> dict[tuple[str, str, bool], int]:
    counts: dict[tuple[str, str, bool], int] = {}
    for event in events:
        resource = (event.get("objectRef") or {}).get("resource", "") or event["requestURI"]
        key = (resource, event["verb"], "dryRun" in event["requestURI"])
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_from_empty_no_get_per_object_and_one_dry_run_each_under_the_lock(control_plane, namespace):
    objects = [config_map(namespace, f"cm-{i:03d}") for i in range(150)]
    mark = control_plane.audit_offset()
    report = apply(control_plane, objects, apply_set="many", apply_set_namespace=namespace)
    assert report["counts"] == {"created": 150}
    events = control_plane.audit_events(mark, "admin")
    counts = by_resource_and_verb(events)
    assert counts[("configmaps", "get", False)] == 2   # the apply set's parent, by each plan; not one per object
    assert counts[("configmaps", "patch", True)] == 150 + 1   # a dry run each (and the parent's), once: the plan
    assert counts[("configmaps", "patch", False)] == 150 + 1  # made again under the lock reuses them
    # The dry runs were authorized as their writes are: one access review, for the lock's renewal.
    assert counts[("selfsubjectaccessreviews", "create", False)] == 1
    assert counts[("leases", "create", False)] == 1 and counts[("leases", "delete", False)] == 1
    assert ("leases", "get", False) not in counts   # nobody held the lock: created straight away
    renewals = counts.get(("leases", "update", False), 0)   # one per 5 s of the run
    # 2 per object + discovery (2) + a labelled list and a read of the parent by each plan (4) + the parent's dry
    # run and write (2) + the lock (create, delete) + the access review (1).
    assert len(events) - renewals == 2 * len(objects) + 2 + 4 + 2 + 2 + 1, sorted(counts.items())


def test_an_existing_object_of_someone_elses_is_read_only_when_the_dry_run_says_it_exists(control_plane, namespace):
    control_plane.kubectl_run("create", "configmap", "theirs", "-n", namespace, "--from-literal=k=before",
                              "--from-literal=other=kept")
    objects = [config_map(namespace, "theirs"), config_map(namespace, "new")]
    mark = control_plane.audit_offset()
    # Someone else's field is taken over on purpose (adopt): without it, it is a conflict (test_k8s_apply_faults).
    report = apply(control_plane, objects, adopt=True)
    counts = by_resource_and_verb(control_plane.audit_events(mark, "admin"))
    assert counts[("configmaps", "get", False)] == 1   # "theirs" only, after its dry run answered 200
    theirs = next(o for o in report["objects"] if o["name"] == "theirs")
    new = next(o for o in report["objects"] if o["name"] == "new")
    assert theirs["action"] == "updated" and new["action"] == "created"
    assert {c["path"]: (c["before"], c["after"]) for c in theirs["changes"]}["data.k"] == ("before", "theirs")
    live = json.loads(control_plane.kubectl_run("get", "configmap", "theirs", "-n", namespace, "-o", "json").stdout)
    assert live["data"] == {"k": "theirs", "other": "kept"}   # a field we never set stays


def test_an_account_whose_rights_end_at_its_namespaces_applies_across_them(control_plane, namespace):
    second = namespace[:50] + "-b"
    control_plane.kubectl_run("create", "namespace", second)
    for where in (namespace, second):
        control_plane.kubectl_run("create", "role", "apply", "--verb=get,list,create,patch",
                                  "--resource=configmaps", "-n", where)
        control_plane.kubectl_run("create", "rolebinding", "limited-apply", "--role=apply", "--user=limited",
                                  "-n", where)
    objects = [config_map(namespace, "one"), config_map(second, "two")]
    first = apply(control_plane, objects, context="limited")
    assert first["counts"] == {"created": 2}
    mark = control_plane.audit_offset()
    again = apply(control_plane, objects, context="limited")
    assert again["counts"] == {"unchanged": 2} and server_writes(control_plane, mark, "limited") == []
    lists = [e["requestURI"].split("?")[0] for e in control_plane.audit_events(mark, "limited") if e["verb"] == "list"]
    # Across the cluster first (refused), then namespace by namespace.
    assert lists == ["/api/v1/configmaps", f"/api/v1/namespaces/{namespace}/configmaps",
                     f"/api/v1/namespaces/{second}/configmaps"]


STORM = """
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: virtinfra-storm}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 1
    lendablePercent: 0
    limitResponse: {type: Reject}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: virtinfra-storm}
spec:
  priorityLevelConfiguration: {name: virtinfra-storm}
  matchingPrecedence: 100
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: limited}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
"""


@pytest.fixture(scope="module")
def fair_control_plane(tmp_path_factory):
    """An API server of its own with priority and fairness on (the shared one runs without it)."""
    plane = ControlPlane(tmp_path_factory.mktemp("fair-control-plane"), build(), priority_and_fairness=True)
    try:
        yield plane.start()
    finally:
        plane.stop()


@pytest.fixture
def storm(fair_control_plane):
    """The limited user's requests in a priority level of about three seats that turns away, at once, whatever
    does not fit (429), as a busy production control plane does to a bulk client."""
    control_plane, namespace = fair_control_plane, "storm"
    control_plane.kubectl_run("create", "namespace", namespace)
    # Rights of its own (the aggregated admin role needs a controller manager, which the test server lacks).
    control_plane.kubectl_run("create", "role", "apply", "--verb=get,list,create,patch,update,delete",
                              "--resource=configmaps,leases.coordination.k8s.io", "-n", namespace)
    control_plane.kubectl_run("create", "rolebinding", "limited-apply", "--role=apply", "--user=limited",
                              "-n", namespace)
    control_plane.kubectl_run("apply", "-f", "-", input=STORM)
    try:
        yield control_plane, namespace
    finally:
        control_plane.kubectl_run("delete", "flowschema,prioritylevelconfiguration", "virtinfra-storm",
                                  "--ignore-not-found")


def test_a_429_storm_from_priority_and_fairness_is_ridden_out(storm):
    control_plane, namespace = storm
    objects = [config_map(namespace, f"cm-{i:03d}") for i in range(300)]
    mark = control_plane.audit_offset()
    report = apply(control_plane, objects, context="limited", apply_set="storm", apply_set_namespace=namespace,
                   workers=32, retries=2, timeout=300)
    events = control_plane.audit_events(mark, "limited")
    turned_away = [e for e in events if (e.get("responseStatus") or {}).get("code") == 429]
    assert turned_away, "the priority level never turned a request away: the test proves nothing"
    assert report["counts"] == {"created": 300}
    written = {e["objectRef"]["name"] for e in server_writes(control_plane, mark, "limited")
               if e["objectRef"]["resource"] == "configmaps" and e["responseStatus"]["code"] < 300}
    assert written >= {f"cm-{i:03d}" for i in range(300)}
    listed = control_plane.kubectl_run("get", "configmaps", "-n", namespace, "-o", "name").stdout.split()
    assert {name.rpartition("/")[2] for name in listed} >= written
    print(f"{len(turned_away)} requests turned away with 429 ({len(events)} in all); "
          f"paths: {sorted({urllib.parse.urlsplit(e['requestURI']).path.split('/')[-2] for e in turned_away})[:5]}")


def test_a_list_over_128_kib_comes_gzipped_from_the_api_server_and_reads_as_the_plain_one(control_plane, namespace):
    # kube-apiserver compresses an answer over 128 KiB for a client that accepts gzip (k8s.io/apiserver v0.34,
    # pkg/endpoints/handlers/responsewriters/writers.go, defaultGzipThresholdBytes); 200 ConfigMaps of 1 KiB are.
    objects = [{**config_map(namespace, f"cm-{i:03d}"), "data": {"k": f"{i:03d}" * 342}} for i in range(200)]
    assert apply(control_plane, objects, apply_set="zipped", apply_set_namespace=namespace)["counts"] == {
        "created": 200}
    again = apply(control_plane, objects, apply_set="zipped", apply_set_namespace=namespace)
    assert not again["changed"] and again["counts"] == {"unchanged": 200}   # settled from the gzipped list
    connection = Connection(kubeconfig=str(control_plane.kubeconfig), context="admin")
    token = t.cast(str, connection.endpoint.authorization)
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    zipped = connection.transport.send("GET", path, None, [("Accept-Encoding", "gzip"), ("Authorization", token)], 30)
    plain = connection.transport.send("GET", path, None, [("Authorization", token)], 30)
    assert (zipped[0], zipped[1]("content-encoding"), plain[1]("content-encoding")) == (200, "gzip", None)
    items = [(o["metadata"]["name"], o.get("data")) for o in json.loads(zipped[2])["items"]]
    assert items == [(o["metadata"]["name"], o.get("data")) for o in json.loads(plain[2])["items"]]
    ours = [item for item in items if item[0].startswith("cm-")]   # and the apply set's parent
    assert len(ours) == 200 and ours[7] == ("cm-007", {"k": "007" * 342})
