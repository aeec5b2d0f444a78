# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""k8s_apply never changes what another field manager set: drift report on lists, against a real API server."""

from __future__ import annotations

import base64
import json
import random
import signal
import subprocess
import threading
import time
import typing as t

import pytest
from test_k8s_apply import apply, operand_set, server_writes

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import applyset
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import (
    MANAGED_BY_LABEL,
    ApplyFailed,
)
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.fields import FINGERPRINT_ANNOTATION


def deployment(namespace: str) -> dict[str, t.Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": namespace},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                         "hostAliases": [{"ip": "10.1.0.1", "hostnames": ["db", "db.local"]}],
                         "tolerations": [{"key": "virt", "operator": "Exists", "effect": "NoSchedule"}],
                         "containers": [
                             {"name": "app", "image": "registry.local/app:1",
                              "env": [{"name": "MODE", "value": "fast"}, {"name": "LEVEL", "value": "2"}]},
                             {"name": "side", "image": "registry.local/side:1"}]}}}}


@pytest.fixture
def namespace(control_plane, request) -> str:
    name = "safe-" + request.node.name.replace("_", "-")[-40:].strip("-").lower()
    control_plane.kubectl_run("create", "namespace", name)
    return name


def live_state(plane, kind: str, name: str, namespace: str | None = None) -> dict[str, t.Any]:
    args = ["get", kind, name, "-o", "json"] + (["-n", namespace] if namespace else [])
    obj = json.loads(plane.kubectl_run(*args).stdout)
    for field in ("managedFields", "resourceVersion", "generation"):
        obj["metadata"].pop(field, None)
    obj.pop("status", None)
    return obj


def foreign_patch(plane, kind: str, name: str, namespace: str | None, operations: list[dict[str, t.Any]]) -> None:
    args = ["patch", kind, name, "--type=json", "--field-manager=someone-else", "-p", json.dumps(operations)]
    plane.kubectl_run(*args, *(["-n", namespace] if namespace else []))


def test_report_leaves_foreign_list_edits_alone_and_writes_nothing(control_plane, namespace):
    desired = deployment(namespace)
    apply(control_plane, [desired])
    control_plane.kubectl_run("set", "image", "deployment/web", "app=registry.local/app:2", "-n", namespace)
    foreign_patch(control_plane, "deployment", "web", namespace, [
        {"op": "replace", "path": "/spec/template/spec/hostAliases/0/hostnames/0", "value": "db-new"},
        {"op": "add", "path": "/spec/template/spec/tolerations/-", "value": {"key": "gpu", "operator": "Exists"}},
        {"op": "replace", "path": "/spec/template/spec/containers/0/env/0/value", "value": "slow"},
    ])
    before = live_state(control_plane, "deployment", "web", namespace)
    mark = control_plane.audit_offset()

    report = apply(control_plane, [desired], drift="report")

    assert server_writes(control_plane, mark) == []
    assert live_state(control_plane, "deployment", "web", namespace) == before
    entry = report["objects"][0]
    assert entry["action"] == "unchanged" and not report["changed"]
    drift = {f["path"]: f for f in entry["drift"]["fields"]}
    assert sorted(drift) == [
        "spec.template.spec.containers[0].env[0].value",
        "spec.template.spec.containers[0].image",
        "spec.template.spec.hostAliases[0].hostnames[0]",
        "spec.template.spec.tolerations",
    ]
    assert drift["spec.template.spec.containers[0].image"]["before"] == "registry.local/app:2"
    assert all(f["managers"] for f in drift.values())

    # A change to the input still goes through in report mode; the foreign edits stay.
    desired["spec"]["template"]["spec"]["containers"][1]["image"] = "registry.local/side:2"
    apply(control_plane, [desired], drift="report")
    after = live_state(control_plane, "deployment", "web", namespace)
    pod = after["spec"]["template"]["spec"]
    assert pod["containers"][1]["image"] == "registry.local/side:2"
    assert pod["containers"][0]["image"] == "registry.local/app:2"
    assert pod["hostAliases"][0]["hostnames"] == ["db-new", "db.local"]
    assert [t["key"] for t in pod["tolerations"]] == ["virt", "gpu"]
    assert pod["containers"][0]["env"][0]["value"] == "slow"

    # revert takes every field back.
    apply(control_plane, [desired], drift="revert")
    pod = live_state(control_plane, "deployment", "web", namespace)["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"] == "registry.local/app:1"
    assert pod["hostAliases"][0]["hostnames"] == ["db", "db.local"]


