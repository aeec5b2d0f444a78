# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""k8s_apply against a real kube-apiserver; requests are counted from the server's audit log."""

from __future__ import annotations

import copy
import json
import pathlib
import threading
import time
import typing as t

import pytest
import yaml
from harness.control_plane import fake_node
from test_render_playbook import run_playbook

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, ApplyFailed, Options
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection, KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.waits import WaitSpec

ROOT = pathlib.Path(__file__).resolve().parents[2]
WRITE_VERBS = {"create", "update", "patch", "delete", "deletecollection"}


def server_writes(plane, since: int, user: str = "admin") -> list[dict[str, t.Any]]:
    """Requests that changed something (dry runs and access reviews, which persist nothing, left out)."""
    return [e for e in plane.audit_events(since, user)
            if e["verb"] in WRITE_VERBS and "dryRun" not in e["requestURI"]
            and (e.get("objectRef") or {}).get("resource") != "selfsubjectaccessreviews"]


def apply(plane, objects, context="admin", **options) -> dict[str, t.Any]:
    connection = Connection(kubeconfig=str(plane.kubeconfig), context=context,
                            retries=options.pop("retries", 3), backoff=0.05,
                            request_timeout=options.pop("request_timeout", 30), timeout=options.pop("timeout", None))
    return Applier(connection, Options(**options)).run(objects)


def operand_set(namespace: str) -> list[dict[str, t.Any]]:
    hyperconverged = yaml.safe_load((ROOT / "examples" / "hyperconverged.yml").read_text())
    hyperconverged["metadata"]["namespace"] = namespace
    result = render(hyperconverged=hyperconverged, release="1.20", cluster={"platform": "openshift",
                                                                            "namespace": namespace})
    namespace_object = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
    # SecurityContextConstraints (wasp-agent) is an OpenShift API the test server does not serve.
    operands = [o for o in result.operands if o["kind"] != "SecurityContextConstraints"]
    for operand in operands:  # cluster-scoped operands get per-test names so tests stay independent
        if "namespace" not in operand["metadata"]:
            operand["metadata"]["name"] += "-" + namespace
    return [namespace_object, *operands]


def by_name(report, kind, name):
    return next(o for o in report["objects"] if o["kind"] == kind and o["name"] == name)


def changes_of(report):
    return {(o["kind"], o["name"]): o["changes"] for o in report["objects"] if o["changes"]}


WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.test.virtinfra.io"},
    "spec": {"group": "test.virtinfra.io", "scope": "Cluster",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                               "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]},
}


@pytest.fixture()
def namespace(control_plane, request) -> str:
    name = "t-" + request.node.name.replace("_", "-")[5:40].strip("-").lower()
    return name


def test_create_from_empty_then_noop(control_plane, namespace):
    objects = operand_set(namespace)
    kinds = {(o["apiVersion"], o["kind"]) for o in objects}
    mark = control_plane.audit_offset()
    first = apply(control_plane, objects, apply_set=namespace)
    assert first["changed"] is True
    assert all(o["action"] == "created" for o in first["objects"]), first["objects"]
    writes = server_writes(control_plane, mark)
    locks = [(w["verb"], w["objectRef"]["name"]) for w in writes if w["objectRef"]["resource"] == "leases"]
    assert locks == [("create", namespace + "-lock"), ("delete", namespace + "-lock")]   # taken, then released
    writes = [w for w in writes if w["objectRef"]["resource"] != "leases"]
    assert len(writes) == len(objects) + 1   # and the apply set's parent
    assert {w["objectRef"]["resource"] for w in writes} >= {"kubevirts", "cdis", "networkaddonsconfigs", "ssps"}
    # Dependency order: the Namespace first, then the apply set's parent, custom resources after the built-in kinds.
    assert [w["objectRef"]["resource"] for w in writes[:2]] == ["namespaces", "configmaps"]
    kubevirt = control_plane.kubectl_run("get", "kubevirt", "-n", namespace, "-o", "yaml").stdout
    assert "memoryOvercommit: 150" in kubevirt

    mark = control_plane.audit_offset()
    second = apply(control_plane, objects, apply_set=namespace)
    assert second["changed"] is False
    assert all(o["action"] == "unchanged" for o in second["objects"])
    assert server_writes(control_plane, mark) == []
    served = control_plane.audit_events(mark, "admin")
    assert len(served) == second["requests"]["total"]
    assert second["requests"]["total"] <= len(kinds) + 3


