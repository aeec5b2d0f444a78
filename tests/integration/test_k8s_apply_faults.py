# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The faults of issue #31, each as a user would hit it, against a real kube-apiserver: a person's object is never
adopted or pruned by a name collision, broken src entries never delete, state=absent and quota failures report
exactly what was done, Secrets stay masked in every encoding, an alias bomb and a hung webhook are bounded, and a
version the server does not serve is named with what it serves."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
import typing as t

import pytest
from test_k8s_apply import apply, server_writes
from test_k8s_apply_safety import config_map, exists
from webhooks import AdmissionServer, HungListener, validating_webhook

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, ApplyFailed, Options
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.manifests import load


@pytest.fixture
def namespace(control_plane, request) -> str:
    # Parametrized tests share a prefix: a short hash of the whole test id keeps their namespaces apart.
    digest = hashlib.sha256(request.node.name.encode()).hexdigest()[:6]
    name = "f-" + request.node.name.replace("_", "-")[5:40].strip("-").lower() + "-" + digest
    control_plane.kubectl_run("create", "namespace", name)
    return name


def names(plane, kind: str, namespace: str) -> set[str]:
    listed = json.loads(plane.kubectl_run("get", kind, "-n", namespace, "-o", "json").stdout)
    return {i["metadata"]["name"] for i in listed["items"]}


def apply_src(plane, paths: list[str], **options) -> dict[str, t.Any]:
    """As the module does: every file read first, then the applier with the files' problems."""
    manifests = load(paths)
    connection = Connection(kubeconfig=str(plane.kubeconfig), context="admin", retries=3, backoff=0.05)
    return Applier(connection, Options(**options)).run(manifests.objects, manifests.origins, manifests.errors)


# ---------------------------------------------------------------- ownership before any write

def test_a_persons_object_with_an_input_name_is_refused_never_adopted_and_never_pruned(control_plane, namespace):
    control_plane.kubectl_run("create", "configmap", "shared", "--from-literal=owner=a-person", "-n", namespace)
    objects = [config_map(namespace, "ours"), config_map(namespace, "shared")]
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, objects, apply_set="collide", apply_set_namespace=namespace, prune=True)
    [problem] = failure.value.errors
    assert problem["object"] == f"v1 ConfigMap {namespace}/shared" and problem["index"] == 1
    assert "kubectl-create (Update)" in problem["message"] and "adopt: true" in problem["message"]
    assert "site_adopt" in problem["message"]
    assert server_writes(control_plane, mark) == []

    # The object leaves the input: the next prune run does not touch it (it never became a member).
    apply(control_plane, objects[:1], apply_set="collide", apply_set_namespace=namespace, prune=True)
    live = json.loads(control_plane.kubectl_run("get", "configmap", "shared", "-n", namespace, "-o", "json").stdout)
    assert live["data"] == {"owner": "a-person"} and "applyset.kubernetes.io/part-of" not in (
        live["metadata"].get("labels") or {})

    # Taken over on purpose: reported as adopted, and then the apply set's to prune.
    report = apply(control_plane, objects, apply_set="collide", apply_set_namespace=namespace, prune=True,
                   adopt=True)
    assert {o["name"]: o["action"] for o in report["objects"]}["shared"] == "adopted"
    report = apply(control_plane, objects[:1], apply_set="collide", apply_set_namespace=namespace, prune=True)
    assert [p["name"] for p in report["pruned"]] == ["shared"]


def test_an_existing_namespace_is_shared_never_a_member_and_never_pruned(control_plane, namespace):
    space = namespace + "-own"
    control_plane.kubectl_run("create", "namespace", space)
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": space}}, config_map(space, "in-it")]
    report = apply(control_plane, objects, apply_set="sharing", apply_set_namespace=namespace)
    entry = next(o for o in report["objects"] if o["kind"] == "Namespace")
    assert entry["membership"] == "shared" and entry["action"] == "updated"
    again = apply(control_plane, objects, apply_set="sharing", apply_set_namespace=namespace)
    assert not again["changed"]
    report = apply(control_plane, [config_map(namespace, "anchor")], apply_set="sharing",
                   apply_set_namespace=namespace, prune=True, prune_namespaces=True,
                   prune_kinds=[("v1", "Namespace")])
    assert [(p["kind"], p["name"]) for p in report["pruned"]] == [("ConfigMap", "in-it")]
    assert exists(control_plane, "namespace", space)