def _leaf_paths(value: t.Any, path: tuple[t.Any, ...] = ()) -> t.Iterator[tuple[tuple[t.Any, ...], t.Any]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _leaf_paths(child, (*path, key))
    elif isinstance(value, list) and value:
        for index, child in enumerate(value):
            yield from _leaf_paths(child, (*path, index))
    else:
        yield path, value


def _pointer(path: tuple[t.Any, ...]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _new_value(value: t.Any, rng: random.Random) -> t.Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.randint(1, 5)
    if isinstance(value, str):
        return value + "-x"
    return value


def test_random_foreign_drifts_are_never_changed_by_a_report_run(control_plane, namespace):
    """For random edits by another manager on objects of several kinds the collection writes (a Deployment,
    operands from the example HyperConverged), a report run with the same input writes nothing."""
    rng = random.Random(20261123)
    operands = {o["kind"]: o for o in operand_set(namespace)}
    objects = [deployment(namespace), operands["KubeVirt"], operands["CDI"], operands["NetworkAddonsConfig"]]
    apply(control_plane, objects)
    drifted: list[tuple[str, str]] = []
    for obj in objects:
        meta = obj["metadata"]
        kind = f"{obj['kind'].lower()}.{obj['apiVersion'].split('/')[0]}" if "/" in obj["apiVersion"] else obj["kind"]
        candidates = [(p, v) for p, v in _leaf_paths(obj["spec"]) if isinstance(v, (bool, int, str))
                      and not (obj["kind"] == "Deployment" and p[:1] == ("selector",))
                      and "labels" not in p]
        for path, value in rng.sample(candidates, min(3, len(candidates))):
            operation = {"op": "replace", "path": _pointer(("spec", *path)), "value": _new_value(value, rng)}
            try:
                foreign_patch(control_plane, kind, meta["name"], meta.get("namespace"), [operation])
            except subprocess.CalledProcessError:  # the schema refuses this value (an enum, a pattern): not a drift anyone can make
                continue
            before = live_state(control_plane, kind, meta["name"], meta.get("namespace"))
            mark = control_plane.audit_offset()
            apply(control_plane, objects, drift="report")
            assert server_writes(control_plane, mark) == [], (obj["kind"], operation)
            assert live_state(control_plane, kind, meta["name"], meta.get("namespace")) == before, operation
            drifted.append((obj["kind"], operation["path"]))
    # The premise: edits the schema refuses are skipped, but most of the drawn ones landed, on every kind.
    assert len(drifted) >= 8 and {kind for kind, _path in drifted} == {o["kind"] for o in objects}, drifted


# ---------------------------------------------------------------- prune can only delete its own

def config_map(namespace: str, name: str, **labels: str) -> dict[str, t.Any]:
    meta: dict[str, t.Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": name}}


def exists(plane, kind: str, name: str, namespace: str | None = None) -> bool:
    args = ["get", kind, name] + (["-n", namespace] if namespace else [])
    return plane.kubectl_run(*args, check=False).returncode == 0


def test_prune_needs_a_named_apply_set(control_plane, namespace):
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, [config_map(namespace, "a")], prune=True)
    assert [e["path"] for e in failure.value.errors] == ["apply_set"]
    assert server_writes(control_plane, mark) == []


def test_two_apply_sets_never_prune_each_other(control_plane, namespace):
    other = namespace + "-b"
    control_plane.kubectl_run("create", "namespace", other)
    apply(control_plane, [config_map(namespace, "of-a")], apply_set="set-a", prune=True)
    apply(control_plane, [config_map(other, "of-b"), config_map(other, "of-b-2")], apply_set="set-b", prune=True)
    report = apply(control_plane, [config_map(other, "of-b")], apply_set="set-b", prune=True)
    assert [p["name"] for p in report["pruned"]] == ["of-b-2"]
    assert exists(control_plane, "configmap", "of-a", namespace)


def test_a_copied_manifest_with_our_labels_is_not_pruned(control_plane, namespace):
    apply(control_plane, [config_map(namespace, "ours")], apply_set="copies", prune=True)
    labels = {MANAGED_BY_LABEL: "virtinfra.hyperconverged",
              applyset.PART_OF_LABEL: applyset.applyset_id("copies", "default")}
    copy = config_map(namespace, "copied", **labels)
    control_plane.kubectl_run("create", "-f", "-", input=json.dumps(copy))
    report = apply(control_plane, [config_map(namespace, "ours")], apply_set="copies", prune=True)
    assert report["pruned"] == []
    assert exists(control_plane, "configmap", "copied", namespace)
    assert any("copied" in w and "not pruned" in w for w in report["warnings"])


def test_a_namespace_is_never_pruned_with_foreign_objects_in_it(control_plane, namespace):
    space = namespace + "-ns"
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": space}}, config_map(space, "ours")]
    apply(control_plane, objects, apply_set="spaces")
    control_plane.kubectl_run("create", "configmap", "users-data", "--from-literal=k=v", "-n", space)
    control_plane.kubectl_run("create", "secret", "generic", "users-secret", "--from-literal=k=v", "-n", space)
    keep = [config_map(namespace, "anchor")]
    namespaces = [("v1", "Namespace")]   # no Namespace is left in the input: name the kind to search

    # Without prune_namespaces: left alone, with a warning; its ConfigMap (of the set) is pruned.
    report = apply(control_plane, keep, apply_set="spaces", prune=True, prune_kinds=namespaces,
                   check_mode=True)
    assert [(p["kind"], p["name"]) for p in report["pruned"]] == [("ConfigMap", "ours")]
    assert any(space in w and "prune_namespaces" in w for w in report["warnings"])
    assert exists(control_plane, "configmap", "ours", space)          # check mode deletes nothing

    # With it: refused, naming what the user keeps there; nothing written.
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, keep, apply_set="spaces", prune=True, prune_kinds=namespaces, prune_namespaces=True)
    message = str(failure.value)
    assert "ConfigMap " + space + "/users-data" in message and "Secret " + space + "/users-secret" in message
    assert server_writes(control_plane, mark) == []
    assert exists(control_plane, "configmap", "users-data", space) and exists(control_plane, "namespace", space)

    # Emptied of foreign objects: pruned, and the result says what went with it.
    control_plane.kubectl_run("delete", "configmap", "users-data", "-n", space)
    control_plane.kubectl_run("delete", "secret", "users-secret", "-n", space)
    report = apply(control_plane, keep, apply_set="spaces", prune=True, prune_kinds=namespaces,
                   prune_namespaces=True, check_mode=True)
    pruned = {p["kind"]: p for p in report["pruned"]}
    assert pruned["Namespace"]["contents"] == [f"ConfigMap {space}/ours"]


def test_an_unserved_prune_kind_is_a_warning(control_plane, namespace):
    report = apply(control_plane, [config_map(namespace, "a")], apply_set="kinds", prune=True,
                   prune_kinds=[("example.com/v9", "Gone")])
    assert any("Gone" in w and "does not serve" in w for w in report["warnings"])


# ---------------------------------------------------------------- the ApplySet parent (KEP-3659)

def _parent(plane, name: str, namespace: str) -> dict[str, t.Any]:
    return json.loads(plane.kubectl_run("get", "configmap", name, "-n", namespace, "-o", "json").stdout)


def test_the_parent_records_the_set_as_kubectl_does_and_kubectl_recognises_it(control_plane, namespace):
    other = namespace + "-o"
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": other}},
               config_map(namespace, "a"), config_map(other, "b"), deployment(namespace)]
    report = apply(control_plane, objects, apply_set="kep", apply_set_namespace=namespace)
    parent = _parent(control_plane, "kep", namespace)
    labels, annotations = parent["metadata"]["labels"], parent["metadata"]["annotations"]
    expected_id = applyset.applyset_id("kep", namespace, "ConfigMap", "")
    assert labels["applyset.kubernetes.io/id"] == expected_id == report["apply_set"]["id"]
    assert annotations["applyset.kubernetes.io/contains-group-kinds"] == "ConfigMap,Deployment.apps,Namespace"
    assert annotations["applyset.kubernetes.io/additional-namespaces"] == other
    assert annotations["applyset.kubernetes.io/tooling"].startswith("virtinfra.hyperconverged/v")
    assert report["apply_set"]["action"] == "created" and report["changed"]
    members = control_plane.kubectl_run("get", "configmaps,deployments", "-A", "-o", "name", "-l",
                                        f"applyset.kubernetes.io/part-of={expected_id}").stdout.split()
    assert sorted(members) == ["configmap/a", "configmap/b", "deployment.apps/web"]

    # kubectl's own ApplySet pruning sees a parent of another tool and refuses to touch the set.
    stray = control_plane.kubectl_run(
        "apply", "--prune", "--applyset=configmap/kep", "-n", namespace, "-f", "-",
        input=json.dumps(config_map(namespace, "from-kubectl")), check=False, env={"KUBECTL_APPLYSET": "true"})
    assert stray.returncode != 0 and "virtinfra.hyperconverged" in stray.stderr, stray.stderr
    assert exists(control_plane, "configmap", "a", namespace)
    assert not exists(control_plane, "configmap", "from-kubectl", namespace)

    again = apply(control_plane, objects, apply_set="kep", apply_set_namespace=namespace)
    assert again["apply_set"]["action"] == "unchanged" and not again["changed"]