def test_update_one_field_gives_exact_diff_and_check_mode_predicts_it(control_plane, namespace):
    objects = operand_set(namespace)
    apply(control_plane, objects, apply_set=namespace)
    edited = copy.deepcopy(objects)
    kubevirt = next(o for o in edited if o["kind"] == "KubeVirt")
    old = kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"]
    kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] = 175

    mark = control_plane.audit_offset()
    predicted = apply(control_plane, edited, apply_set=namespace, check_mode=True)
    assert server_writes(control_plane, mark) == []
    assert predicted["changed"] is True
    expected = [{"path": "spec.configuration.developerConfiguration.memoryOvercommit", "op": "change",
                 "before": old, "after": 175}]
    assert changes_of(predicted) == {("KubeVirt", kubevirt["metadata"]["name"]): expected}

    real = apply(control_plane, edited, apply_set=namespace)
    assert changes_of(real) == changes_of(predicted)
    assert [o["action"] for o in real["objects"]] == [o["action"] for o in predicted["objects"]]
    assert real["diff"][0]["after"]["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] == 175
    assert "managedFields" not in real["diff"][0]["after"]["metadata"]
    assert apply(control_plane, edited, apply_set=namespace)["changed"] is False


def test_drift_by_another_manager_is_reported_then_reverted(control_plane, namespace):
    objects = operand_set(namespace)
    apply(control_plane, objects, apply_set=namespace)
    cdi = next(o for o in objects if o["kind"] == "CDI")
    control_plane.kubectl_run("patch", "cdi", cdi["metadata"]["name"], "--type=merge", "--field-manager=someone",
                              "-p", '{"spec":{"config":{"scratchSpaceStorageClass":"fast"}}}')
    control_plane.kubectl_run("patch", "cdi", cdi["metadata"]["name"], "--type=merge", "--field-manager=someone",
                              "-p", '{"spec":{"uninstallStrategy":"RemoveWorkloads"}}')

    mark = control_plane.audit_offset()
    report = apply(control_plane, objects, apply_set=namespace, drift="report")
    assert server_writes(control_plane, mark) == []
    entry = by_name(report, "CDI", cdi["metadata"]["name"])
    assert entry["drift"]["count"] == 1
    drifted = entry["drift"]["fields"][0]
    assert drifted["path"] == "spec.uninstallStrategy"
    assert (drifted["before"], drifted["after"]) == ("RemoveWorkloads", cdi["spec"]["uninstallStrategy"])
    assert drifted["managers"] == ["someone"]
    assert report["drift_total"] == 1 and report["reverted_total"] == 0 and report["changed"] is False
    # scratchSpaceStorageClass is not a field we set: another manager may own it, it is not drift.
    live = yaml.safe_load(control_plane.kubectl_run("get", "cdi", cdi["metadata"]["name"], "-o", "yaml").stdout)
    assert live["spec"]["uninstallStrategy"] == "RemoveWorkloads"

    reverted = apply(control_plane, objects, apply_set=namespace, drift="revert")
    entry = by_name(reverted, "CDI", cdi["metadata"]["name"])
    assert (entry["reverted"], reverted["reverted_total"], entry["action"]) == (1, 1, "updated")
    live = yaml.safe_load(control_plane.kubectl_run("get", "cdi", cdi["metadata"]["name"], "-o", "yaml").stdout)
    assert live["spec"]["uninstallStrategy"] == cdi["spec"]["uninstallStrategy"]
    assert live["spec"]["config"]["scratchSpaceStorageClass"] == "fast"
    assert apply(control_plane, objects, apply_set=namespace)["changed"] is False


def test_a_field_someone_removed_is_drift_though_managed_fields_keep_no_trace_of_them(control_plane, namespace):
    """Another manager's replace that drops a key we applied leaves managedFields as if only we had written: our
    Apply entry without that key, no entry of theirs. A no-op that trusted managedFields and the fingerprint alone
    would call the object settled; the live values must decide."""
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "removed", "namespace": namespace},
                  "data": {"kept": "1", "dropped": "2"}}
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}, config_map]

    def live() -> dict[str, t.Any]:
        return yaml.safe_load(control_plane.kubectl_run("get", "cm", "removed", "-n", namespace, "-o", "yaml",
                                                        "--show-managed-fields").stdout)

    apply(control_plane, objects, apply_set=namespace)
    edited = live()
    del edited["data"]["dropped"]
    control_plane.kubectl_run("replace", "--field-manager=someone", "-f", "-", input=yaml.safe_dump(edited))
    managed = live()["metadata"]["managedFields"]
    # What makes the case: the server's record names no one but us, and our entry no longer has the key.
    assert [(e["manager"], e["operation"]) for e in managed] == [("virtinfra.hyperconverged", "Apply")]
    assert "f:dropped" not in managed[0]["fieldsV1"]["f:data"]

    mark = control_plane.audit_offset()
    report = apply(control_plane, objects, apply_set=namespace, drift="report")
    assert server_writes(control_plane, mark) == []
    entry = by_name(report, "ConfigMap", "removed")
    assert [(f["path"], f["after"], f["managers"]) for f in entry["drift"]["fields"]] == [("data.dropped", "2", [])]
    assert report["changed"] is False

    reverted = apply(control_plane, objects, apply_set=namespace, drift="revert")
    assert by_name(reverted, "ConfigMap", "removed")["action"] == "updated"
    assert live()["data"] == config_map["data"]
    assert apply(control_plane, objects, apply_set=namespace)["changed"] is False