def test_without_an_apply_set_a_persons_fields_are_a_conflict_not_taken_over(control_plane, namespace):
    control_plane.kubectl_run("create", "configmap", "theirs", "--from-literal=k=mine", "-n", namespace)
    control_plane.kubectl_run("create", "configmap", "same", "--from-literal=k=same", "-n", namespace)
    wanted = [config_map(namespace, "theirs"), {**config_map(namespace, "same"), "data": {"k": "same"}}]
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, wanted)
    [problem] = failure.value.errors
    assert (problem["object"], problem["path"]) == (f"v1 ConfigMap {namespace}/theirs", "data.k")
    assert 'conflict with "kubectl-create"' in problem["message"] and "adopt: true" in problem["message"]
    assert server_writes(control_plane, mark) == []
    # Nothing of theirs is changed where the values agree; with adopt the fields are taken over.
    assert apply(control_plane, wanted[1:])["changed"]
    report = apply(control_plane, wanted, adopt=True)
    assert {o["name"]: o["action"] for o in report["objects"]}["theirs"] == "updated"
    live = json.loads(control_plane.kubectl_run("get", "configmap", "theirs", "-n", namespace, "-o", "json").stdout)
    assert live["data"] == {"k": "theirs"}


# ---------------------------------------------------------------- src: unreadable is an error, never absent

def test_broken_src_entries_are_refused_and_prune_deletes_nothing(tmp_path, control_plane, namespace):
    directory = tmp_path / "manifests"
    directory.mkdir()
    for name in ("a", "b", "c"):
        (directory / f"{name}.yaml").write_text(json.dumps(config_map(namespace, name)))
    options = {"apply_set": "files", "apply_set_namespace": namespace, "prune": True}
    apply_src(control_plane, [str(directory)], **options)
    assert names(control_plane, "configmaps", namespace) >= {"a", "b", "c", "files"}

    (directory / "b.yaml").unlink()
    (directory / "b.yaml").symlink_to(tmp_path / "gone.yaml")              # dangling
    (directory / "c.yaml").unlink()
    (directory / "c.yaml").symlink_to(directory / "c.yaml")                # a loop
    mark = control_plane.audit_offset()
    with pytest.raises(ApplyFailed) as failure:
        apply_src(control_plane, [str(directory)], **options)
    messages = {e["object"]: e["message"] for e in failure.value.errors}
    dangling = f"is a symbolic link to {tmp_path / 'gone.yaml'}, which does not exist"
    assert messages == {f"src[0] {directory / 'b.yaml'}": dangling,
                        f"src[0] {directory / 'c.yaml'}": "is a symbolic link loop"}
    assert server_writes(control_plane, mark) == []
    assert names(control_plane, "configmaps", namespace) >= {"a", "b", "c"}


def test_an_alias_bomb_is_refused_in_bounded_memory_before_any_request(tmp_path, control_plane, namespace):
    levels = ["a: &a [" + ", ".join(['"lol"'] * 10) + "]"]
    for previous, name in zip("abcdefgh", "bcdefghi"):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: lol, namespace: {namespace}}}\n"
                    "data: {k: v}\n" + "\n".join(f"x{line}" for line in levels) + "\n")
    # The same call in a process limited to 512 MiB of address space: expanding the document would need GiBs.
    script = textwrap.dedent(f"""\
        import json, resource, sys, time
        resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))
        from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, ApplyFailed, Options
        from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection
        from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.manifests import load
        start = time.monotonic()
        manifests = load([{str(bomb)!r}])
        connection = Connection(kubeconfig={str(control_plane.kubeconfig)!r}, context="admin")
        try:
            Applier(connection, Options()).run(manifests.objects, manifests.origins, manifests.errors)
        except ApplyFailed as exc:
            print(json.dumps({{"errors": exc.errors, "seconds": time.monotonic() - start,
                              "requests": connection.request_count}}))
        """)
    mark = control_plane.audit_offset()
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    assert run.returncode == 0, run.stderr
    outcome = json.loads(run.stdout)
    [problem] = outcome["errors"]
    assert problem["object"] == f"src[0] {bomb}" and "more than 1,000,000 nodes" in problem["message"]
    assert outcome["requests"] == 0 and outcome["seconds"] < 10
    assert server_writes(control_plane, mark) == []


