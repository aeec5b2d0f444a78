# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The operators stage against the real API server: release manifests from a local directory (install, no-op,
upgrades one minor at a time, refusals before any write) and OLM (Subscription with placement, Manual approval of
exactly the pinned InstallPlan, a wait for the CSV).

The operators' Deployments are rolled out by the real kube-controller-manager and kube-scheduler onto kwok's nodes.
What cannot run here - OLM, and virt-operator itself (its Go module pulls dependencies the module proxy does not
serve) - a background thread stands in for: it sets the status fields they would set (the KubeVirt CR's observed
version, a Subscription's InstallPlans and CSV), and says so in its name. The code under test only reads them.
"""

from __future__ import annotations

import dataclasses
import pathlib
import threading
import time
import typing as t

import pytest
import yaml
from harness.control_plane import shared_dir
from harness.olm_crds import crd_files
from test_k8s_apply import server_writes

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection, KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.waits import Waiter
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.run import Failed, run
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import Settings
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._operators_fetch import fetch

MERGE = "application/merge-patch+json"


@pytest.fixture(scope="module")
def plane(empty_cluster):
    """A cluster of this file's own (operators' cluster-scoped objects are apply-set members)."""
    paths = crd_files()
    empty_cluster.kubectl_run("apply", "--server-side", "--field-manager=test-harness", *[f"-f={p}" for p in paths])
    empty_cluster.wait_established(120)
    return empty_cluster


def connect(plane) -> Connection:
    return Connection(kubeconfig=str(plane.kubeconfig), context="admin", retries=3, backoff=0.05)


def get(conn: Connection, path: str) -> t.Any:
    try:
        return conn.request("GET", path)
    except KubeError as exc:
        if exc.status == 404:
            return None
        raise


def kubevirt_release(version: str, suffix: str) -> list[dict[str, t.Any]]:
    """kubevirt-operator.yaml's shape: Namespace, the KubeVirt CRD (the real one, read from ../shared/crds), RBAC,
    the PriorityClass virt-operator's file carries, the operator Deployment at ``version``."""
    crd = yaml.safe_load((shared_dir() / "crds" / "kubevirts.kubevirt.io.yaml").read_text())
    crd = {k: v for k, v in crd.items() if k != "status"}
    labels = {"kubevirt.io": "virt-operator"}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kubevirt", "labels": {"kubevirt.io": ""}}},
        crd,
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "kubevirt-operator", "namespace": "kubevirt"}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": f"kubevirt-operator-{suffix}"},
         "rules": [{"apiGroups": ["kubevirt.io"], "resources": ["kubevirts"], "verbs": ["get", "list", "watch"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": f"kubevirt-operator-{suffix}"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": f"kubevirt-operator-{suffix}"},
         "subjects": [{"kind": "ServiceAccount", "name": "kubevirt-operator", "namespace": "kubevirt"}]},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "kubevirt-cluster-critical"},
         "value": 1000000000},
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "virt-operator", "namespace": "kubevirt", "labels": labels},
         "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                  "template": {"metadata": {"labels": labels},
                               "spec": {"serviceAccountName": "kubevirt-operator",
                                        "containers": [{"name": "virt-operator",
                                                        "image": f"quay.io/kubevirt/virt-operator:{version}"}]}}}},
    ]


def write_release(root: pathlib.Path, key: str, version: str, name: str, objects: list[dict[str, t.Any]]) -> pathlib.Path:
    folder = root / key / version
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    return path