def test_a_kind_that_left_the_input_is_pruned_from_the_record_and_the_record_shrinks(control_plane, namespace):
    first = [config_map(namespace, "stays"), deployment(namespace)]
    apply(control_plane, first, apply_set="shrink", apply_set_namespace=namespace)
    # No prune_kinds: the parent remembers that the set held a Deployment.
    report = apply(control_plane, first[:1], apply_set="shrink", apply_set_namespace=namespace, prune=True)
    assert [(p["kind"], p["name"]) for p in report["pruned"]] == [("Deployment", "web")]
    assert not exists(control_plane, "deployment", "web", namespace)
    annotations = _parent(control_plane, "shrink", namespace)["metadata"]["annotations"]
    assert annotations["applyset.kubernetes.io/contains-group-kinds"] == "ConfigMap"
    assert report["apply_set"]["group_kinds"] == ["ConfigMap"]


def test_an_object_that_is_not_our_parent_stops_the_run_and_is_left_alone(control_plane, namespace):
    control_plane.kubectl_run("create", "configmap", "taken", "--from-literal=k=v", "-n", namespace)
    kubectl_parent = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "kubectls", "namespace": namespace,
        "labels": {"applyset.kubernetes.io/id": applyset.applyset_id("kubectls", namespace)},
        "annotations": {"applyset.kubernetes.io/tooling": "kubectl/v1.34",
                        "applyset.kubernetes.io/contains-group-kinds": "ConfigMap"}}}
    control_plane.kubectl_run("create", "-f", "-", input=json.dumps(kubectl_parent))
    before = {name: _parent(control_plane, name, namespace) for name in ("taken", "kubectls")}
    for name, says in (("taken", "is not the parent"), ("kubectls", "managed by kubectl/v1.34")):
        mark = control_plane.audit_offset()
        with pytest.raises(ApplyFailed) as failure:
            apply(control_plane, [config_map(namespace, "x")], apply_set=name, apply_set_namespace=namespace,
                  prune=True)
        assert says in str(failure.value) and [e["path"] for e in failure.value.errors] == ["apply_set"]
        assert server_writes(control_plane, mark) == []
        assert _parent(control_plane, name, namespace) == before[name]