def test_prune_deletes_only_undesired_objects_of_the_apply_set(control_plane, namespace):
    base = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}]
    maps = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}", "namespace": namespace},
             "data": {"i": str(i)}} for i in range(3)]
    other_set = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "namespace": namespace},
                  "data": {}}]
    apply(control_plane, base + maps, apply_set=namespace)
    apply(control_plane, other_set, apply_set=namespace + "-other")
    predicted = apply(control_plane, base + maps[:2], apply_set=namespace, prune=True, check_mode=True)
    assert [p["name"] for p in predicted["pruned"]] == ["cm-2"]
    assert "cm-2" in control_plane.kubectl_run("get", "cm", "-n", namespace).stdout
    result = apply(control_plane, base + maps[:2], apply_set=namespace, prune=True)
    assert [p["name"] for p in result["pruned"]] == ["cm-2"] and result["changed"] is True
    names = control_plane.kubectl_run("get", "cm", "-n", namespace, "-o", "name").stdout.split()
    assert "configmap/cm-2" not in names and {"configmap/cm-0", "configmap/other"} <= set(names)


def test_invalid_objects_are_all_reported_and_nothing_is_written(control_plane, namespace):
    objects = operand_set(namespace)
    apply(control_plane, objects, apply_set=namespace)
    bad = copy.deepcopy(objects)
    kubevirt = next(o for o in bad if o["kind"] == "KubeVirt")
    kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] = 180   # valid change
    cdi = next(o for o in bad if o["kind"] == "CDI")
    cdi["spec"]["uninstallStrategy"] = "Sometimes"                                          # enum violation
    cdi["spec"]["notAField"] = True                                                         # unknown field
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, bad, apply_set=namespace)
    paths = {(e["object"].split()[1], e["path"]) for e in failure.value.errors}
    assert paths == {("CDI", "spec.uninstallStrategy"), ("CDI", "spec.notAField")}
    assert server_writes(control_plane, mark) == []

    # A rule only the server knows (object name syntax) fails in the dry run, again before any write.
    bad_name = [*copy.deepcopy(objects), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Not_Valid", "namespace": namespace}}]
    next(o for o in bad_name if o["kind"] == "KubeVirt")["spec"]["configuration"]["developerConfiguration"][
        "memoryOvercommit"] = 180
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, bad_name, apply_set=namespace)
    assert [e["path"] for e in failure.value.errors] == ["metadata.name"]
    assert server_writes(control_plane, mark) == []
    live = control_plane.kubectl_run("get", "kubevirt", "-n", namespace, "-o", "yaml").stdout
    assert "memoryOvercommit: 150" in live


