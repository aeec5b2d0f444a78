# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Validate, dry-run, apply, prune and wait for a list of objects with server-side apply.

Order of work, so that bad input changes nothing: local checks and CRD-schema validation of every object, then a
server-side dry run of every object that would change, and only when all of them pass, the writes in dependency
order. An object that is already as desired costs no request beyond one list per kind.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import concurrent.futures
import copy
import dataclasses
import typing as t

from .client import Connection, KubeError
from .discovery import Discovery, Resource
from .fields import FINGERPRINT_ANNOTATION, contained, dict_paths, diff, fingerprint, mismatches, ownership, owns, public, remove_paths, strip
from .openapi import served_schemas, validate_custom_resource
from .waits import WaitSpec, wait_for_all

FIELD_MANAGER = "virtinfra.hyperconverged"
MANAGED_BY_LABEL = "hyperconverged.virtinfra.io/managed-by"
APPLY_SET_LABEL = "hyperconverged.virtinfra.io/apply-set"
CRD_API_VERSION = "apiextensions.k8s.io/v1"
REDACTED = "<redacted>"

# Dependency order; anything not listed is a custom resource and goes last.
KIND_RANK = {
    "CustomResourceDefinition": 0, "Namespace": 1,
    "PriorityClass": 2, "StorageClass": 2, "ServiceAccount": 2, "ClusterRole": 2, "Role": 2,
    "SecurityContextConstraints": 2, "ClusterRoleBinding": 3, "RoleBinding": 3,
    "ConfigMap": 4, "Secret": 4, "Service": 5, "NetworkAttachmentDefinition": 5,
    "DaemonSet": 6, "Deployment": 6, "StatefulSet": 6, "Job": 6,
    "OperatorGroup": 7, "Subscription": 8,
}
CUSTOM_RANK = 9


class ApplyFailed(Exception):
    def __init__(self, message: str, errors: list[dict[str, t.Any]] | None = None,
                 partial: dict[str, t.Any] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []
        self.partial = partial or {}


@dataclasses.dataclass
class Options:
    apply_set: str = "default"
    field_manager: str = FIELD_MANAGER
    state: str = "present"  # present | absent | observed
    drift: str = "revert"  # revert | report
    prune: bool = False
    prune_kinds: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    namespace: str | None = None
    check_mode: bool = False
    wait: bool = True
    wait_for: list[WaitSpec] = dataclasses.field(default_factory=list)
    wait_timeout: float = 120.0
    workers: int = 8


@dataclasses.dataclass
class Item:
    index: int
    desired: dict[str, t.Any]
    api_version: str
    kind: str
    name: str
    namespace: str | None = None
    resource: Resource | None = None
    live: dict[str, t.Any] | None = None
    deferred: str = ""
    action: str = "unchanged"
    changes: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)
    drift: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)
    body: dict[str, t.Any] | None = None
    result: dict[str, t.Any] | None = None
    validated_by: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.api_version, self.kind, self.namespace or "", self.name)

    @property
    def rank(self) -> int:
        return KIND_RANK.get(self.kind, CUSTOM_RANK)

    @property
    def label(self) -> str:
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"

    def error(self, path: str, message: str) -> dict[str, t.Any]:
        return {"object": f"{self.api_version} {self.label}", "index": self.index, "path": path, "message": message}