def test_our_labels_in_a_namespace_the_parent_never_recorded_are_not_pruned(control_plane, namespace):
    elsewhere = namespace + "-x"
    control_plane.kubectl_run("create", "namespace", elsewhere)
    apply(control_plane, [config_map(namespace, "ours")], apply_set="where", apply_set_namespace=namespace)
    # Same labels and even our field manager, in a namespace the set never had (another tool or a person re-applying
    # a copy under our name): not a member.
    copy = config_map(elsewhere, "copy", **{MANAGED_BY_LABEL: "virtinfra.hyperconverged",
                                            applyset.PART_OF_LABEL: applyset.applyset_id("where", namespace)})
    control_plane.kubectl_run("apply", "--server-side", "--field-manager=virtinfra.hyperconverged", "-f", "-",
                              input=json.dumps(copy))
    report = apply(control_plane, [config_map(namespace, "ours")], apply_set="where", apply_set_namespace=namespace,
                   prune=True)
    assert report["pruned"] == [] and exists(control_plane, "configmap", "copy", elsewhere)
    assert any("copy" in w and "never recorded" in w for w in report["warnings"])


def test_the_parent_goes_into_a_namespace_created_by_the_same_run(control_plane, namespace):
    fresh = namespace + "-new"
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": fresh}}, config_map(fresh, "a")]
    check = apply(control_plane, objects, apply_set="fresh", apply_set_namespace=fresh, check_mode=True)
    assert check["apply_set"]["action"] == "created" and not exists(control_plane, "namespace", fresh)
    mark = control_plane.audit_offset()
    report = apply(control_plane, objects, apply_set="fresh", apply_set_namespace=fresh)
    order = [(w["objectRef"]["resource"], w["objectRef"]["name"], w["verb"]) for w in server_writes(control_plane, mark)]
    # Namespace, then the apply set's lock in it, the parent, its members, and the lock released.
    assert order == [("namespaces", fresh, "patch"), ("leases", "fresh-lock", "create"), ("configmaps", "fresh", "patch"),
                     ("configmaps", "a", "patch"), ("leases", "fresh-lock", "delete")], order
    assert next(o for o in report["objects"] if o["kind"] == "Namespace")["action"] == "created"
    assert report["apply_set"]["action"] == "created"