def test_a_missing_create_right_stops_the_run_at_the_dry_run_with_no_access_review(control_plane, namespace):
    control_plane.kubectl_run("create", "namespace", namespace)
    control_plane.kubectl_run("create", "configmap", "present", "-n", namespace, "--from-literal=k=before")
    role = f"{namespace}-no-create"
    # May change ConfigMaps that exist, not create new ones: only the dry run of the new one can tell.
    control_plane.kubectl_run("create", "role", role, "--verb=get,list,patch", "--resource=configmaps", "-n", namespace)
    control_plane.kubectl_run("create", "rolebinding", role, f"--role={role}", "--user=limited", "-n", namespace)
    objects = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace},
                "data": {"k": "after"}} for name in ("present", "new")]
    deadline = time.monotonic() + 30
    while control_plane.kubectl_run("auth", "can-i", "patch", "configmaps", "-n", namespace, context="limited",
                                    check=False).returncode != 0:
        assert time.monotonic() < deadline, "the role binding did not reach the authorizer"
        time.sleep(0.2)
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        # "present" was made by kubectl: its field is taken over on purpose (adopt), so the right is all that fails.
        apply(control_plane, objects, context="limited", adopt=True)
    assert [e["message"] for e in failure.value.errors] == [
        f"user limited cannot create configmaps in namespace {namespace}"]
    assert server_writes(control_plane, mark, "limited") == []
    asked = [e for e in control_plane.audit_events(mark, "limited")
             if (e.get("objectRef") or {}).get("resource") == "selfsubjectaccessreviews"]
    assert asked == []
    live = control_plane.kubectl_run("get", "configmap", "present", "-n", namespace, "-o", "jsonpath={.data.k}")
    assert live.stdout == "before"


