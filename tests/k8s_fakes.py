# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""For the apply stages' unit tests (tests/unit/plugins/module_utils/_k8s): a stand-in for the connection, with
objects kept by path, server-side apply answered as a merge of the body over the live object (201 when it creates),
scripted refusals, and every request counted; and builders of contexts, resources and apply-set members. What the
real server does beyond that (defaults, admission) is tested against it in tests/integration."""

from __future__ import annotations

import copy
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.applyset import PART_OF_LABEL, ApplySet
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Counts, KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.context import Context
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.discovery import Resource
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Options, Step
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.resolve import MANAGED_BY_LABEL


def merged(live: t.Any, body: t.Any) -> t.Any:
    if isinstance(live, dict) and isinstance(body, dict):
        out = dict(live)
        for key, value in body.items():
            out[key] = merged(live.get(key), value)
        return out
    return copy.deepcopy(body)


def group(name: str, *versions: tuple[str, list[tuple[str, str, bool]]]) -> dict[str, t.Any]:
    """One group of an aggregated discovery answer (APIGroupDiscovery): versions of (kind, plural, namespaced)."""
    return {"metadata": {"name": name}, "versions": [
        {"version": version, "resources": [
            {"resource": plural, "responseKind": {"kind": kind}, "scope": "Namespaced" if namespaced else "Cluster",
             "verbs": ["get", "list"]} for kind, plural, namespaced in resources]}
        for version, resources in versions]}


class Counted(Counts):
    """The connection's counters (the client's own), as the applier reads them for its result."""

    def request(self, method: str, path: str, **options: t.Any) -> t.Any:
        return self.exchange(method, path, **options)[1]

    def exchange(self, method: str, path: str, **options: t.Any) -> tuple[int, t.Any]:
        raise NotImplementedError


class FakeAPI(Counted):
    def __init__(self, objects: dict[str, dict[str, t.Any]] | None = None) -> None:
        super().__init__()
        self.objects = objects or {}
        self.calls: list[tuple[str, str, bool]] = []   # (method, path, dry run)
        self.refuse: dict[tuple[str, str], KubeError] = {}

    def exchange(self, method: str, path: str, *, query: t.Mapping[str, t.Any] | None = None, body: t.Any = None,
                 **_options: t.Any) -> tuple[int, t.Any]:
        dry_run = bool(query and query.get("dryRun"))
        self.calls.append((method, path, dry_run))
        self.requests[method] += 1
        refusal = self.refuse.get((method, path))
        if refusal is not None:
            raise refusal
        live = self.objects.get(path)
        if method == "GET" and live is None and _collection(path):
            return 200, {"items": [copy.deepcopy(o) for key, o in sorted(self.objects.items())
                                   if _in(key, path) and _selected(o, (query or {}).get("labelSelector"))]}
        if method == "GET":
            if live is None:
                raise KubeError("not found", 404, {"kind": "Status", "code": 404})
            return 200, copy.deepcopy(live)
        if method == "PATCH":
            answer = merged(live or {}, body)
            answer.setdefault("metadata", {})["resourceVersion"] = str(len(self.calls))
            if not dry_run:
                self.objects[path] = answer
                self.writes += 1
            return (200 if live is not None else 201), copy.deepcopy(answer)
        if method == "DELETE":
            if live is None:
                raise KubeError("not found", 404, {"kind": "Status", "code": 404})
            if not dry_run:
                del self.objects[path]
                self.writes += 1
            return 200, {}
        raise AssertionError(f"unexpected {method} {path}")

    def sent(self, method: str, *, dry_run: bool | None = None) -> list[str]:
        return [p for m, p, d in self.calls if m == method and (dry_run is None or d == dry_run)]


def _collection(path: str) -> bool:
    """/api/v1/namespaces/ns/configmaps, /apis/g/v1/widgets: an even number of segments after the version."""
    parts = path.strip("/").split("/")
    rest = parts[2:] if parts[0] == "api" else parts[3:]
    return len(rest) % 2 == 1


def _in(key: str, collection: str) -> bool:
    """An object path in a collection: directly, or across namespaces for a collection without one."""
    if key.rsplit("/", 1)[0] == collection:
        return True
    plural = collection.rsplit("/", 1)[-1]
    root = collection.rsplit("/", 1)[0]
    parts = key.split("/")
    return "/namespaces/" not in collection and key.startswith(root + "/namespaces/") and len(parts) >= 2 \
        and parts[-2] == plural


def _selected(obj: t.Mapping[str, t.Any], selector: str | None) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    terms = [term.partition("=") for term in (selector or "").split(",") if term]
    return all(labels.get(key) == value for key, _equals, value in terms)


OURS = "virtinfra.hyperconverged"
SET = ApplySet("site", "ns")
CONFIG_MAPS = Resource("", "v1", "ConfigMap", "configmaps", True, ("get", "list", "delete"))
NAMESPACES = Resource("", "v1", "Namespace", "namespaces", False, ("get", "list", "delete"))


class Resources:
    """Discovery's interface over a fixed list."""

    def __init__(self, *resources: Resource) -> None:
        self.resources = resources or (CONFIG_MAPS, NAMESPACES)

    def find(self, api_version: str, kind: str) -> Resource | None:
        return next((r for r in self.resources if (r.api_version, r.kind) == (api_version, kind)), None)

    def find_group_kind(self, group: str, kind: str) -> Resource | None:
        return next((r for r in self.resources if (r.group, r.kind) == (group, kind)), None)

    def namespaced_listable(self) -> list[Resource]:
        return [r for r in self.resources if r.namespaced]

    def not_served(self, api_version: str, kind: str) -> str:
        return f"not served: {kind} in {api_version}"