# ---------------------------------------------------------------- every problem at once

def test_every_problem_of_every_phase_is_reported_at_once_with_its_path(control_plane, namespace):
    kubevirt = next(o for o in operand_set(namespace) if o["kind"] == "KubeVirt")
    kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] = "lots"
    typo = deployment(namespace)
    typo["spec"]["replicaz"] = 2
    objects = [
        config_map(namespace, "fine"),
        {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g", "namespace": namespace}},
        kubevirt,
        typo,
        config_map("no-such-namespace", "lost"),
    ]
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, objects, apply_set="all-at-once", apply_set_namespace=namespace)
    found = [(e["index"], e["path"]) for e in failure.value.errors]
    assert found == [                                                       # in input order
        (1, "kind"),                                                        # not served
        (2, "spec.configuration.developerConfiguration.memoryOvercommit"),  # CRD schema
        (3, "spec.replicaz"),                                               # the server's strict validation
        (4, "metadata.namespace"),                                          # no such namespace
    ], failure.value.errors
    assert "nothing was written" in str(failure.value)
    assert server_writes(control_plane, mark) == []
    assert not exists(control_plane, "configmap", "fine", namespace)


def test_a_broken_input_object_stops_the_run_before_any_dry_run_with_every_local_problem(control_plane, namespace):
    # One object without a name among many: no dry run is worth a request per object. What needs none (discovery,
    # the CRD schemas) is still reported, every problem at once.
    kubevirt = next(o for o in operand_set(namespace) if o["kind"] == "KubeVirt")
    kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] = "lots"
    objects = [config_map(namespace, f"fine-{i}") for i in range(50)] + [
        {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g", "namespace": namespace}},
        kubevirt,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": namespace}},
    ]
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, objects, apply_set="broken-input", apply_set_namespace=namespace)
    assert [(e["index"], e["path"]) for e in failure.value.errors] == [
        (50, "kind"), (51, "spec.configuration.developerConfiguration.memoryOvercommit"), (52, "metadata.name")]
    events = control_plane.audit_events(mark, "admin")
    assert not [e for e in events if "dryRun" in e["requestURI"]], [e["requestURI"] for e in events]
    assert len(events) <= 3   # discovery and the CRD list