class StandIn(threading.Thread):
    """A controller that does not run here, as a thread that sets what it would set, every 0.2 s until stopped."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.2):
            try:
                self.tick()
            except KubeError:
                continue

    def tick(self) -> None:
        raise NotImplementedError


class FakeVirtOperator(StandIn):
    """Stands in for virt-operator, which does not run here: once the virt-operator Deployment in ``namespace`` (every
    namespace: None) is rolled out - by the real controllers - marks the KubeVirt CRs there Available at the version
    of its image, as virt-operator reports the version it deployed."""

    def __init__(self, conn: Connection, namespace: str | None) -> None:
        super().__init__()
        self.conn, self.namespace = conn, namespace

    def tick(self) -> None:
        where = f"/namespaces/{self.namespace}" if self.namespace else ""
        for item in (get(self.conn, f"/apis/apps/v1{where}/deployments") or {}).get("items") or []:
            meta, status = item["metadata"], item.get("status") or {}
            rolled_out = status.get("observedGeneration") == meta["generation"] and \
                status.get("availableReplicas", 0) >= item["spec"].get("replicas", 1)
            if meta["name"] != "virt-operator" or not rolled_out:
                continue
            version = item["spec"]["template"]["spec"]["containers"][0]["image"].rsplit(":", 1)[-1]
            kubevirts = f"/apis/kubevirt.io/v1/namespaces/{meta['namespace']}/kubevirts"
            for kubevirt in (get(self.conn, kubevirts) or {}).get("items") or []:
                if (kubevirt.get("status") or {}).get("observedKubeVirtVersion") != version:
                    status = {"observedKubeVirtVersion": version, "phase": "Deployed",
                              "conditions": [{"type": "Available", "status": "True", "reason": "AllComponentsReady"}]}
                    self.conn.request("PATCH", f"{kubevirts}/{kubevirt['metadata']['name']}/status",
                                      body={"status": status}, content_type=MERGE)


class FakeNMStateOperator(StandIn):
    """Stands in for kubernetes-nmstate's operator, which does not run here: once its Deployment is rolled out (by
    the real controllers), marks each NMState Available, as the operator does when its handler runs, and then each
    policy configured on its nodes, as the handler reports it (kubernetes-nmstate api/shared: the condition types
    and SuccessfullyConfigured). The policy kinds the handler brings are the harness's real CRDs, served from the
    start."""

    def __init__(self, conn: Connection) -> None:
        super().__init__()
        self.conn = conn

    def tick(self) -> None:
        deployments = (get(self.conn, "/apis/apps/v1/deployments") or {}).get("items") or []
        if not any(d["metadata"]["name"] == "nmstate-operator"
                   and (d.get("status") or {}).get("availableReplicas", 0) >= d["spec"].get("replicas", 1)
                   for d in deployments):
            return
        for item in (get(self.conn, "/apis/nmstate.io/v1/nmstates") or {}).get("items") or []:
            if not any(c.get("type") == "Available" for c in (item.get("status") or {}).get("conditions") or []):
                status = {"conditions": [{"type": "Available", "status": "True", "reason": "SuccessfullyDeployed",
                                          "lastTransitionTime": "2026-01-01T00:00:00Z", "message": ""}]}
                self.conn.request("PATCH", f"/apis/nmstate.io/v1/nmstates/{item['metadata']['name']}/status",
                                  body={"status": status}, content_type=MERGE)
        for item in (get(self.conn, "/apis/nmstate.io/v1/nodenetworkconfigurationpolicies") or {}).get("items") or []:
            if not (item.get("status") or {}).get("conditions"):
                status = {"conditions": [
                    {"type": kind, "status": value, "reason": "SuccessfullyConfigured",
                     "lastTransitionTime": "2026-01-01T00:00:00Z",
                     "message": "1/1 nodes successfully configured" if kind == "Available" else ""}
                    for kind, value in (("Available", "True"), ("Degraded", "False"), ("Progressing", "False"))]}
                self.conn.request(
                    "PATCH", f"/apis/nmstate.io/v1/nodenetworkconfigurationpolicies/{item['metadata']['name']}/status",
                    body={"status": status}, content_type=MERGE)


class FakeConditionsOperator(StandIn):
    """Stands in for an operator that reports its operand's state in Available, Progressing and Degraded conditions
    (cdi-operator, cluster-network-addons-operator), which cannot run here: once its Deployment is rolled out (by the
    real controllers), marks each of its cluster-scoped operands Available at their generation, as it does once its
    components run. ``subresource``: whether the kind's CRD has a status subresource (CDI's has none: cdi-operator
    writes the status with the object)."""

    def __init__(self, conn: Connection, deployment: str, collection: str, subresource: bool = True) -> None:
        super().__init__()
        self.conn, self.deployment, self.collection = conn, deployment, collection
        self.subresource = subresource

    def tick(self) -> None:
        deployments = (get(self.conn, "/apis/apps/v1/deployments") or {}).get("items") or []
        if not any(d["metadata"]["name"] == self.deployment
                   and (d.get("status") or {}).get("availableReplicas", 0) >= d["spec"].get("replicas", 1)
                   for d in deployments):
            return
        for item in (get(self.conn, self.collection) or {}).get("items") or []:
            known = item.get("status") or {}
            if known.get("conditions") and known.get("observedGeneration") in (None, item["metadata"]["generation"]):
                continue
            # Without the subresource a status write is a change of the object (a new generation): cdi-operator
            # writes no observedGeneration.
            status = {**({"observedGeneration": item["metadata"]["generation"]} if self.subresource else {}),
                      "phase": "Deployed", "conditions": [
                {"type": kind, "status": value, "reason": "", "message": "",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}
                for kind, value in (("Available", "True"), ("Progressing", "False"), ("Degraded", "False"))]}
            where = f"{self.collection}/{item['metadata']['name']}" + ("/status" if self.subresource else "")
            self.conn.request("PATCH", where, body={"status": status}, content_type=MERGE)


def manifests_settings(root: pathlib.Path, namespace: str, **extra: t.Any) -> Settings:
    extra.setdefault("operators", ("kubevirt",))
    return Settings(source="manifests", platform="kubernetes", release="1.20", namespace=namespace,
                    manifests_dir=str(root), skip=frozenset({("PriorityClass", "", "kubevirt-cluster-critical")}),
                    **extra)


@pytest.fixture
def removed_after(plane):
    """Settings whose operators are removed after the test: one virt-operator per cluster, and another one running
    makes the next install \"installed outside this site\"."""
    installed: list[Settings] = []
    yield installed.append
    for settings in installed:
        run(connect(plane), dataclasses.replace(settings, state="absent"), fetch, print)


