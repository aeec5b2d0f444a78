# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The apply-set lock (``_k8s/lock.py``) against a real API server: two runs on one set, a held and a stale lock."""

from __future__ import annotations

import json
import time
import typing as t

import pytest
from test_k8s_apply import apply, server_writes
from test_k8s_apply_safety import _in_background, _live_names, _until_allowed, _wait_for_some_written, config_map

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, Options
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.lock import LockFailed, lease_name


@pytest.fixture
def namespace(control_plane, request) -> str:
    name = "lock-" + request.node.name.replace("_", "-")[-40:].strip("-").lower()
    control_plane.kubectl_run("create", "namespace", name)
    return name


def config_maps(namespace: str, numbers: range) -> list[dict[str, t.Any]]:
    return [config_map(namespace, f"cm-{i:03d}") for i in numbers]


def hold_lease(plane, namespace: str, apply_set: str, holder: str, seconds: int) -> None:
    """A Lease as another run (on another machine) holds it: never renewed by this test."""
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
             "metadata": {"name": lease_name(apply_set), "namespace": namespace},
             "spec": {"holderIdentity": holder, "leaseDurationSeconds": seconds}}
    plane.kubectl_run("create", "-f", "-", input=json.dumps(lease))


def lease_exists(plane, namespace: str, apply_set: str) -> bool:
    return plane.kubectl_run("get", "lease", lease_name(apply_set), "-n", namespace, check=False).returncode == 0


def apply_over_a_slow_link(plane, objects, write_delay: float, **options) -> dict[str, t.Any]:
    """As ``apply``, with every write ``write_delay`` seconds slower, as over a slow link (the test's own delay, in the
    client's transport; the server and the code under test are real)."""
    connection = Connection(kubeconfig=str(plane.kubeconfig), context="admin", retries=3, backoff=0.05)
    send = connection.transport.send

    def slowly(method: str, target: str, *args: t.Any, **kwargs: t.Any) -> t.Any:
        if method != "GET" and "dryRun" not in target:
            time.sleep(write_delay)
        return send(method, target, *args, **kwargs)

    connection.transport.send = slowly  # type: ignore[method-assign]
    return Applier(connection, Options(**options)).run(objects)


def test_a_second_run_waits_and_never_prunes_while_the_first_writes(control_plane, namespace):
    # Run A creates cm-000..cm-299 one at a time, each write 20 ms slower than the server answers, so A holds its lock
    # for 6 s or more; run B (cm-050..cm-199, prune) starts while A is writing and plans in far less (a second or so).
    # Without the delay, A's writes could all end while B still planned, and B would find no lock to wait for.
    first, first_outcome = _in_background(lambda: apply_over_a_slow_link(
        control_plane, config_maps(namespace, range(300)), 0.02, apply_set="shared", namespace=namespace, prune=True,
        workers=1))
    _wait_for_some_written(control_plane, namespace, at_least=5)
    second = apply(control_plane, config_maps(namespace, range(50, 200)), apply_set="shared", namespace=namespace,
                   prune=True)
    first.join()
    report_a = first_outcome[0]
    assert not isinstance(report_a, BaseException), report_a
    # A wrote all it reported, and none of it vanished while A ran: B waited for A's lock ...
    assert {o["name"] for o in report_a["objects"] if o["action"] == "created" and o["name"].startswith("cm-")} \
        == {f"cm-{i:03d}" for i in range(300)}
    assert any("for the lock of apply set ConfigMap" in w for w in second["warnings"]), second["warnings"]
    # ... then planned against what A had left: B's exact result turns A's set into its own.
    assert sorted(p["name"] for p in second["pruned"]) == [f"cm-{i:03d}" for i in (*range(50), *range(200, 300))]
    assert [o["name"] for o in second["objects"] if o["action"] != "unchanged" and o["name"].startswith("cm-")] == []
    assert _live_names(control_plane, namespace) == {f"cm-{i:03d}" for i in range(50, 200)}
    assert not lease_exists(control_plane, namespace, "shared")


def test_a_held_lock_refuses_after_the_timeout_naming_the_holder_and_writes_nothing(control_plane, namespace):
    hold_lease(control_plane, namespace, "held", "ops@bastion pid 4242 since 2026-11-24T08:00:00Z (AWX job 17)", 3600)
    mark = control_plane.audit_offset()
    with pytest.raises(LockFailed) as refused:
        apply(control_plane, config_maps(namespace, range(3)), apply_set="held", namespace=namespace, prune=True,
              lock_timeout=2)
    assert "is locked by ops@bastion pid 4242 since 2026-11-24T08:00:00Z (AWX job 17)" in str(refused.value)
    # The one write request: the attempt to create the Lease, which the server refused because it exists.
    assert [(e["verb"], e["objectRef"]["resource"], e["responseStatus"]["code"])
            for e in server_writes(control_plane, mark)] == [("create", "leases", 409)]
    assert _live_names(control_plane, namespace) == set()


def test_check_mode_and_a_no_op_run_take_no_lock(control_plane, namespace):
    objects = config_maps(namespace, range(3))
    apply(control_plane, objects, apply_set="quiet", namespace=namespace, prune=True)
    hold_lease(control_plane, namespace, "quiet", "someone@elsewhere", 3600)
    mark = control_plane.audit_offset()
    again = apply(control_plane, objects, apply_set="quiet", namespace=namespace, prune=True, lock_timeout=1)
    preview = apply(control_plane, objects[:1], apply_set="quiet", namespace=namespace, prune=True, lock_timeout=1,
                    check_mode=True)
    assert again["changed"] is False and server_writes(control_plane, mark) == []
    assert sorted(p["name"] for p in preview["pruned"]) == ["cm-001", "cm-002"]


def test_a_killed_runs_lock_is_taken_over_once_it_stops_being_renewed(control_plane, namespace):
    hold_lease(control_plane, namespace, "stale", "ci@runner-7 pid 99 since 2026-11-24T07:00:00Z", 3)
    report = apply(control_plane, config_maps(namespace, range(2)), apply_set="stale", namespace=namespace,
                   prune=True, lock_timeout=30)
    assert any("held by ci@runner-7 pid 99 since 2026-11-24T07:00:00Z (stopped renewing)" in w
               for w in report["warnings"])
    assert _live_names(control_plane, namespace) == {"cm-000", "cm-001"}
    assert not lease_exists(control_plane, namespace, "stale")


def test_a_lock_the_run_may_not_delete_is_a_warning_and_expires_on_its_own(control_plane, namespace):
    role = f"no-lease-delete-{namespace}"[:60]
    # Everything the run needs but delete on Leases (an account role edited by hand, say).
    rules = [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "create", "patch"]},
             {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "create", "update"]}]
    control_plane.kubectl_run("create", "-f", "-", input=json.dumps({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": role}, "rules": rules}))
    control_plane.kubectl_run("create", "clusterrolebinding", role, f"--clusterrole={role}", "--user=limited")
    try:
        _until_allowed(control_plane, "limited", "update", "leases")
        report = apply(control_plane, config_maps(namespace, range(2)), context="limited", apply_set="undeletable",
                       namespace=namespace)
    finally:
        # The API server is shared by the tests of this worker: the limited user must be left with no rights.
        control_plane.kubectl_run("delete", "clusterrolebinding", role)
        control_plane.kubectl_run("delete", "clusterrole", role)
    assert report["counts"] == {"created": 2}
    assert any(f"Lease {namespace}/{lease_name('undeletable')} could not be deleted" in w
               and "the next run waits until it expires (15 s)" in w for w in report["warnings"]), report["warnings"]
    assert lease_exists(control_plane, namespace, "undeletable")