# ---------------------------------------------------------------- no silent defer

def test_an_object_in_a_missing_namespace_is_an_error_before_any_write(control_plane, namespace):
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, [config_map(namespace, "fine"), config_map("no-such-namespace", "lost")])
    assert [(e["object"], e["path"]) for e in failure.value.errors] == [
        ("v1 ConfigMap no-such-namespace/lost", "metadata.namespace")]
    assert server_writes(control_plane, mark) == []
    # Check mode cannot know whether an earlier task creates it: it says so instead of failing.
    report = apply(control_plane, [config_map("no-such-namespace", "lost")], check_mode=True)
    assert any("no-such-namespace does not exist" in w for w in report["warnings"])


# ---------------------------------------------------------------- Secrets

SECRET_VALUE = "s3cr3t-value-nobody-may-see"


def test_a_secret_from_client_side_apply_then_ours_never_shows_its_bytes_and_reruns_without_requests(
        control_plane, namespace):
    secret: dict[str, t.Any] = {"apiVersion": "v1", "kind": "Secret",
                                "metadata": {"name": "creds", "namespace": namespace},
                                "stringData": {"password": SECRET_VALUE + "-old"}}
    control_plane.kubectl_run("apply", "-f", "-", input=json.dumps(secret))   # last-applied holds the old value
    secret["stringData"]["password"] = SECRET_VALUE
    encoded = [base64.b64encode(v.encode()).decode() for v in (SECRET_VALUE, SECRET_VALUE + "-old")]

    # Created by a person: taken into the apply set on purpose (adopt).
    check = apply(control_plane, [secret], apply_set="secrets", check_mode=True, adopt=True)
    real = apply(control_plane, [secret], apply_set="secrets", adopt=True)
    for report in (check, real):
        text = json.dumps(report)
        assert SECRET_VALUE not in text and not any(e in text for e in encoded), text[:2000]
        assert report["objects"][0]["action"] == "adopted"
    live = json.loads(control_plane.kubectl_run("get", "secret", "creds", "-n", namespace, "-o", "json").stdout)
    assert FINGERPRINT_ANNOTATION not in (live["metadata"].get("annotations") or {})

    mark = control_plane.audit_offset()
    again = apply(control_plane, [secret], apply_set="secrets")
    assert again["objects"][0]["action"] == "unchanged"
    events = control_plane.audit_events(mark, "admin")
    # stringData is compared as data: discovery and one list (kinds + 3 at most), no dry run.
    assert len(events) <= 4 and not [e for e in events if e["verb"] == "patch"], [e["requestURI"] for e in events]


# ---------------------------------------------------------------- faults: bounded, honest, converging

def _config_maps(namespace: str, count: int) -> list[dict[str, t.Any]]:
    return [config_map(namespace, f"cm-{i:03d}") for i in range(count)]