def run_with_controllers(plane, settings: Settings, lines: list[str]) -> dict[str, t.Any]:
    conn = connect(plane)
    controllers = FakeVirtOperator(connect(plane), settings.namespace)
    controllers.start()
    try:
        return run(conn, settings, fetch, lines.append, Waiter(60, lines.append, interval=0.2))
    finally:
        controllers.stop.set()
        controllers.join()


def test_release_manifests_install_then_noop(plane, tmp_path, removed_after):
    write_release(tmp_path, "kubevirt", "v1.9.0", "kubevirt-operator.yaml", kubevirt_release("v1.9.0", "a"))
    removed_after(manifests_settings(tmp_path, "ops-a"))
    lines: list[str] = []
    result = run_with_controllers(plane, manifests_settings(tmp_path, "ops-a"), lines)
    assert result["changed"] is True
    assert result["plan"] == ["KubeVirt (virt-operator): install v1.9.0"]
    assert result["installs"] == ["kubevirt"]
    conn = connect(plane)
    # virt-operator watches its CR only in its own namespace: it is moved to where the operands are, with its
    # binding's subject; the PriorityClass stays with the operands.
    deployment = get(conn, "/apis/apps/v1/namespaces/ops-a/deployments/virt-operator")
    assert deployment is not None
    assert get(conn, "/apis/apps/v1/namespaces/kubevirt/deployments/virt-operator") is None
    binding = get(conn, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubevirt-operator-a")
    assert binding["subjects"][0]["namespace"] == "ops-a"
    assert get(conn, "/apis/scheduling.k8s.io/v1/priorityclasses/kubevirt-cluster-critical") is None
    assert any("left to the operands" in n for n in result["notes"])
    assert [w["what"] for w in result["waited"]] == ["CustomResourceDefinition kubevirts.kubevirt.io",
                                                     "Deployment ops-a/virt-operator"]
    mark = plane.audit_offset()
    again = run(conn, manifests_settings(tmp_path, "ops-a"), fetch, lines.append, Waiter(10, lines.append, interval=0.2))
    assert again["changed"] is False, again["applied"]
    assert again["plan"] == ["KubeVirt (virt-operator): v1.9.0 (as running)"]
    assert server_writes(plane, mark) == []


def test_upgrade_one_minor_waits_for_the_operand_and_two_minors_are_refused(plane, tmp_path, removed_after):
    write_release(tmp_path, "kubevirt", "v1.8.0", "kubevirt-operator.yaml", kubevirt_release("v1.8.0", "b"))
    write_release(tmp_path, "kubevirt", "v1.9.0", "kubevirt-operator.yaml", kubevirt_release("v1.9.0", "b"))
    write_release(tmp_path, "kubevirt", "v1.10.0", "kubevirt-operator.yaml", kubevirt_release("v1.10.0", "b"))
    removed_after(manifests_settings(tmp_path, "ops-b"))
    lines: list[str] = []
    run_with_controllers(plane, manifests_settings(tmp_path, "ops-b", versions={"kubevirt": "v1.8.0"}), lines)
    conn = connect(plane)
    conn.request("POST", "/apis/kubevirt.io/v1/namespaces/ops-b/kubevirts",
                 body={"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "kubevirt"},
                       "spec": {}})
    # Two minor releases at once: refused, with the path, before anything is written.
    mark = plane.audit_offset()
    with pytest.raises(Failed) as refused:
        run(conn, manifests_settings(tmp_path, "ops-b", versions={"kubevirt": "v1.10.0"}), fetch, lines.append)
    assert "v1.8 → v1.9 → v1.10" in str(refused.value)
    assert refused.value.result["plan"] == ["KubeVirt (virt-operator): refused: " + refused.value.result["plan"][0]
                                            .split("refused: ", 1)[1]]
    assert server_writes(plane, mark) == []
    # One minor release: the new files, then the operand reports the new version.
    result = run_with_controllers(plane, manifests_settings(tmp_path, "ops-b"), lines)
    assert result["plan"] == ["KubeVirt (virt-operator): v1.8.0 → v1.9.0"]
    assert "KubeVirt kubevirt at v1.9.0" in [w["what"] for w in result["waited"]]
    kubevirt = get(conn, "/apis/kubevirt.io/v1/namespaces/ops-b/kubevirts/kubevirt")
    assert kubevirt["status"]["observedKubeVirtVersion"] == "v1.9.0"


def test_checksum_mismatch_and_missing_files_refuse_with_nothing_written(plane, tmp_path):
    path = write_release(tmp_path, "kubevirt", "v1.9.0", "kubevirt-operator.yaml", kubevirt_release("v1.9.0", "c"))
    conn = connect(plane)
    mark = plane.audit_offset()
    with pytest.raises(Failed) as mismatch:
        run(conn, manifests_settings(tmp_path, "ops-c", checksums={"kubevirt/kubevirt-operator.yaml": "sha256:00"}),
            fetch, print)
    assert str(path) in str(mismatch.value) and "nothing was applied" in str(mismatch.value)
    with pytest.raises(Failed) as missing:
        run(conn, manifests_settings(tmp_path, "ops-c", operators=("kubevirt", "cdi")), fetch, print)
    assert str(tmp_path / "cdi" / "v1.66.0" / "cdi-operator.yaml") in str(missing.value)
    assert server_writes(plane, mark) == []
    assert get(conn, "/api/v1/namespaces/ops-c") is None


def test_a_stray_kustomization_among_release_files_is_named_before_any_operator_is_written(plane, tmp_path):
    # Three operators whose files are fine come first in install order; the one read as "every *.yaml" has a
    # kustomization.yaml beside its files: nothing at all is written, and the file is named.
    write_release(tmp_path, "kubevirt", "v1.9.0", "kubevirt-operator.yaml", kubevirt_release("v1.9.0", "s"))
    write_release(tmp_path, "migration", "v0.1.0", "operator.yaml", [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "migration-operator",
                                                                    "namespace": "kubevirt"}}])
    stray = tmp_path / "migration" / "v0.1.0" / "kustomization.yaml"
    stray.write_text("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [operator.yaml]\n")
    mark = plane.audit_offset()
    with pytest.raises(Failed) as refused:
        run(connect(plane), manifests_settings(tmp_path, "ops-s", operators=("kubevirt", "migration"),
                                               versions={"migration": "v0.1.0"}), fetch, print)
    assert str(refused.value).startswith("nothing was written: ")
    assert f"{stray}: object 1: is a kustomize Kustomization, not a Kubernetes object" in str(refused.value)
    assert server_writes(plane, mark) == []