# ---------------------------------------------------------------- state=absent with prune's safeguards

def _refuse_delete_of(name: str, *, dry_run_too: bool) -> t.Callable[[dict[str, t.Any]], tuple[bool, str]]:
    def decide(request: dict[str, t.Any]) -> tuple[bool, str]:
        refused = request["operation"] == "DELETE" and request["name"] == name and (
            dry_run_too or not request.get("dryRun"))
        return (not refused, f"{name} is protected")
    return decide


def test_state_absent_refused_at_the_dry_run_deletes_nothing(tmp_path, control_plane, namespace):
    objects = [config_map(namespace, n) for n in ("one", "protected", "three")]
    apply(control_plane, objects, apply_set="gone", apply_set_namespace=namespace)
    with AdmissionServer(tmp_path, _refuse_delete_of("protected", dry_run_too=True)) as server, \
            validating_webhook(control_plane, "deny", server.port, namespace, resources=["configmaps"],
                               operations=["DELETE"], ca_bundle=server.ca_bundle):
        _wait_for_webhook(control_plane, server, namespace)
        mark = control_plane.audit_offset()
        with pytest.raises(ApplyFailed) as failure:
            apply(control_plane, objects, apply_set="gone", apply_set_namespace=namespace, state="absent")
        writes = server_writes(control_plane, mark)
    [problem] = failure.value.errors
    assert problem["object"] == f"v1 ConfigMap {namespace}/protected" and "protected is protected" in problem["message"]
    assert "nothing was deleted" in str(failure.value)
    assert failure.value.partial["deleted"] == [] and failure.value.partial["changed"] is False
    assert writes == []
    assert names(control_plane, "configmaps", namespace) >= {"one", "protected", "three"}


def test_state_absent_failing_halfway_reports_exactly_what_it_deleted(tmp_path, control_plane, namespace):
    objects = [config_map(namespace, f"cm-{i}") for i in range(6)] + [config_map(namespace, "protected")]
    apply(control_plane, objects, apply_set="half", apply_set_namespace=namespace)
    # Passes the dry run, refuses the delete itself: a refusal only the real request meets.
    with AdmissionServer(tmp_path, _refuse_delete_of("protected", dry_run_too=False)) as server, \
            validating_webhook(control_plane, "late", server.port, namespace, resources=["configmaps"],
                               operations=["DELETE"], ca_bundle=server.ca_bundle):
        _wait_for_webhook(control_plane, server, namespace)
        with pytest.raises(ApplyFailed) as failure:
            apply(control_plane, objects, apply_set="half", apply_set_namespace=namespace, state="absent",
                  workers=1)
    partial = failure.value.partial
    deleted = {d["name"] for d in partial["deleted"]}
    left = names(control_plane, "configmaps", namespace)
    assert deleted and partial["changed"] is True
    assert not deleted & left                                         # every one it names is gone
    assert {o["metadata"]["name"] for o in objects} - deleted <= left  # every one it does not name is there
    assert "protected" in left and "protected is protected" in str(failure.value)
    assert all(f"ConfigMap {namespace}/{name} (deleted)" in str(failure.value) for name in deleted)