def _until_allowed(plane, context: str, verb: str, resource: str) -> None:
    """A new binding reaches the API server's authorizer through its informers, a moment after it was created."""
    deadline = time.monotonic() + 30
    while plane.kubectl_run("auth", "can-i", verb, resource, "-A", context=context, check=False).returncode != 0:
        assert time.monotonic() < deadline, f"{context} still may not {verb} {resource}"
        time.sleep(0.2)


def _written_config_maps(partial: dict[str, t.Any]) -> set[str]:
    """Names of the member ConfigMaps a failed run says it wrote (its apply-set parent is listed as well)."""
    return {w["name"] for w in partial["written"] if w["kind"] == "ConfigMap" and w["name"].startswith("cm-")}


def _in_background(work: t.Callable[[], t.Any]) -> tuple[threading.Thread, list[t.Any]]:
    outcome: list[t.Any] = []

    def run() -> None:
        started = time.monotonic()
        try:
            outcome.append(work())
        except BaseException as exc:  # collected for the test's assertions
            outcome.append(exc)
        outcome.append(time.monotonic() - started)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _wait_for_some_written(plane, namespace: str, at_least: int = 5, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listing = plane.kubectl_run("get", "configmaps", "-n", namespace, "-o", "name", check=False).stdout
        if listing.count("cm-") >= at_least:
            return
        time.sleep(0.05)
    raise AssertionError("the run wrote nothing in time")


def _config_map_writes(plane, since: int, namespace: str) -> int:
    """ConfigMaps of ``namespace`` the server wrote since the audit log's offset ``since``."""
    return sum(1 for e in server_writes(plane, since) if (e.get("objectRef") or {}).get("resource") == "configmaps"
               and (e.get("objectRef") or {}).get("namespace") == namespace)


def _live_names(plane, namespace: str) -> set[str]:
    listing = plane.kubectl_run("get", "configmaps", "-n", namespace, "-o", "name").stdout
    return {line.split("/", 1)[1] for line in listing.split() if "/cm-" in line}


def _converges(plane, objects: list[dict[str, t.Any]], apply_set: str) -> None:
    apply(plane, objects, apply_set=apply_set)
    mark = plane.audit_offset()
    again = apply(plane, objects, apply_set=apply_set)
    assert again["changed"] is False and server_writes(plane, mark) == []


def test_a_frozen_api_server_fails_the_call_within_its_limits_and_says_what_was_written(control_plane, namespace):
    # Enough objects that the apply is still running when the freeze lands, even on a loaded machine (300 were once
    # all written between the first kubectl poll and the SIGSTOP).
    objects = _config_maps(namespace, 1000)
    thread, outcome = _in_background(lambda: apply(control_plane, objects, apply_set=namespace, retries=1,
                                                   request_timeout=2, timeout=20))
    _wait_for_some_written(control_plane, namespace)
    control_plane.signal_apiserver(signal.SIGSTOP)
    try:
        thread.join(timeout=120)
        failure, seconds = outcome
    finally:
        control_plane.signal_apiserver(signal.SIGCONT)
    assert isinstance(failure, ApplyFailed), failure
    assert seconds < 30                      # request_timeout x (retries + 1) plus backoff, within the 20 s limit
    written = _written_config_maps(failure.partial)
    assert written and failure.partial["changed"] is True
    assert written <= _live_names(control_plane, namespace)      # every object it names is really there
    assert "written before it stopped" in str(failure)
    _converges(control_plane, objects, namespace)


def test_a_short_freeze_is_ridden_out(control_plane, namespace):
    # Enough objects that writes remain when the freeze lands (asserted below through the audit log).
    objects = _config_maps(namespace, 600)
    thread, outcome = _in_background(lambda: apply(control_plane, objects, apply_set=namespace))
    _wait_for_some_written(control_plane, namespace)
    control_plane.signal_apiserver(signal.SIGSTOP)
    time.sleep(3)
    control_plane.signal_apiserver(signal.SIGCONT)
    resumed = control_plane.audit_offset()
    thread.join(timeout=300)
    report = outcome[0]
    assert isinstance(report, dict), report
    # The freeze landed mid-run: the run still had objects to write when the server came back.
    assert _config_map_writes(control_plane, resumed, namespace) > 0
    assert {o["name"] for o in report["objects"]} == _live_names(control_plane, namespace)
    _converges(control_plane, objects, namespace)


def test_api_server_killed_mid_run_fails_clearly_then_the_rerun_converges(control_plane, namespace):
    # Enough objects that the writes outlast the poll that sees the first of them (300 were once all written
    # before a loaded machine's kubectl saw five, and the run succeeded before the kill).
    objects = _config_maps(namespace, 1500)
    thread, outcome = _in_background(lambda: apply(control_plane, objects, apply_set=namespace, retries=1,
                                                   request_timeout=2, timeout=30))
    _wait_for_some_written(control_plane, namespace)
    control_plane.signal_apiserver(signal.SIGKILL)
    try:
        thread.join(timeout=120)
        failure, seconds = outcome
        assert isinstance(failure, ApplyFailed) and "unreachable" in str(failure), failure
        assert seconds < 40 and failure.partial["written"]
    finally:
        control_plane.start_apiserver()
    assert _written_config_maps(failure.partial) <= _live_names(control_plane, namespace)
    _converges(control_plane, objects, namespace)


def test_etcd_restarted_mid_run_then_the_rerun_converges(control_plane, namespace):
    objects = _config_maps(namespace, 600)
    thread, outcome = _in_background(lambda: apply(control_plane, objects, apply_set=namespace))
    _wait_for_some_written(control_plane, namespace)
    control_plane.restart_etcd()
    restarted = control_plane.audit_offset()
    thread.join(timeout=300)
    result = outcome[0]
    if isinstance(result, ApplyFailed):       # a clear failure that lists what it wrote is acceptable too
        written = _written_config_maps(result.partial)
        assert written <= _live_names(control_plane, namespace)
        assert len(written) < len(objects)     # it failed mid-run, not after the last write
    else:
        assert isinstance(result, dict), result
        # The restart landed mid-run: the run still had objects to write once etcd was back.
        assert _config_map_writes(control_plane, restarted, namespace) > 0
    _converges(control_plane, objects, namespace)


def test_no_right_to_delete_stops_the_run_before_it_writes_anything(control_plane, namespace):
    role = f"no-delete-{namespace}"[:60]
    # Everything the run needs (the apply set's lock included) but delete on ConfigMaps.
    rules = [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "create", "patch"]},
             {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
              "verbs": ["get", "create", "update", "delete"]}]
    control_plane.kubectl_run("create", "-f", "-", input=json.dumps({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": role}, "rules": rules}))
    control_plane.kubectl_run("create", "clusterrolebinding", role, f"--clusterrole={role}", "--user=limited")
    try:
        _until_allowed(control_plane, "limited", "list", "configmaps")
        first = [config_map(namespace, "kept"), config_map(namespace, "dropped")]
        apply(control_plane, first, context="limited", apply_set=role, prune=True)
        changed = config_map(namespace, "kept")
        changed["data"]["k"] = "new"
        mark = control_plane.audit_offset()
        with pytest.raises(ApplyFailed) as failure:
            apply(control_plane, [changed], context="limited", apply_set=role, prune=True)
        assert "cannot delete configmaps in namespace " + namespace in str(failure.value)
        assert server_writes(control_plane, mark, "limited") == []
    finally:
        # The API server is shared by the tests of this worker: the limited user must be left with no rights.
        control_plane.kubectl_run("delete", "clusterrolebinding", role)
        control_plane.kubectl_run("delete", "clusterrole", role)
    assert json.loads(control_plane.kubectl_run("get", "configmap", "kept", "-n", namespace, "-o",
                                                "json").stdout)["data"]["k"] == "kept"