def test_rbac_denial_names_user_verb_resource_and_namespace(control_plane, namespace):
    apply(control_plane, [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}],
          apply_set=namespace)
    control_plane.kubectl_run("create", "clusterrole", f"{namespace}-read", "--verb=get,list,watch",
                              "--resource=*.*")
    control_plane.kubectl_run("create", "clusterrolebinding", f"{namespace}-read",
                              f"--clusterrole={namespace}-read", "--user=limited")
    try:
        mark = control_plane.audit_offset()
        with pytest.raises(ApplyFailed) as failure:
            apply(control_plane, [{"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": "x", "namespace": namespace}, "data": {}}],
                  context="limited", apply_set=namespace)
        assert failure.value.errors[0]["message"] == f"user limited cannot patch configmaps in namespace {namespace}"
        assert server_writes(control_plane, mark, "limited") == []
    finally:  # the API server is shared by the tests of this worker
        control_plane.kubectl_run("delete", "clusterrolebinding", f"{namespace}-read")
    with pytest.raises(KubeError) as denied:
        apply(control_plane, [{"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "x", "namespace": namespace}}], context="limited")
    assert str(denied.value) == f"user limited cannot list configmaps in namespace {namespace}"


def test_crd_and_its_custom_resource_in_one_call_wait_for_established(control_plane):
    crd = WIDGET_CRD
    widget: dict[str, t.Any] = {"apiVersion": "test.virtinfra.io/v1", "kind": "Widget", "metadata": {"name": "w1"},
                                "spec": {"size": 3}}
    bad = copy.deepcopy(widget)
    bad["spec"]["size"] = "three"
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, [widget, crd, bad | {"metadata": {"name": "w2"}}], apply_set="widgets")
    assert [(e["object"], e["path"]) for e in failure.value.errors] == [("test.virtinfra.io/v1 Widget w2",
                                                                         "spec.size")]
    assert "widgets" not in control_plane.kubectl_run("get", "crd", "-o", "name").stdout

    predicted = apply(control_plane, [widget, crd], apply_set="widgets", check_mode=True)
    assert by_name(predicted, "Widget", "w1")["deferred"]
    result = apply(control_plane, [widget, crd], apply_set="widgets")
    assert [o["action"] for o in result["objects"]] == ["created", "created"]
    assert control_plane.kubectl_run("get", "widget", "w1", "-o", "jsonpath={.spec.size}").stdout == "3"
    assert apply(control_plane, [widget, crd], apply_set="widgets")["changed"] is False


def test_waits_on_conditions_and_jsonpath_failure_values(control_plane):
    widget = {"apiVersion": "test.virtinfra.io/v1", "kind": "Widget", "metadata": {"name": "waited"},
              "spec": {"size": 1}}
    apply(control_plane, [WIDGET_CRD, widget], apply_set="waits")
    target = ("widget", "waited")
    available = WaitSpec("test.virtinfra.io/v1", "Widget", "waited", condition_type="Available")

    def set_status_later(status: dict) -> threading.Thread:
        def run() -> None:
            time.sleep(1.5)
            control_plane.kubectl_run("patch", *target, "--subresource=status", "--type=merge",
                                      "-p", yaml.safe_dump({"status": status}))
        thread = threading.Thread(target=run)
        thread.start()
        return thread

    thread = set_status_later({"conditions": [{"type": "Available", "status": "True", "reason": "Ready",
                                               "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]})
    started = time.monotonic()
    apply(control_plane, [WIDGET_CRD, widget], apply_set="waits", wait_for=[available], wait_timeout=30)
    thread.join()
    assert time.monotonic() - started >= 1.0

    failing = WaitSpec("test.virtinfra.io/v1", "Widget", "waited",
                       jsonpath="{.status.phase}", success=("Ready",), failure=("Failed",))
    thread = set_status_later({"phase": "Failed"})
    started = time.monotonic()
    with pytest.raises(ApplyFailed, match="failure value"):
        apply(control_plane, [WIDGET_CRD, widget], apply_set="waits", wait_for=[failing], wait_timeout=60)
    thread.join()
    assert time.monotonic() - started < 20

    never = WaitSpec("test.virtinfra.io/v1", "Widget", "waited", condition_type="Degraded")
    with pytest.raises(ApplyFailed, match="timed out after 2s"):
        apply(control_plane, [WIDGET_CRD, widget], apply_set="waits", wait_for=[never], wait_timeout=2)


def test_api_server_stopped_mid_run_then_rerun_converges(control_plane, namespace):
    objects = operand_set(namespace)
    never = WaitSpec("v1", "Namespace", namespace, None, condition_type="NeverTrue")
    failures: list[BaseException] = []

    def run() -> None:
        try:
            apply(control_plane, objects, apply_set=namespace, wait_for=[never], wait_timeout=120, retries=2)
        except BaseException as exc:  # collected for the assertion below
            failures.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    # The last object written is the SSP; after it the call is waiting on a condition that never comes.
    while time.monotonic() < deadline and control_plane.kubectl_run(
            "get", "ssp", "-n", namespace, "-o", "name", check=False).stdout == "":
        time.sleep(0.2)
    control_plane.stop_apiserver()
    thread.join(timeout=120)
    try:
        assert failures and "is unreachable" in str(failures[0]), failures
        with pytest.raises(KubeError, match="unreachable"):
            apply(control_plane, objects, apply_set=namespace, retries=0)
    finally:
        control_plane.start_apiserver()
    rerun = apply(control_plane, objects, apply_set=namespace)
    assert all(o["action"] in ("unchanged", "created", "updated") for o in rerun["objects"])
    assert apply(control_plane, objects, apply_set=namespace)["changed"] is False


def test_through_ansible_the_waits_say_what_they_wait_for_while_the_real_controllers_roll_out(cluster, tmp_path):
    # kube-controller-manager, kube-scheduler and kwok act here: the Deployment selects a label no node has yet, so
    # its Pod stays unscheduled and the wait says what it waits for, until the test adds a node with that label; the
    # scheduler binds the Pod there, kwok runs it, the controller reports the rollout. The DaemonSet runs a Pod on
    # each of the cluster's workers.
    namespace = "waits-said"
    selector = {"waits-said": "here"}
    workers = {"node-role.kubernetes.io/worker": ""}

    def workload(kind: str) -> dict[str, t.Any]:
        spec = {"selector": {"matchLabels": {"a": kind}},
                "template": {"metadata": {"labels": {"a": kind}},
                             "spec": {"nodeSelector": selector if kind == "Deployment" else workers,
                                      "containers": [{"name": "c", "image": "example.org/c:1"}]}}}
        return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": kind.lower(), "namespace": namespace},
                "spec": {**spec, "replicas": 1} if kind == "Deployment" else spec}

    waits = [{"apiVersion": "apps/v1", "kind": kind, "name": kind.lower(), "namespace": namespace, "ready": True}
             for kind in ("Deployment", "DaemonSet")]
    playbook = tmp_path / "play.yml"
    playbook.write_text(yaml.safe_dump([{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        {"virtinfra.hyperconverged.k8s_apply": {
            "objects": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
                        workload("Deployment"), workload("DaemonSet")],
            "kubeconfig": str(cluster.kubeconfig), "wait_for": waits, "wait_timeout": 90},
         "register": "applied"},
        {"ansible.builtin.debug": {"var": "applied.waited"}}]}]))

    def node_later() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and cluster.kubectl_run(
                "get", "deployment", "deployment", "-n", namespace, check=False).returncode != 0:
            time.sleep(0.2)
        time.sleep(3)
        cluster.add_nodes([fake_node("waits-said-node", labels=selector)])

    thread = threading.Thread(target=node_later)
    thread.start()
    try:
        result = run_playbook(playbook)
    finally:
        thread.join()
    try:
        assert result.returncode == 0, result.stdout + result.stderr
        for said in (f"waiting for Deployment {namespace}/deployment (ready): 0 of 1 updated replicas available",
                     f"Deployment {namespace}/deployment (ready): ready after"):
            assert f"[k8s_apply] {said}" in result.stdout, [line for line in result.stdout.splitlines() if "k8s_apply" in line]
        # The DaemonSet was waited for too (its Pods on the workers may already run by then: nothing said).
        assert f'"what": "DaemonSet {namespace}/daemonset (ready)"' in result.stdout
        pods = json.loads(cluster.kubectl_run("get", "pods", "-n", namespace, "-o", "json").stdout)["items"]
        where: dict[str, set[str]] = {pod["metadata"]["labels"]["a"]: set() for pod in pods}
        for pod in pods:
            where[pod["metadata"]["labels"]["a"]].add(pod["spec"]["nodeName"])
        listed = json.loads(cluster.kubectl_run("get", "nodes", "-l", "node-role.kubernetes.io/worker",
                                                "-o", "json").stdout)["items"]
        assert where == {"Deployment": {"waits-said-node"}, "DaemonSet": {n["metadata"]["name"] for n in listed}}
        assert all(pod["status"]["phase"] == "Running" for pod in pods)
    finally:
        # The namespace controller deletes what is in the namespace, then the namespace; garbage collection the
        # Pods of the ReplicaSet and of the DaemonSet.
        cluster.kubectl_run("delete", "namespace", namespace, "--timeout=120s")
        cluster.kubectl_run("delete", "node", "waits-said-node")