def _wait_for_webhook(plane, server: AdmissionServer, namespace: str) -> None:
    """A new webhook configuration reaches the API server's admission chain within a moment: wait until it calls."""
    probe = json.dumps(config_map(namespace, "webhook-probe"))
    plane.kubectl_run("create", "-f", "-", input=probe, check=False)
    deadline = time.monotonic() + 30
    while not server.seen:
        assert time.monotonic() < deadline, "the webhook was never called"
        plane.kubectl_run("create", "--dry-run=server", "-f", "-", input=probe, check=False)
        plane.kubectl_run("delete", "configmap", "webhook-probe", "-n", namespace, "--dry-run=server", check=False)
        time.sleep(0.2)
    plane.kubectl_run("delete", "configmap", "webhook-probe", "-n", namespace)
    server.seen.clear()


# ---------------------------------------------------------------- Secrets masked in every encoding

def test_a_secret_echoed_by_a_webhook_is_masked_in_every_encoding(tmp_path, control_plane, namespace):
    value = "echoed-secret-value-9f2c"

    def echo(request: dict[str, t.Any]) -> tuple[bool, str]:
        return False, "refused: " + json.dumps(request.get("object") or {})   # the object as the server sent it

    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "token", "namespace": namespace},
              "stringData": {"token": value}}
    with AdmissionServer(tmp_path, echo) as server, \
            validating_webhook(control_plane, "echo", server.port, namespace, resources=["secrets"],
                               operations=["CREATE", "UPDATE"], ca_bundle=server.ca_bundle):
        deadline = time.monotonic() + 30
        failure: ApplyFailed | None = None
        while failure is None:
            try:
                apply(control_plane, [secret])
            except ApplyFailed as exc:
                if server.seen:
                    failure = exc
                    continue
            assert time.monotonic() < deadline, "the webhook was never called"
            time.sleep(0.2)
    assert failure is not None
    encoded = base64.b64encode(value.encode()).decode()
    assert any(encoded in json.dumps(r) for r in server.seen)   # the server did send the encoded value
    text = str(failure) + json.dumps(failure.errors) + json.dumps(failure.partial)
    assert "refused:" in text and "<redacted>" in text
    assert value not in text and encoded not in text


# ---------------------------------------------------------------- exact results on every failure

@pytest.mark.parametrize("parent_here", [True, False], ids=["parent-in-the-quota", "parent-in-default"])
def test_a_quota_hit_mid_write_reports_exactly_what_the_server_holds(cluster, parent_here):
    control_plane = cluster
    namespace = f"quota-hit-{'here' if parent_here else 'default'}"
    control_plane.kubectl_run("create", "namespace", namespace)
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "five", "namespace": namespace},
             "spec": {"hard": {"count/configmaps": "5"}}}
    control_plane.kubectl_run("create", "-f", "-", input=json.dumps(quota))
    # kube-controller-manager's quota controller sets the status (hard, and what is used: the namespace's
    # kube-root-ca.crt ConfigMap, which its root CA publisher wrote); the API server's quota admission then counts
    # every create itself.
    deadline = time.monotonic() + 60
    while "count/configmaps" not in json.loads(control_plane.kubectl_run(
            "get", "resourcequota", "five", "-n", namespace, "-o", "json").stdout).get("status", {}).get("used", {}):
        assert time.monotonic() < deadline, "the quota controller never set the quota's status"
        time.sleep(0.2)
    used = int(json.loads(control_plane.kubectl_run("get", "resourcequota", "five", "-n", namespace, "-o",
                                                    "json").stdout)["status"]["used"]["count/configmaps"])
    objects = [config_map(namespace, f"q-{i}") for i in range(10)]
    parent_namespace = namespace if parent_here else "default"
    parent = f"quota-{namespace}"[:63]
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, objects, apply_set=parent, apply_set_namespace=parent_namespace, prune=True,
              workers=1 if parent_here else 8)
    written = {(w["namespace"], w["name"]) for w in failure.value.partial["written"]}
    in_namespace = names(control_plane, "configmaps", namespace)
    held = {(namespace, n) for n in in_namespace - {"kube-root-ca.crt"}}   # the root CA publisher's is not ours
    if not parent_here and parent in names(control_plane, "configmaps", "default"):
        held.add(("default", parent))
    assert written == held, (written, held)
    assert (parent_namespace, parent) in written   # the parent is written first (and counts against a quota)
    assert len(in_namespace) == 5 and len([n for n in written if n[0] == namespace]) == 5 - used
    assert "exceeded quota: five" in str(failure.value)