class Applier:
    def __init__(self, connection: Connection, options: Options) -> None:
        self.connection = connection
        self.options = options
        self.discovery = Discovery(connection)
        self._crd_schemas: dict[tuple[str, str], dict[str, t.Any]] | None = None

    # ------------------------------------------------------------------ entry point
    def run(self, objects: t.Sequence[t.Any]) -> dict[str, t.Any]:
        items, errors = self._parse(objects)
        if errors:
            raise ApplyFailed(_summary("invalid input", errors), errors)
        self._resolve(items, errors)
        if errors:
            raise ApplyFailed(_summary("invalid objects", errors), errors)
        self._read_live(items)
        if self.options.state == "observed":
            return self._observe(items)
        if self.options.state == "absent":
            return self._delete(items)
        self._validate_schemas(items, errors)
        if errors:
            raise ApplyFailed(_summary("objects fail their CRD schema", errors), errors)
        self._parallel(lambda item: self._plan(item, errors), [i for i in items if not i.deferred])
        if errors:
            raise ApplyFailed(_summary("the API server refused objects in a dry run; nothing was written", errors),
                              errors)
        prunable = self._find_prunable(items) if self.options.prune else []
        if not self.options.check_mode:
            self._write(items)
        pruned = [self._prune(obj, resource) for obj, resource in prunable]
        if not self.options.check_mode and self.options.wait_for:
            wait_for_all(self.connection, self.discovery, self.options.wait_for, self.options.wait_timeout)
        return self._report(items, pruned)

    # ------------------------------------------------------------------ input
    def _parse(self, objects: t.Sequence[t.Any]) -> tuple[list[Item], list[dict[str, t.Any]]]:
        items: list[Item] = []
        errors: list[dict[str, t.Any]] = []
        seen: dict[tuple[str, str, str, str], int] = {}
        for index, obj in enumerate(objects):
            where = f"objects[{index}]"
            if not isinstance(obj, dict):
                errors.append({"object": where, "index": index, "path": "", "message": "must be a mapping"})
                continue
            problems = [(field, "required value") for field in ("apiVersion", "kind")
                        if not isinstance(obj.get(field), str) or not obj.get(field)]
            metadata = obj.get("metadata")
            if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str) or not metadata["name"]:
                problems.append(("metadata.name", "required value"))
            if problems:
                errors += [{"object": where, "index": index, "path": p, "message": m} for p, m in problems]
                continue
            desired: dict[str, t.Any] = copy.deepcopy(obj)
            desired.pop("status", None)
            for field in ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation"):
                desired["metadata"].pop(field, None)
            item = Item(index, desired, obj["apiVersion"], obj["kind"], desired["metadata"]["name"],
                        desired["metadata"].get("namespace"))
            if item.key in seen:
                errors.append(item.error("metadata.name", f"duplicate of objects[{seen[item.key]}]"))
            seen[item.key] = index
            items.append(item)
        items.sort(key=lambda i: (i.rank, i.index))
        return items, errors

    def _resolve(self, items: list[Item], errors: list[dict[str, t.Any]]) -> None:
        """Find each object's resource; kinds defined by a CRD in the same input wait for it."""
        input_kinds = {key for item in items if item.kind == "CustomResourceDefinition"
                       for key in served_schemas(item.desired)}
        for item in items:
            item.resource = self.discovery.find(item.api_version, item.kind)
            if item.resource is None:
                if (item.api_version, item.kind) in input_kinds:
                    item.deferred = "its CustomResourceDefinition is created by this run"
                else:
                    errors.append(item.error("kind", f"the server has no resource for kind {item.kind} in "
                                                     f"{item.api_version}"))
                continue
            if item.resource.namespaced:
                item.namespace = item.namespace or self.options.namespace
                if not item.namespace:
                    errors.append(item.error("metadata.namespace", "required value for a namespaced kind"))
                    continue
                item.desired["metadata"]["namespace"] = item.namespace
            elif item.namespace:
                errors.append(item.error("metadata.namespace", f"{item.kind} is cluster-scoped"))
                continue
        if self.options.state == "present":
            for item in items:
                labels = item.desired["metadata"].setdefault("labels", {})
                labels[MANAGED_BY_LABEL] = FIELD_MANAGER
                labels[APPLY_SET_LABEL] = self.options.apply_set
                annotations = item.desired["metadata"].setdefault("annotations", {})
                annotations.pop(FINGERPRINT_ANNOTATION, None)
                annotations[FINGERPRINT_ANNOTATION] = fingerprint(item.desired)

    # ------------------------------------------------------------------ reading
    def _read_live(self, items: list[Item]) -> None:
        """One labelled list per kind finds what we manage; others are read one by one."""
        listed: dict[tuple[str, str, str, str], dict[str, t.Any]] = {}
        if self.options.state == "present":
            resources = list(_unique(item.resource for item in items if item.resource))
            for resource, found in zip(resources, self._parallel(self._list_managed, resources)):
                for obj in found:
                    meta = obj.get("metadata") or {}
                    listed[(resource.api_version, resource.kind, meta.get("namespace") or "", meta["name"])] = obj
        for item in items:
            if item.kind == "Namespace" and item.resource is not None and item.key in listed:
                item.live = listed[item.key]
        namespaces = [i for i in items if i.kind == "Namespace" and i.resource is not None and i.key not in listed]
        unlisted = [i for i in items if i.resource is not None and i.kind != "Namespace"]
        self._parallel(self._get_live, namespaces)
        missing_namespaces = {i.name for i in namespaces if i.live is None}
        for item in unlisted:
            if item.key in listed:
                item.live = listed[item.key]
            elif item.namespace in missing_namespaces:
                item.deferred = f"its namespace {item.namespace} is created by this run"
        self._parallel(self._get_live, [i for i in unlisted if i.key not in listed and not i.deferred])

    def _get_live(self, item: Item) -> None:
        resource = _resource_of(item)
        try:
            item.live = self.connection.request("GET", resource.path(item.namespace, item.name))
        except KubeError as exc:
            if exc.status != 404:
                raise
            item.live = None

    def _list_managed(self, resource: Resource) -> list[dict[str, t.Any]]:
        selector = f"{MANAGED_BY_LABEL}={FIELD_MANAGER},{APPLY_SET_LABEL}={self.options.apply_set}"
        document = self.connection.request("GET", resource.path(), query={"labelSelector": selector})
        found = document.get("items") or []
        for obj in found:
            obj.setdefault("apiVersion", resource.api_version)
            obj.setdefault("kind", resource.kind)
        return found

    def _live_crd_schemas(self) -> dict[tuple[str, str], dict[str, t.Any]]:
        if self._crd_schemas is None:
            self._crd_schemas = {}
            crds = self.connection.request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
            for crd in crds.get("items") or []:
                self._crd_schemas.update(served_schemas(crd))
        return self._crd_schemas

    # ------------------------------------------------------------------ validation and planning
    def _validate_schemas(self, items: list[Item], errors: list[dict[str, t.Any]]) -> None:
        input_schemas: dict[tuple[str, str], dict[str, t.Any]] = {}
        for item in items:
            if item.kind == "CustomResourceDefinition":
                input_schemas.update(served_schemas(item.desired))
        custom = [i for i in items if _may_be_custom(i.api_version)]
        if not custom:
            return
        live_schemas = self._live_crd_schemas() if any(i.resource for i in custom) else {}
        for item in custom:
            schema = input_schemas.get((item.api_version, item.kind)) or live_schemas.get((item.api_version, item.kind))
            if schema is None:
                continue  # a built-in or aggregated API: the dry run validates it
            item.validated_by = "crd-schema"
            for path, message in validate_custom_resource(item.desired, schema):
                errors.append(item.error(path, message))

    def _plan(self, item: Item, errors: list[dict[str, t.Any]]) -> None:
        """Decide what the object needs; anything that may change is settled by a server-side dry run."""
        live = item.live
        if live is not None:
            ours = ownership(live).get(self.options.field_manager, set())
            wanted = dict_paths(item.desired)
            if contained(item.desired, live) and all(path in wanted for path in ours):
                item.action = "unchanged"
                return
        try:
            predicted = self._apply(item, item.desired, force=True, dry_run=True)
        except KubeError as exc:
            if _namespace_missing(exc) and item.namespace:
                item.deferred = f"its namespace {item.namespace} does not exist yet"
                return
            errors.extend(_server_errors(item, exc))
            return
        item.validated_by = "dry-run"
        item.changes = diff(strip(live), strip(predicted))
        item.body, item.result = item.desired, predicted
        if not item.changes:
            item.action = "unchanged"
            return
        item.action = "created" if live is None else "updated"
        if live is None:
            return
        item.drift = self._drift(item, live)
        if item.drift and self.options.drift == "report":
            item.body = remove_paths(item.desired, [d["_path"] for d in item.drift])
            try:
                predicted = self._apply(item, item.body, force=False, dry_run=True)
            except KubeError as exc:
                errors.extend(_server_errors(item, exc))
                return
            item.result = predicted
            item.changes = diff(strip(live), strip(predicted))
            item.action = "updated" if item.changes else "unchanged"

    def _drift(self, item: Item, live: dict[str, t.Any]) -> list[dict[str, t.Any]]:
        """Changes that undo someone else's edit: the input is unchanged since our last apply, or another manager
        owns the field now."""
        annotations = (live.get("metadata") or {}).get("annotations") or {}
        desired_fingerprint = item.desired["metadata"]["annotations"][FINGERPRINT_ANNOTATION]
        unchanged_input = annotations.get(FINGERPRINT_ANNOTATION) == desired_fingerprint
        owners = ownership(live)
        ours = owners.pop(self.options.field_manager, set())
        drift = []
        for change in item.changes:
            path = change["_path"]
            others = sorted(name for name, paths in owners.items() if owns(paths, path))
            if unchanged_input or (others and not owns(ours, path)):
                drift.append({**change, "managers": others})
        return drift

    # ------------------------------------------------------------------ writing
    def _apply(self, item: Item, body: dict[str, t.Any], *, force: bool, dry_run: bool) -> dict[str, t.Any]:
        resource = _resource_of(item)
        query = {"fieldManager": self.options.field_manager, "fieldValidation": "Strict",
                 "force": "true" if force else "false", "dryRun": "All" if dry_run else None}
        result = self.connection.request("PATCH", resource.path(item.namespace, item.name), query=query,
                                         body=body, content_type="application/apply-patch+yaml")
        return t.cast(dict[str, t.Any], result)

    def _write(self, items: list[Item]) -> None:
        """Writes rank by rank (objects of one rank in parallel); CRDs and Namespaces before everything else."""
        errors: list[dict[str, t.Any]] = []
        ranks = sorted({item.rank for item in items})
        prerequisites_done = False
        for rank in ranks:
            if not prerequisites_done and rank > KIND_RANK["Namespace"]:
                prerequisites_done = True
                self._after_prerequisites(items, errors)
                if errors:
                    raise ApplyFailed(_summary("the API server refused objects in a dry run after their CRDs and "
                                               "namespaces were created; nothing else was written", errors), errors)
            batch = [i for i in items if i.rank == rank and i.action in ("created", "updated") and i.body is not None]
            self._parallel(self._write_one, batch)
        if not prerequisites_done:
            self._after_prerequisites(items, errors)

    def _write_one(self, item: Item) -> None:
        result = self._apply(item, item.body or item.desired, force=self.options.drift == "revert", dry_run=False)
        item.result = result
        item.changes = diff(strip(item.live), strip(result))

    def _parallel(self, work: t.Callable[[t.Any], t.Any], inputs: t.Sequence[t.Any]) -> list[t.Any]:
        """Independent requests in parallel (bounded); the first exception is re-raised after all finished."""
        if len(inputs) <= 1 or self.options.workers <= 1:
            return [work(value) for value in inputs]
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.options.workers) as pool:
            futures = [pool.submit(work, value) for value in inputs]
        return [future.result() for future in futures]

    def _after_prerequisites(self, items: list[Item], errors: list[dict[str, t.Any]]) -> None:
        written_crds = [i for i in items if i.kind == "CustomResourceDefinition" and i.action in ("created", "updated")]
        if written_crds and self.options.wait:
            specs = [WaitSpec(CRD_API_VERSION, "CustomResourceDefinition", i.name, None,
                              condition_type="Established") for i in written_crds]
            wait_for_all(self.connection, self.discovery, specs, self.options.wait_timeout)
        deferred = [i for i in items if i.deferred]
        if not deferred:
            return
        if any(i.resource is None for i in deferred):
            self.discovery.refresh()
        ready = []
        for item in deferred:
            item.resource = self.discovery.find(item.api_version, item.kind)
            if item.resource is None:
                errors.append(item.error("kind", "still not served after its CustomResourceDefinition was created"))
                continue
            if item.resource.namespaced:
                item.namespace = item.namespace or self.options.namespace
                item.desired["metadata"]["namespace"] = item.namespace
            item.deferred = ""
            ready.append(item)
        self._parallel(lambda item: self._plan(item, errors), ready)

    # ------------------------------------------------------------------ prune, delete, observe
    def _find_prunable(self, items: list[Item]) -> list[tuple[dict[str, t.Any], Resource]]:
        wanted = {item.key for item in items}
        resources = list(_unique(item.resource for item in items if item.resource))
        for api_version, kind in self.options.prune_kinds:
            resource = self.discovery.find(api_version, kind)
            if resource and resource not in resources:
                resources.append(resource)
        found = []
        for resource in resources:
            for obj in self._list_managed(resource):
                meta = obj["metadata"]
                if (resource.api_version, resource.kind, meta.get("namespace") or "", meta["name"]) not in wanted:
                    found.append((obj, resource))
        found.sort(key=lambda pair: -KIND_RANK.get(pair[1].kind, CUSTOM_RANK))
        return found

    def _prune(self, obj: dict[str, t.Any], resource: Resource) -> dict[str, t.Any]:
        meta = obj["metadata"]
        query = {"dryRun": "All" if self.options.check_mode else None, "propagationPolicy": "Background"}
        try:
            self.connection.request("DELETE", resource.path(meta.get("namespace"), meta["name"]), query=query)
        except KubeError as exc:
            if exc.status != 404:
                raise
        return {"apiVersion": resource.api_version, "kind": resource.kind, "namespace": meta.get("namespace"),
                "name": meta["name"], "action": "pruned"}

    def _delete(self, items: list[Item]) -> dict[str, t.Any]:
        for item in reversed(items):
            if item.live is None or item.resource is None:
                continue
            query = {"dryRun": "All" if self.options.check_mode else None, "propagationPolicy": "Background"}
            try:
                self.connection.request("DELETE", item.resource.path(item.namespace, item.name), query=query)
            except KubeError as exc:
                if exc.status != 404:
                    raise
            item.action = "deleted"
            item.changes = diff(strip(item.live), {})
        return self._report(items, [])

    def _observe(self, items: list[Item]) -> dict[str, t.Any]:
        """Read-only: fields of each desired object whose live value differs (operands another operator owns)."""
        for item in items:
            if item.live is None:
                item.action = "missing"
                continue
            item.drift = mismatches(strip(item.desired), strip(item.live))
            owners = ownership(item.live)
            for entry in item.drift:
                entry["managers"] = sorted(n for n, paths in owners.items() if owns(paths, entry["_path"]))
            item.action = "drifted" if item.drift else "unchanged"
        report = self._report(items, [])
        report["changed"] = False
        return report

    # ------------------------------------------------------------------ result
    def _report(self, items: list[Item], pruned: list[dict[str, t.Any]]) -> dict[str, t.Any]:
        objects: list[dict[str, t.Any]] = []
        diffs: list[dict[str, t.Any]] = []
        for item in sorted(items, key=lambda i: i.index):
            secret = item.kind == "Secret"
            entry: dict[str, t.Any] = {
                "apiVersion": item.api_version, "kind": item.kind, "namespace": item.namespace, "name": item.name,
                "action": item.action, "changes": _redact(public(item.changes), secret),
                "drift": {"count": len(item.drift), "fields": _redact(public(item.drift), secret)},
                "reverted": len(item.drift) if (item.drift and self.options.drift == "revert"
                                                and item.action == "updated") else 0,
                "validated_by": item.validated_by or ("deferred" if item.deferred else "live-state"),
            }
            if item.deferred:
                entry["deferred"] = item.deferred
                if item.action == "unchanged" and self.options.state == "present":
                    entry["action"] = "created" if self.options.check_mode else entry["action"]
                    entry["changes"] = _redact(public(diff({}, strip(item.desired))), secret)
            objects.append(entry)
            if entry["changes"] and entry["action"] not in ("unchanged", "missing", "drifted"):
                before = strip(item.live) if item.live else {}
                after = strip(item.result) if item.result and item.action != "deleted" else {}
                if item.deferred and self.options.check_mode:
                    after = strip(item.desired)
                diffs.append({"before_header": f"{item.api_version} {item.label}",
                              "after_header": f"{item.api_version} {item.label}",
                              "before": _redact_object(before, secret), "after": _redact_object(after, secret)})
        changed = any(o["action"] in ("created", "updated", "deleted") for o in objects) or bool(pruned)
        return {
            "changed": changed,
            "objects": objects,
            "pruned": pruned,
            "drift_total": sum(o["drift"]["count"] for o in objects),
            "reverted_total": sum(o["reverted"] for o in objects),
            "requests": {"total": self.connection.request_count, "writes": self.connection.write_count,
                         "by_method": dict(self.connection.requests)},
            "diff": diffs,
        }