def test_removal_takes_only_what_the_operators_stage_installed(plane, tmp_path):
    write_release(tmp_path, "kubevirt", "v1.9.0", "kubevirt-operator.yaml", kubevirt_release("v1.9.0", "d"))
    run_with_controllers(plane, manifests_settings(tmp_path, "ops-d"), [])
    conn = connect(plane)
    person = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine", "namespace": "ops-d"}}
    conn.request("POST", "/api/v1/namespaces/ops-d/configmaps", body=person)
    result = run(conn, manifests_settings(tmp_path, "ops-d", state="absent"), fetch, print)
    assert result["changed"] is True
    assert get(conn, "/apis/apps/v1/namespaces/ops-d/deployments/virt-operator") is None
    assert get(conn, "/apis/rbac.authorization.k8s.io/v1/clusterroles/kubevirt-operator-d") is None
    assert get(conn, "/api/v1/namespaces/ops-d/configmaps/mine") is not None
    assert get(conn, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/kubevirts.kubevirt.io") is not None


def test_an_operator_someone_else_installed_is_left_alone(plane, tmp_path):
    write_release(tmp_path, "kubevirt", "v1.9.0", "kubevirt-operator.yaml", kubevirt_release("v1.9.0", "e"))
    conn = connect(plane)
    by_hand = [o for o in kubevirt_release("v1.4.0", "e") if o["kind"] in ("Namespace", "Deployment")]
    for obj in by_hand:
        obj["metadata"]["name" if obj["kind"] == "Namespace" else "namespace"] = "by-hand"
    conn.request("POST", "/api/v1/namespaces", body=by_hand[0])
    conn.request("POST", "/apis/apps/v1/namespaces/by-hand/deployments", body=by_hand[1])
    try:
        mark = plane.audit_offset()
        result = run(conn, manifests_settings(tmp_path, "ops-e"), fetch, print)
        assert result["plan"] == [("KubeVirt (virt-operator): left as it is: Deployment by-hand/virt-operator image "
                                   "quay.io/kubevirt/virt-operator:v1.4.0, installed outside this site (its version "
                                   "is not managed here)")]
        assert result["changed"] is False and server_writes(plane, mark) == []
    finally:
        conn.request("DELETE", "/api/v1/namespaces/by-hand")


class FakeOLM(StandIn):
    """Stands in for OLM, which does not run here: for the Subscription it resolves an InstallPlan for the pinned CSV
    and one for a later CSV (both unapproved, as with Manual approval); once the first is approved, it creates the CSV,
    keeps it Installing for a moment, then Succeeded, and records it as installed on the Subscription."""

    def __init__(self, conn: Connection, namespace: str, package: str, pinned: str, later: str) -> None:
        super().__init__()
        self.conn, self.namespace, self.package, self.pinned, self.later = conn, namespace, package, pinned, later
        self.installing_since = 0.0

    def path(self, plural: str, name: str = "") -> str:
        return f"/apis/operators.coreos.com/v1alpha1/namespaces/{self.namespace}/{plural}" + (f"/{name}" if name else "")

    def tick(self) -> None:
        sub = get(self.conn, self.path("subscriptions", self.package))
        if sub is None:
            return
        if not sub.get("status"):
            for name, csv in (("install-pinned", self.pinned), ("install-later", self.later)):
                self.conn.request("POST", self.path("installplans"), body={
                    "apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan",
                    "metadata": {"name": name, "namespace": self.namespace},
                    "spec": {"clusterServiceVersionNames": [csv], "approval": "Manual", "approved": False}})
            self.status(sub, {"state": "UpgradePending", "currentCSV": self.pinned,
                              "lastUpdated": "2026-11-26T00:00:00Z",
                              "installPlanRef": {"name": "install-pinned", "namespace": self.namespace}})
            return
        plan = get(self.conn, self.path("installplans", "install-pinned")) or {}
        csv = get(self.conn, self.path("clusterserviceversions", self.pinned))
        if (plan.get("spec") or {}).get("approved") and csv is None:
            self.conn.request("POST", self.path("clusterserviceversions"), body={
                "apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
                "metadata": {"name": self.pinned, "namespace": self.namespace},
                "spec": {"displayName": "KubeVirt HyperConverged Cluster Operator", "version": "1.20.0",
                         "install": {"strategy": "deployment"},
                         "customresourcedefinitions": {"owned": [{"name": "kubevirts.kubevirt.io", "version": "v1",
                                                                  "kind": "KubeVirt"}]}}})
            self.installing_since = time.monotonic()
            self.csv_status({"phase": "Installing", "reason": "InstallWaiting", "message": "installing deployments"})
        elif csv is not None and (csv.get("status") or {}).get("phase") == "Installing" \
                and time.monotonic() - self.installing_since > 1.0:
            self.csv_status({"phase": "Succeeded", "reason": "InstallSucceeded"})
            # OLM records installedCSV in a later update than the CSV's phase; the lag made longer than the
            # waiter's interval, so the run sees a Succeeded CSV that the Subscription does not name as installed.
            time.sleep(1.0)
            self.status(sub, {**sub["status"], "state": "AtLatestKnown", "installedCSV": self.pinned})

    def status(self, sub: dict[str, t.Any], status: dict[str, t.Any]) -> None:
        self.conn.request("PATCH", self.path("subscriptions", self.package) + "/status", body={"status": status},
                          content_type=MERGE)

    def csv_status(self, status: dict[str, t.Any]) -> None:
        status = {**status, "lastUpdateTime": "2026-11-26T00:00:00Z", "lastTransitionTime": "2026-11-26T00:00:00Z"}
        self.conn.request("PATCH", self.path("clusterserviceversions", self.pinned) + "/status",
                          body={"status": status}, content_type=MERGE)


def test_olm_subscription_with_placement_manual_approval_of_exactly_the_pinned_csv(plane):
    pinned, later = "kubevirt-hyperconverged-operator.v1.20.0", "kubevirt-hyperconverged-operator.v1.21.0"
    namespace = "olm-hco"
    settings = Settings(source="olm", platform="kubernetes", release="1.20", operators=("kubevirt", "cdi"),
                        namespace=namespace, approval="Manual", csvs={"hco": pinned},
                        placement={"node_selector": {"node-role.kubernetes.io/infra": ""}})
    olm = FakeOLM(connect(plane), namespace, "community-kubevirt-hyperconverged", pinned, later)
    olm.start()
    lines: list[str] = []
    try:
        result = run(connect(plane), settings, fetch, lines.append, Waiter(60, lines.append, interval=0.2))
    finally:
        olm.stop.set()
        olm.join()
    conn = connect(plane)
    sub = get(conn, olm.path("subscriptions", "community-kubevirt-hyperconverged"))
    assert sub["spec"]["config"]["nodeSelector"] == {"node-role.kubernetes.io/infra": ""}
    assert sub["spec"]["startingCSV"] == pinned and sub["spec"]["installPlanApproval"] == "Manual"
    assert get(conn, f"/apis/operators.coreos.com/v1/namespaces/{namespace}/operatorgroups/{namespace}-group")
    assert get(conn, olm.path("installplans", "install-pinned"))["spec"]["approved"] is True
    assert get(conn, olm.path("installplans", "install-later"))["spec"]["approved"] is False
    assert result["approved"] == [f"{namespace}/install-pinned"]
    assert result["installs"] == ["community-kubevirt-hyperconverged"]
    assert any("install-later" in n and "not approved" in n for n in result["notes"])
    # It waited while the CSV was Installing, and said so.
    assert any("waiting for Subscription" in line and "Installing" in line for line in lines), lines
    assert [w["what"] for w in result["waited"]][-1] == "CustomResourceDefinition kubevirts.kubevirt.io"
    # Again: nothing to approve, nothing to write.
    mark = plane.audit_offset()
    again = run(conn, settings, fetch, lines.append, Waiter(10, lines.append, interval=0.2))
    assert again["changed"] is False and again["approved"] == []
    assert server_writes(plane, mark) == []


def test_olm_manual_without_a_pinned_csv_is_refused(plane):
    settings = Settings(source="olm", platform="openshift", release="1.20", operators=("kubevirt",),
                        namespace="olm-x", approval="Manual")
    mark = plane.audit_offset()
    with pytest.raises(Failed) as refused:
        run(connect(plane), settings, fetch, print)
    assert "operators_csvs.hco" in str(refused.value)
    assert server_writes(plane, mark) == []