def test_a_hung_webhook_fails_within_a_minute_with_module_defaults_naming_it(control_plane, namespace):
    objects = [config_map(namespace, f"h-{i:02d}") for i in range(50)]
    with HungListener() as listener, \
            validating_webhook(control_plane, "hang", listener.port, namespace, resources=["configmaps"],
                               operations=["CREATE", "UPDATE"], timeout=3):
        probe = json.dumps(config_map(namespace, "webhook-probe"))
        deadline = time.monotonic() + 30
        while "failed calling webhook" not in control_plane.kubectl_run(
                "create", "--dry-run=server", "-f", "-", input=probe, check=False).stderr:
            assert time.monotonic() < deadline, "the webhook configuration never took effect"
        calls = listener.accepted
        mark = control_plane.audit_offset()
        # The module's defaults: what connect() gives from the argument spec's defaults.
        connection = Connection(kubeconfig=str(control_plane.kubeconfig), context="admin", request_timeout=30,
                                retries=5, timeout=900)
        start = time.monotonic()
        with pytest.raises(ApplyFailed) as failure:
            Applier(connection, Options()).run(objects)
        seconds = time.monotonic() - start
        calls = listener.accepted - calls
        writes = server_writes(control_plane, mark)
    assert seconds < 60, seconds
    assert calls <= 2 * Options().workers, calls   # one round of parallel dry runs, no retries
    message = str(failure.value)
    assert "hang.test.virtinfra.io" in message and "nothing was written" in message
    assert writes == []


# ---------------------------------------------------------------- errors that name what the server offers

def test_a_version_the_server_does_not_serve_is_named_with_the_versions_it_serves(control_plane, namespace):
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "gizmos.skew.virtinfra.io"},
           "spec": {"group": "skew.virtinfra.io", "scope": "Namespaced",
                    "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
                    "versions": [{"name": "v1beta1", "served": True, "storage": True, "schema": schema},
                                 {"name": "v1", "served": False, "storage": False, "schema": schema}]}}
    control_plane.kubectl_run("apply", "-f", "-", input=json.dumps(crd))
    control_plane.kubectl_run("wait", "--for=condition=Established", "crd/gizmos.skew.virtinfra.io")
    gizmo = {"apiVersion": "skew.virtinfra.io/v1", "kind": "Gizmo", "metadata": {"name": "g", "namespace": namespace}}
    typo = {"apiVersion": "skew.virtinfra.io/v1beta1", "kind": "Gizmoo",
            "metadata": {"name": "g", "namespace": namespace}}
    with pytest.raises(ApplyFailed) as failure:
        apply(control_plane, [gizmo, typo])
    first, second = failure.value.errors
    assert first["path"] == "kind" and "it serves Gizmo in skew.virtinfra.io/v1beta1" in first["message"]
    assert second["path"] == "kind" and "did you mean Gizmo?" in second["message"]
    control_plane.kubectl_run("delete", "crd", "gizmos.skew.virtinfra.io")


def test_problems_come_in_input_order_whatever_the_timing(control_plane, namespace):
    objects = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"bad-{i}", "namespace": namespace},
                "data": {"k": i}} for i in range(30)]   # a number where a string must be: refused by the dry run
    orders = set()
    for _attempt in range(3):
        with pytest.raises(ApplyFailed) as failure:
            apply(control_plane, objects, workers=8)
        orders.add(tuple(e["index"] for e in failure.value.errors))
    assert orders == {tuple(range(30))}