def context(api: FakeAPI, **options: t.Any) -> Context:
    return Context(api, Options(**options), Resources())  # type: ignore[arg-type]


def member(name: str, namespace: str = "ns", uid: str = "", applyset: ApplySet = SET) -> dict[str, t.Any]:
    """A ConfigMap this apply set created: both labels, the part-of label applied by our field manager."""
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{name}",
                         "labels": {MANAGED_BY_LABEL: OURS, PART_OF_LABEL: applyset.id},
                         "managedFields": [{"manager": OURS, "operation": "Apply", "fieldsV1": {
                             "f:metadata": {"f:labels": {f"f:{PART_OF_LABEL}": {}}}}}]}}


def path(name: str, namespace: str = "ns") -> str:
    return f"/api/v1/namespaces/{namespace}/configmaps/{name}"


def item(name: str, index: int = 0, live: dict[str, t.Any] | None = None, **decided: t.Any) -> Step:
    return Step(index, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}},
                "v1", "ConfigMap", name, "ns", resource=CONFIG_MAPS, live=live, **decided)


class Replay(Counted):
    """Answers recorded from the real test API server by tests/record_k8s_answers.py, served again in the order
    they were recorded for each (method, path, dry run, force); a request that was not recorded fails the test, and
    ``unused`` lists what the code no longer asked for."""

    def __init__(self, recording: t.Sequence[t.Mapping[str, t.Any]]) -> None:
        super().__init__()
        self.queues: dict[tuple[str, str, bool, str], list[t.Mapping[str, t.Any]]] = {}
        for entry in recording:
            self.queues.setdefault(_key(entry["method"], entry["path"], entry.get("query") or {}), []).append(entry)

    @property
    def unused(self) -> list[tuple[str, str, bool, str]]:
        return [key for key, queue in self.queues.items() for _entry in queue]

    def exchange(self, method: str, path: str, *, query: t.Mapping[str, t.Any] | None = None,
                 **_options: t.Any) -> tuple[int, t.Any]:
        key = _key(method, path, query or {})
        queue = self.queues.get(key)
        if not queue:
            raise AssertionError(f"not recorded: {key}")
        entry = queue.pop(0)
        self.requests[method] += 1
        if "error" in entry:
            error = entry["error"]
            raise KubeError(error["message"], error["status"], error["body"])
        if method in ("POST", "PUT", "PATCH", "DELETE") and not key[2] and "selfsubjectaccessreviews" not in path:
            self.writes += 1
        return entry["status"], copy.deepcopy(entry["answer"])


def _key(method: str, path: str, query: t.Mapping[str, t.Any]) -> tuple[str, str, bool, str]:
    return (method, path, bool(query.get("dryRun")), str(query.get("force") or ""))