_BUILTIN_GROUPS = frozenset({"", "apps", "batch", "autoscaling", "policy"})


def _may_be_custom(api_version: str) -> bool:
    """Custom resources never use the built-in groups; *.k8s.io groups are reserved for Kubernetes itself."""
    group = api_version.rpartition("/")[0]
    return group not in _BUILTIN_GROUPS and not group.endswith(".k8s.io")


def _resource_of(item: Item) -> Resource:
    if item.resource is None:
        raise ValueError(f"{item.label}: no resource resolved")  # a programming error, not an input error
    return item.resource


def _unique(resources: t.Iterable[Resource | None]) -> t.Iterator[Resource]:
    seen = set()
    for resource in resources:
        if resource is not None and resource not in seen:
            seen.add(resource)
            yield resource


def _namespace_missing(exc: KubeError) -> bool:
    details = exc.body.get("details") or {}
    return exc.status == 404 and details.get("kind") == "namespaces"


def _server_errors(item: Item, exc: KubeError) -> list[dict[str, t.Any]]:
    causes = exc.causes
    if not causes:
        return [item.error("", str(exc))]
    return [item.error(c.get("field") or "", c.get("message") or c.get("reason") or str(exc)) for c in causes]


def _summary(what: str, errors: list[dict[str, t.Any]]) -> str:
    lines = [f"{what} ({len(errors)} problem{'s' if len(errors) != 1 else ''}):"]
    for error in errors:
        where = f"{error['object']}: {error['path']}" if error["path"] else error["object"]
        lines.append(f"  {where}: {error['message']}")
    return "\n".join(lines)


def _redact(changes: list[dict[str, t.Any]], secret: bool) -> list[dict[str, t.Any]]:
    if not secret:
        return changes
    out = []
    for change in changes:
        if change["path"].split(".")[0] in ("data", "stringData"):
            change = {**change, "before": REDACTED if change["before"] is not None else None,
                      "after": REDACTED if change["after"] is not None else None}
        out.append(change)
    return out


def _redact_object(obj: dict[str, t.Any], secret: bool) -> dict[str, t.Any]:
    if not secret:
        return obj
    return {k: (dict.fromkeys(v, REDACTED) if k in ("data", "stringData") and isinstance(v, dict) else v)
            for k, v in obj.items()}
