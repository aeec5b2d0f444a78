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

import base64
import collections
import concurrent.futures
import contextlib
import copy
import dataclasses
import re
import typing as t

from .applyset import (
    PARENT_API_VERSION,
    PARENT_KIND,
    PART_OF_LABEL,
    ApplySet,
    Record,
    group_kind,
    name_problem,
    split_group_kind,
)
from .client import Connection, KubeError
from .discovery import Discovery, Resource
from .fields import (
    FINGERPRINT_ANNOTATION,
    contained,
    dict_paths,
    diff,
    fingerprint,
    mismatches,
    ownership,
    owns,
    public,
    strip,
    without_foreign,
)
from .lock import ApplySetLock, lease_name
from .openapi import served_schemas, validate_custom_resource
from .waits import WaitFailed, WaitSpec, wait_for_all

FIELD_MANAGER = "virtinfra.hyperconverged"
MANAGED_BY_LABEL = "hyperconverged.virtinfra.io/managed-by"
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


class _NeedsLock(Exception):
    """The unlocked plan writes or prunes: plan again under the apply set's lock."""

    def __init__(self, applyset: ApplySet, namespace: Item | None) -> None:
        super().__init__(applyset.label)
        self.applyset = applyset
        self.namespace = namespace   # the parent's Namespace when this run creates it


class ApplyFailed(Exception):
    def __init__(self, message: str, errors: list[dict[str, t.Any]] | None = None,
                 partial: dict[str, t.Any] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []
        self.partial = partial or {}


@dataclasses.dataclass
class Options:
    apply_set: str | None = None  # no default: prune needs a set named on purpose
    apply_set_namespace: str | None = None  # of the parent; else namespace, else "default"
    field_manager: str = FIELD_MANAGER
    state: str = "present"  # present | absent | observed
    drift: str = "revert"  # revert | report
    prune: bool = False
    prune_kinds: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    prune_namespaces: bool = False  # Namespaces and CRDs hold other objects: pruned only on request, and empty
    namespace: str | None = None
    check_mode: bool = False
    wait: bool = True
    wait_for: list[WaitSpec] = dataclasses.field(default_factory=list)
    wait_timeout: float = 120.0
    workers: int = 8
    lock_timeout: float = 120.0  # how long a run waits for another run's lock on the same apply set


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
    written: bool = False
    live_unknown: bool = False   # not listed and not read: the dry run tells whether it exists
    rank_override: float | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.api_version, self.kind, self.namespace or "", self.name)

    @property
    def rank(self) -> float:
        return self.rank_override if self.rank_override is not None else KIND_RANK.get(self.kind, CUSTOM_RANK)

    @property
    def label(self) -> str:
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"

    def error(self, path: str, message: str) -> dict[str, t.Any]:
        return {"object": f"{self.api_version} {self.label}", "index": self.index, "path": path, "message": message}


# The apply-set parent is written right after the Namespaces (its own may be one of them), before any member.
PARENT_RANK = KIND_RANK["Namespace"] + 0.5

# Kinds whose deletion takes other objects with it.
CONTAINER_KINDS = frozenset({"Namespace", "CustomResourceDefinition"})


class Applier:
    def __init__(self, connection: Connection, options: Options) -> None:
        self.connection = connection
        self.options = options
        self.discovery = Discovery(connection)
        self._crd_schemas: dict[tuple[str, str], dict[str, t.Any]] | None = None
        # Kept across the two plans of a run that takes the lock: a dry run against the same live object (same
        # resourceVersion, or still absent) and the same body answers the same, and access rights do not change.
        self._dry_runs: dict[tuple[t.Any, ...], tuple[int, dict[str, t.Any]]] = {}
        self._access: dict[tuple[str, str, str, str, str], bool] = {}
        self._origins: t.Sequence[str | None] | None = None    # where each input object came from (set by run)
        self._input_errors: list[dict[str, t.Any]] = []        # problems the caller found in the input
        self._reset()

    def _reset(self) -> None:
        """The state of one plan (a run plans twice when it needs the apply set's lock)."""
        self.warnings: list[str] = []
        self._input_namespaces: set[str] = set()   # Namespaces in this call's input (set by run)
        self.applyset: ApplySet | None = None
        self.parent: Item | None = None             # the apply-set parent, planned and written like an object
        self._recorded = Record()                   # what the live parent recorded before this run
        self._pruned_or_kept = Record()             # members still there after pruning (recorded again)
        self.lock: ApplySetLock | None = None       # held while a run writes or prunes its apply set

    # ------------------------------------------------------------------ entry point
    def run(self, objects: t.Sequence[t.Any], origins: t.Sequence[str | None] | None = None,
            input_errors: t.Sequence[dict[str, t.Any]] = ()) -> dict[str, t.Any]:
        """Plan without the apply-set lock; when the plan writes or prunes, take the lock and plan again under it
        (another run may have changed the set meanwhile), then write. A no-op run and check mode take no lock.

        ``origins`` names where each object came from (``None``, or no list: ``objects[i]``); ``input_errors`` are
        problems the caller found in the input (an unreadable manifest file): they fail the run with the others,
        before any write.
        """
        self._origins = origins
        self._input_errors = list(input_errors)
        try:
            return self._run(objects)
        except _NeedsLock as needed:
            applyset, home = needed.applyset, needed.namespace
        if home is not None:
            # The lock lives in the parent's namespace, which this run creates: that Namespace first (validated and
            # dry-run already; creating it prunes nothing), then the lock.
            self._write_one(home)
        with ApplySetLock(self.connection, applyset.namespace, applyset.name, self.options.lock_timeout) as lock:
            self._reset()
            self.lock = lock
            result = self._run(objects)
        if home is not None:
            entry = next(o for o in result["objects"] if (o["kind"], o["name"]) == ("Namespace", home.name))
            entry.update(action="created", changes=public(home.changes))
            result["diff"].insert(0, {"before_header": f"{home.api_version} {home.label}", "before": {},
                                      "after_header": f"{home.api_version} {home.label}",
                                      "after": strip(home.result) if home.result else {}})
            result["changed"] = True
        if lock.waited_for:
            result.setdefault("warnings", []).append(
                f"waited {lock.waited:.0f} s for the lock of apply set {applyset.label}, held by {lock.waited_for}")
        if lock.release_problem:
            result.setdefault("warnings", []).append(lock.release_problem)
        return result

    def _run(self, objects: t.Sequence[t.Any]) -> dict[str, t.Any]:
        # Every problem at once: each phase goes on with the objects that passed the earlier ones.
        items, errors = self._parse(objects)
        errors = self._input_errors + errors + self._option_errors()
        if self.options.apply_set and self.options.state in ("present", "absent") and not any(
                e["path"].startswith("apply_set") for e in errors):
            self.applyset = ApplySet(self.options.apply_set,
                                     self.options.apply_set_namespace or self.options.namespace or "default")
        self._resolve(items, errors)
        if self.options.state == "observed":
            # Read-only: an object whose kind the server does not serve is reported missing, not an error (the
            # operator that would create it, or its CRD, is absent; the drift report says so).
            unserved = {e["index"] for e in errors if e["path"] == "kind"}
            errors[:] = [e for e in errors if e["index"] not in unserved]
            for item in items:
                if item.index in unserved:
                    item.deferred = "the server does not serve this kind"
        items = _passed(items, errors)
        if errors and self.options.state != "present":
            raise ApplyFailed(_summary("invalid input; nothing was changed", errors), errors)
        self._input_namespaces = {i.name for i in items if i.kind == "Namespace" and i.api_version == "v1"}
        self._read_live(items)
        if self.options.state == "observed":
            return self._observe(items)
        if self.options.state == "absent":
            return self._delete(items)
        members = items
        if self.applyset is not None:
            self.parent = self._parent_item(items, errors)
            items = items + ([self.parent] if self.parent else [])
        self._validate_schemas(items, errors)
        self._plan_all([i for i in _passed(items, errors) if not i.deferred], errors)
        if errors:
            raise ApplyFailed(_summary("objects are invalid or were refused by the API server's dry run; nothing "
                                       "was written", errors), errors, partial={"warnings": self.warnings})
        prunable = self._find_prunable(members, errors) if self.options.prune else []
        if errors:
            raise ApplyFailed(_summary("pruning would delete objects this apply set does not own; nothing was "
                                       "written", errors), errors, partial={"warnings": self.warnings})
        if not self.options.check_mode:
            self._check_access(items, prunable, errors)
            if errors:
                raise ApplyFailed(_summary("this user may not make every change the run needs; nothing was written",
                                           errors), errors, partial={"warnings": self.warnings})
        if self.applyset is not None and not self.options.check_mode and self.lock is None and _writes(
                items, prunable):
            raise _NeedsLock(self.applyset, self._lock_home(items))
        pruned: list[dict[str, t.Any]] = []
        try:
            if not self.options.check_mode:
                self._write(items)
            if self.lock is not None:
                self.lock.verify()   # never prune from a membership another run may be changing
            for obj, resource in prunable:
                pruned.append(self._prune(obj, resource))
            if self.options.prune and not self.options.check_mode:
                self._shrink_parent(members)
            if not self.options.check_mode and self.options.wait_for:
                wait_for_all(self.connection, self.discovery, self.options.wait_for, self.options.wait_timeout)
        except (KubeError, WaitFailed, ApplyFailed) as exc:
            # Whatever stopped the run, say exactly what it had written by then.
            partial = self._partial(items, pruned)
            done = partial["written"] + partial["pruned"]
            what = (f"; written before it stopped: {', '.join(_entry_label(e) for e in done[:20])}"
                    + (f" and {len(done) - 20} more" if len(done) > 20 else "")) if done else "; nothing was written"
            raise ApplyFailed(f"{exc}{what}", getattr(exc, "errors", []), partial=partial) from None
        return self._report(members, pruned)

    def _option_errors(self) -> list[dict[str, t.Any]]:
        errors = []
        if self.options.prune and not self.options.apply_set:
            errors.append({"object": "options", "index": None, "path": "apply_set",
                           "message": "prune needs an apply_set named on purpose: there is no default set, so "
                                      "two runs can never prune each other's objects by accident"})
        for option in ("apply_set", "apply_set_namespace"):
            value = getattr(self.options, option)
            if value is not None and name_problem(value):
                errors.append({"object": "options", "index": None, "path": option, "message": name_problem(value)})
        return errors

    def _partial(self, items: list[Item], pruned: list[dict[str, t.Any]]) -> dict[str, t.Any]:
        written = [{"apiVersion": i.api_version, "kind": i.kind, "namespace": i.namespace, "name": i.name,
                    "action": i.action} for i in sorted(items, key=lambda i: i.index) if i.written]
        return {"changed": bool(written or pruned), "written": written, "pruned": pruned,
                "warnings": list(self.warnings)}

    # ------------------------------------------------------------------ apply set (KEP-3659)
    def _parent_item(self, items: list[Item], errors: list[dict[str, t.Any]]) -> Item | None:
        """The parent records the union of what it recorded and this run's members, so that members written by a
        run that is then interrupted are still found by the next run's prune."""
        if self.applyset is None:
            raise AssertionError("_parent_item needs an apply set")
        parent = Item(-1, {}, PARENT_API_VERSION, PARENT_KIND, self.applyset.name, self.applyset.namespace,
                      rank_override=PARENT_RANK)
        parent.resource = self.discovery.find(PARENT_API_VERSION, PARENT_KIND)
        self._get_live(parent)
        self._recorded, problem = self.applyset.read(parent.live)
        if problem:
            errors.append({"object": "apply_set", "index": None, "path": "apply_set", "message": problem})
            return None
        record = self._recorded.union(_record_of(items))
        if self.options.namespace and any(i.resource is None and not i.namespace for i in items):
            record.namespaces.add(self.options.namespace)  # kinds its CRD brings may be namespaced
        parent.desired = self.applyset.parent(record, {MANAGED_BY_LABEL: FIELD_MANAGER})
        if parent.live is None and parent.namespace in self._input_namespaces:
            parent.deferred = f"its namespace {parent.namespace} is created by this run"
        return parent

    def _shrink_parent(self, members: list[Item]) -> None:
        """After a prune, the parent records only what is left: this run's members and what was kept."""
        parent, applyset = self.parent, self.applyset
        if parent is None or applyset is None:
            return
        record = _record_of(members).union(self._pruned_or_kept)
        record.namespaces.add(applyset.namespace)   # implicit in the parent: read() gives it back
        current = parent.result or parent.live
        if current is not None and applyset.read(current)[0] == record:
            return
        body = applyset.parent(record, {MANAGED_BY_LABEL: FIELD_MANAGER})
        before = parent.live
        parent.result = self._apply(parent, body, force=True, dry_run=False)[1]
        parent.written = True
        parent.changes = diff(strip(before), strip(parent.result))
        parent.action = "created" if before is None else ("updated" if parent.changes else parent.action)

    # ------------------------------------------------------------------ input
    def _parse(self, objects: t.Sequence[t.Any]) -> tuple[list[Item], list[dict[str, t.Any]]]:
        items: list[Item] = []
        errors: list[dict[str, t.Any]] = []
        seen: dict[tuple[str, str, str, str], int] = {}
        for index, obj in enumerate(objects):
            where = self._origin(index)
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
            if _is_secret(desired):
                problem = _fold_string_data(desired)
                if problem:
                    errors.append({"object": where, "index": index, "path": problem[0], "message": problem[1]})
                    continue
            for field in ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation"):
                desired["metadata"].pop(field, None)
            item = Item(index, desired, obj["apiVersion"], obj["kind"], desired["metadata"]["name"],
                        desired["metadata"].get("namespace"))
            if item.key in seen:
                errors.append(item.error("metadata.name", f"duplicate of {self._origin(seen[item.key])}"))
            seen[item.key] = index
            items.append(item)
        items.sort(key=lambda i: (i.rank, i.index))
        return items, errors

    def _origin(self, index: int) -> str:
        return (self._origins[index] if self._origins else None) or f"objects[{index}]"

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
                if self.applyset is not None:
                    labels[PART_OF_LABEL] = self.applyset.id
                annotations = item.desired["metadata"].setdefault("annotations", {})
                annotations.pop(FINGERPRINT_ANNOTATION, None)
                if not _is_secret(item.desired):
                    # A Secret gets no content hash: metadata-only readers could test guesses against it.
                    annotations[FINGERPRINT_ANNOTATION] = fingerprint(item.desired)
                elif not annotations:
                    item.desired["metadata"].pop("annotations")

    # ------------------------------------------------------------------ reading
    def _read_live(self, items: list[Item]) -> None:
        """One labelled list per kind finds what we manage; the rest is settled by the dry runs."""
        listed: dict[tuple[str, str, str, str], dict[str, t.Any]] = {}
        if self.options.state == "present":
            used_in: dict[Resource, set[str]] = {}
            for item in items:
                if item.resource:
                    used_in.setdefault(item.resource, set()).update(
                        [item.namespace] if item.resource.namespaced and item.namespace else [])
            scopes = list(used_in.items())
            per_scope = self._parallel(lambda scope: self._list_scope(*scope), scopes)
            for (resource, _where), found in zip(scopes, per_scope):
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
        rest = [i for i in unlisted if i.key not in listed and not i.deferred]
        if self.options.state == "present":
            # Not ours (yet): most often absent. The dry run that plans it answers 201 when it would create it, and
            # only an object that exists unlabelled is then read: no GET per new object.
            for item in rest:
                item.live_unknown = True
        else:
            self._parallel(self._get_live, rest)

    def _get_live(self, item: Item) -> None:
        resource = _resource_of(item)
        try:
            item.live = self.connection.request("GET", resource.path(item.namespace, item.name))
        except KubeError as exc:
            if exc.status != 404:
                raise
            item.live = None

    def _list_scope(self, resource: Resource, namespaces: set[str]) -> list[dict[str, t.Any]]:
        """A kind used in one namespace is listed there (an account whose rights end at its namespaces can list
        it); one used in several is listed across the cluster, or namespace by namespace if that is forbidden."""
        if len(namespaces) == 1:
            return self._list_managed(resource, next(iter(namespaces)))
        try:
            return self._list_managed(resource)
        except KubeError as exc:
            if exc.status != 403 or not namespaces:
                raise
        return [obj for where in sorted(namespaces) for obj in self._list_managed(resource, where)]

    def _list_managed(self, resource: Resource, namespace: str | None = None) -> list[dict[str, t.Any]]:
        selector = f"{MANAGED_BY_LABEL}={FIELD_MANAGER}"
        if self.applyset is not None:
            selector += f",{PART_OF_LABEL}={self.applyset.id}"
        document = self.connection.request("GET", resource.path(namespace), query={"labelSelector": selector})
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
        # An object that already holds every desired value was validated by the server when it was written.
        custom = [i for i in items if _may_be_custom(i.api_version) and not self._settled(i)]
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

    def _plan_all(self, items: list[Item], errors: list[dict[str, t.Any]]) -> None:
        """Objects already as desired are settled here, without a request; the rest are dry-run in parallel (on a
        no-op run of thousands of objects, a thread pool would cost more than the comparisons themselves)."""
        pending = []
        for item in items:
            if self._settled(item):
                item.action = "unchanged"
            else:
                pending.append(item)
        self._parallel(lambda item: self._plan(item, errors), pending)

    def _plan(self, item: Item, errors: list[dict[str, t.Any]]) -> None:
        """Decide what an object that is not settled needs, by a server-side dry run."""
        live = item.live
        try:
            predicted = self._dry_run(item, item.desired, force=True)
            live = item.live
        except KubeError as exc:
            if _namespace_missing(exc) and item.namespace:
                if item.namespace in self._input_namespaces:
                    item.deferred = f"its namespace {item.namespace} is created by this run"
                    return
                if self.options.check_mode:
                    # An earlier task of the same play may create it, which check mode does not do: say so.
                    item.deferred = f"its namespace {item.namespace} does not exist yet"
                    self.warnings.append(f"{item.label}: namespace {item.namespace} does not exist; a real run "
                                         "fails unless an earlier task creates it")
                    return
                errors.append(item.error("metadata.namespace", f"namespace {item.namespace} does not exist and is "
                                                               "not among the objects of this call"))
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
        if self.options.drift == "report":
            if self._input_unchanged(item, live):
                # Same input as our last apply: every difference is someone else's edit (a change, or a removal
                # that leaves the field to nobody). Report it all, write nothing.
                owners = ownership(live)
                owners.pop(self.options.field_manager, None)
                item.drift = [{**c, "managers": sorted(n for n, paths in owners.items() if owns(paths, c["_path"]))}
                              for c in item.changes]
                item.body, item.result, item.changes, item.action = None, live, [], "unchanged"
                return
            # Only what no other manager set: their fields stay out of our configuration, at any depth.
            body, kept = without_foreign(item.desired, live, self.options.field_manager)
            item.drift = kept
            if body != item.desired:
                item.body = body
                try:
                    predicted = self._dry_run(item, body, force=False)
                except KubeError as exc:
                    errors.extend(_server_errors(item, exc))
                    return
                item.result = predicted
                item.changes = diff(strip(live), strip(predicted))
                item.action = "updated" if item.changes else "unchanged"
            return
        item.drift = self._drift(item, live)

    def _settled(self, item: Item) -> bool:
        """Every desired value is live, and every field we own is still desired: nothing to send."""
        if item.live is None or not item.desired:
            return False
        ours = ownership(item.live).get(self.options.field_manager, set())
        wanted = dict_paths(item.desired)
        return contained(item.desired, item.live) and all(path in wanted for path in ours)

    @staticmethod
    def _input_unchanged(item: Item, live: dict[str, t.Any]) -> bool:
        wanted = ((item.desired["metadata"].get("annotations") or {}).get(FINGERPRINT_ANNOTATION))
        annotations = (live.get("metadata") or {}).get("annotations") or {}
        return wanted is not None and annotations.get(FINGERPRINT_ANNOTATION) == wanted

    def _drift(self, item: Item, live: dict[str, t.Any]) -> list[dict[str, t.Any]]:
        """Changes that undo someone else's edit: the input is unchanged since our last apply, or another manager
        owns the field now."""
        unchanged_input = self._input_unchanged(item, live)
        owners = ownership(live)
        ours = owners.pop(self.options.field_manager, set())
        drift = []
        for change in item.changes:
            path = change["_path"]
            others = sorted(name for name, paths in owners.items() if owns(paths, path))
            if unchanged_input or (others and not owns(ours, path)):
                drift.append({**change, "managers": others})
        return drift

    # ------------------------------------------------------------------ access
    def _check_access(self, items: list[Item], prunable: list[tuple[dict[str, t.Any], Resource]],
                      errors: list[dict[str, t.Any]]) -> None:
        """The rights the dry runs did not already prove, asked with SelfSubjectAccessReviews before the first write,
        so a missing one (delete, most often) stops the run before it changed anything. A dry run is authorized as
        its write is (patch, and create when it would create), so only these are asked: create and patch for objects
        whose dry run waits for a Namespace or CRD of this run, delete for what prune removes, and the lock's
        renewal (and its create when the lock's namespace is written first). A no-op run asks nothing."""
        needed: set[tuple[str, str, str, str, str]] = set()
        for item in items:
            resource = item.resource
            if resource is None or not item.deferred:
                continue
            namespace = (item.namespace or "") if resource.namespaced else ""
            # The apply-set parent is asked for by name: an account may be allowed only its own parents.
            name = item.name if item is self.parent else ""
            needed.update((("create", resource.group, resource.plural, namespace, ""),
                           ("patch", resource.group, resource.plural, namespace, name)))
        for obj, resource in prunable:
            namespace = (obj["metadata"].get("namespace") or "") if resource.namespaced else ""
            needed.add(("delete", resource.group, resource.plural, namespace, ""))
        if self.applyset is not None and self.lock is None and _writes(items, prunable):
            # The apply set's lock (lock.py): a renewal refused halfway through would stop the run there. Reading
            # and creating the lock fail before the first write; releasing it is reported if refused.
            lease, home = lease_name(self.applyset.name), self.applyset.namespace
            needed.add(("update", "coordination.k8s.io", "leases", home, lease))
            if self._lock_home(items) is not None:
                needed.add(("create", "coordination.k8s.io", "leases", home, ""))
        wanted = sorted(needed)
        asked = [w for w in wanted if w not in self._access]   # answers of this run's first plan still hold
        self._access.update(zip(asked, self._parallel(self._allowed, asked)))
        for (verb, group, plural, namespace, name), allowed in ((w, self._access[w]) for w in wanted):
            if not allowed:
                what = (f"{plural}.{group}" if group else plural) + (f" {name}" if name else "")
                where = f"in namespace {namespace}" if namespace else "at cluster scope"
                errors.append({"object": "access", "index": None, "path": "",
                               "message": f"this user cannot {verb} {what} {where}"})

    def _lock_home(self, items: list[Item]) -> Item | None:
        """The apply set's Namespace when this run creates it: the lock lives there, so it is written first."""
        home = self.applyset.namespace if self.applyset is not None else None
        return next((i for i in items if i.kind == "Namespace" and i.api_version == "v1" and i.name == home
                     and i.live is None), None)

    def _allowed(self, attributes: tuple[str, str, str, str, str]) -> bool:
        verb, group, plural, namespace, name = attributes
        wanted = {"verb": verb, "group": group, "resource": plural, "namespace": namespace}
        if name:
            wanted["name"] = name
        review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                  "spec": {"resourceAttributes": wanted}}
        answer = self.connection.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                                         body=review, counts_as_write=False)
        return bool((answer.get("status") or {}).get("allowed"))

    # ------------------------------------------------------------------ writing
    def _dry_run(self, item: Item, body: dict[str, t.Any], *, force: bool) -> dict[str, t.Any]:
        """The server's answer to applying ``body``; an object whose live state was unknown is read only when the
        answer says it exists (200, not 201). Answers are reused for the same body against the same live state."""
        live = item.live
        key = (item.key, force, body is item.desired, (live.get("metadata") or {}).get("resourceVersion") if live else None)
        cached = self._dry_runs.get(key)
        if cached is None:
            status, answer = self._apply(item, body, force=force, dry_run=True)
            predicted = t.cast(dict[str, t.Any], answer)
            self._dry_runs[key] = (status, predicted)
        else:
            status, predicted = cached[0], copy.deepcopy(cached[1])
        if item.live_unknown:
            item.live_unknown = False
            if status != 201:
                self._get_live(item)
                if item.live is not None:
                    return self._dry_run(item, body, force=force)   # against what it now is
        return predicted

    def _apply(self, item: Item, body: dict[str, t.Any], *, force: bool, dry_run: bool) -> tuple[int, t.Any]:
        """Server-side apply of ``body``: the HTTP status (201 when it creates the object) and the object."""
        resource = _resource_of(item)
        query = {"fieldManager": self.options.field_manager, "fieldValidation": "Strict",
                 "force": "true" if force else "false", "dryRun": "All" if dry_run else None}
        return self.connection.exchange("PATCH", resource.path(item.namespace, item.name), query=query,
                                        body=body, content_type="application/apply-patch+yaml")

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
        status, result = self._apply(item, item.body or item.desired, force=self.options.drift == "revert",
                                     dry_run=False)
        if item.action == "created" and status != 201:
            # Created by someone else between this run's dry run and its write.
            item.action = "updated"
            self.warnings.append(f"{item.label} was created by another client while this run planned; it was "
                                 "updated instead")
        item.written = True
        item.result = result
        item.changes = diff(strip(item.live), strip(result))

    def _parallel(self, work: t.Callable[[t.Any], t.Any], inputs: t.Sequence[t.Any]) -> list[t.Any]:
        """Independent requests in parallel (bounded). On the first failure the queued ones are cancelled (the
        running ones finish) and that failure is raised."""
        if len(inputs) <= 1 or self.options.workers <= 1:
            return [work(value) for value in inputs]
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.options.workers)
        try:
            futures = [pool.submit(work, value) for value in inputs]
            done, _pending = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_EXCEPTION)
            failed = next((f for f in futures if f in done and f.exception() is not None), None)
            if failed is not None:
                pool.shutdown(wait=True, cancel_futures=True)
                raise t.cast(BaseException, failed.exception())
            return [future.result() for future in futures]
        finally:
            pool.shutdown(wait=True)

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
        self._plan_all(ready, errors)

    # ------------------------------------------------------------------ prune, delete, observe
    def _find_prunable(self, items: list[Item], errors: list[dict[str, t.Any]]) -> list[tuple[dict[str, t.Any], Resource]]:
        """Objects of this apply set that left the input. An object is ours only when it carries both labels and
        our field manager applied the apply-set label (a copied manifest with our labels is not ours)."""
        wanted = {item.key for item in items}
        resources = list(_unique(item.resource for item in items if item.resource))
        for api_version, kind in self.options.prune_kinds:
            resource = self.discovery.find(api_version, kind)
            if resource is None:
                self.warnings.append(f"prune_kinds: the server does not serve {kind} in {api_version}; "
                                     "objects of that kind were not looked for")
            elif resource not in resources:
                resources.append(resource)
        searched = {group_kind(r.api_version, r.kind) for r in resources}
        for recorded in sorted(self._recorded.group_kinds - searched):
            resource = self.discovery.find_group_kind(*split_group_kind(recorded))
            if resource is None:
                self.warnings.append(f"the apply set recorded members of kind {recorded}, which the server no "
                                     "longer serves: they were not looked for")
            else:
                resources.append(resource)
        # Members live where the parent recorded them (or where this run puts them); anywhere else is a copy.
        if self.applyset is None:
            raise AssertionError("prune needs an apply set")
        namespaces = self._recorded.namespaces | _record_of(items).namespaces | {self.applyset.namespace}
        found = []
        for resource in resources:
            for obj in self._list_managed(resource):
                meta = obj["metadata"]
                if (resource.api_version, resource.kind, meta.get("namespace") or "", meta["name"]) in wanted:
                    continue
                label = f"{resource.kind} {_where(meta.get('namespace'), meta['name'])}"
                if not self._applied_by_us(obj):
                    self.warnings.append(f"{label} carries this apply set's labels but was not applied by field "
                                         f"manager {self.options.field_manager}: not pruned")
                    continue
                if resource.namespaced and meta.get("namespace") not in namespaces:
                    self.warnings.append(f"{label} carries this apply set's labels in a namespace its parent "
                                         f"{self.applyset.label} never recorded: not pruned")
                    continue
                kept = Record({group_kind(resource.api_version, resource.kind)},
                              {meta["namespace"]} if meta.get("namespace") else set())
                if resource.kind in CONTAINER_KINDS:
                    if not self.options.prune_namespaces:
                        self.warnings.append(f"{label} left the input but is not pruned: deleting it would delete "
                                             "everything in it (set prune_namespaces to prune it when empty)")
                        self._pruned_or_kept = self._pruned_or_kept.union(kept)
                        continue
                    contents, foreign = self._contents(resource, meta["name"])
                    if foreign:
                        self._pruned_or_kept = self._pruned_or_kept.union(kept)
                        errors.append({"object": f"{resource.api_version} {label}", "index": None, "path": "",
                                       "message": "would be pruned, but holds objects this apply set does not own: "
                                                  + ", ".join(foreign[:10])
                                                  + (f" and {len(foreign) - 10} more" if len(foreign) > 10 else "")})
                        continue
                    obj["_contents"] = contents
                found.append((obj, resource))
        found.sort(key=lambda pair: -KIND_RANK.get(pair[1].kind, CUSTOM_RANK))
        return found

    def _is_member(self, obj: dict[str, t.Any]) -> bool:
        """Created by this apply set: its part-of label, applied by our field manager (a copy is not a member)."""
        labels = (obj.get("metadata") or {}).get("labels") or {}
        return self.applyset is not None and labels.get(PART_OF_LABEL) == self.applyset.id \
            and self._applied_by_us(obj)

    def _applied_by_us(self, obj: dict[str, t.Any]) -> bool:
        for entry in (obj.get("metadata") or {}).get("managedFields") or []:
            if entry.get("manager") != self.options.field_manager or entry.get("operation") != "Apply":
                continue
            labels = ((entry.get("fieldsV1") or {}).get("f:metadata") or {}).get("f:labels") or {}
            if f"f:{PART_OF_LABEL}" in labels:
                return True
        return False

    def _contents(self, resource: Resource, name: str) -> tuple[list[str], list[str]]:
        """What deleting a Namespace (its objects) or a CRD (its custom resources) would take with it: (ours, others)."""
        if resource.kind == "Namespace":
            listed = [(r, self._list_all(r, namespace=name)) for r in self.discovery.namespaced_listable()]
        else:
            crd = self.connection.request("GET", resource.path(None, name))
            spec = crd.get("spec") or {}
            listed = []
            for version in spec.get("versions") or []:
                if version.get("served"):
                    kind = str((spec.get("names") or {}).get("kind") or "")
                    found = self.discovery.find(f"{spec.get('group')}/{version['name']}", kind)
                    if found is not None:
                        listed.append((found, self._list_all(found)))
                        break
        ours: list[str] = []
        others: list[str] = []
        for inner, objects in listed:
            for obj in objects:
                meta = obj.get("metadata") or {}
                if _bootstrapped(inner, meta):
                    continue
                label = f"{inner.kind} {_where(meta.get('namespace'), meta.get('name'))}"
                (ours if self._is_member(obj) else others).append(label)
        return ours, others

    def _list_all(self, resource: Resource, namespace: str | None = None) -> list[dict[str, t.Any]]:
        document = self.connection.request("GET", resource.path(namespace))
        return list(document.get("items") or [])

    def _prune(self, obj: dict[str, t.Any], resource: Resource) -> dict[str, t.Any]:
        meta = obj["metadata"]
        self._delete_object(resource, meta)
        entry = {"apiVersion": resource.api_version, "kind": resource.kind, "namespace": meta.get("namespace"),
                 "name": meta["name"], "action": "pruned"}
        if "_contents" in obj:
            entry["contents"] = obj["_contents"]
        return entry

    def _delete_object(self, resource: Resource, meta: t.Mapping[str, t.Any]) -> None:
        """Deletes the object we read, not a same-named one created since (its uid is the precondition); gone
        already is fine."""
        # With a body the server reads every delete option from it and ignores the query: dryRun goes in both.
        query = {"dryRun": "All" if self.options.check_mode else None, "propagationPolicy": "Background"}
        body: dict[str, t.Any] | None = None
        if meta.get("uid"):
            body = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background",
                    "preconditions": {"uid": meta["uid"]}}
            if self.options.check_mode:
                body["dryRun"] = ["All"]
        try:
            self.connection.request("DELETE", resource.path(meta.get("namespace"), meta["name"]), query=query,
                                    body=body)
        except KubeError as exc:
            if exc.status != 404:
                raise

    def _delete(self, items: list[Item]) -> dict[str, t.Any]:
        """Deletes what exists; with an apply set, only its members (what this apply set created), never a
        Namespace or CRD (all that lives in it would go too): anything else is kept, with a warning."""
        for item in reversed(items):
            if item.live is None or item.resource is None:
                continue
            if self.applyset is not None:
                label = f"{item.kind} {_where(item.namespace, item.name)}"
                if not self._is_member(item.live):
                    self.warnings.append(f"{label} was not created by apply set {self.applyset.label}: kept")
                    item.action = "kept"
                    continue
                if item.kind in CONTAINER_KINDS:
                    self.warnings.append(f"{label} is kept: deleting it would delete everything in it")
                    item.action = "kept"
                    continue
            self._delete_object(item.resource, item.live.get("metadata") or {})
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
        applyset = self._applyset_report(diffs)
        changed = changed or applyset.get("action") in ("created", "updated")
        return {
            "changed": changed,
            "objects": objects,
            "counts": dict(sorted(collections.Counter(o["action"] for o in objects).items())),
            "apply_set": applyset,
            "pruned": pruned,
            "drift_total": sum(o["drift"]["count"] for o in objects),
            "reverted_total": sum(o["reverted"] for o in objects),
            "requests": {"total": self.connection.request_count, "writes": self.connection.write_count,
                         "by_method": dict(self.connection.requests)},
            "diff": diffs,
            "warnings": list(self.warnings),
        }

    def _applyset_report(self, diffs: list[dict[str, t.Any]]) -> dict[str, t.Any]:
        parent, applyset = self.parent, self.applyset
        if parent is None or applyset is None:
            return {}
        if parent.deferred and parent.action == "unchanged":
            parent.action = "created"  # check mode: its namespace is created by this run
        record = applyset.read(parent.result or parent.desired)[0]
        if parent.changes or (parent.deferred and self.options.check_mode):
            diffs.append({"before_header": f"{PARENT_API_VERSION} {parent.label} (apply-set parent)",
                          "after_header": f"{PARENT_API_VERSION} {parent.label} (apply-set parent)",
                          "before": strip(parent.live) if parent.live else {},
                          "after": strip(parent.result if parent.result else parent.desired)})
        return {"name": applyset.name, "namespace": applyset.namespace, "id": applyset.id,
                "parent": f"{PARENT_API_VERSION} {applyset.label}", "action": parent.action,
                "group_kinds": sorted(record.group_kinds), "namespaces": sorted(record.namespaces)}


def noteworthy(entry: t.Mapping[str, t.Any]) -> bool:
    """An object entry a person needs to see: it changed (or would), drifted, is missing or was deferred."""
    return (entry["action"] != "unchanged" or bool(entry["drift"]["count"]) or "deferred" in entry)


def sized(result: dict[str, t.Any], report: str) -> dict[str, t.Any]:
    """The result as returned to Ansible: with report=changed only the noteworthy object entries (the counts
    cover all of them), so a no-op run over thousands of objects returns a few lines, not thousands."""
    if report == "all":
        return result
    return {**result, "objects": [entry for entry in result["objects"] if noteworthy(entry)]}


_BUILTIN_GROUPS = frozenset({"", "apps", "batch", "autoscaling", "policy"})


def _may_be_custom(api_version: str) -> bool:
    """Custom resources never use the built-in groups; *.k8s.io groups are reserved for Kubernetes itself."""
    group = api_version.rpartition("/")[0]
    return group not in _BUILTIN_GROUPS and not group.endswith(".k8s.io")


def _writes(items: list[Item], prunable: list[tuple[dict[str, t.Any], Resource]]) -> bool:
    """The plan writes or prunes something (an object deferred to after its Namespace or CRD is written too)."""
    return bool(prunable) or any(i.action in ("created", "updated") or i.deferred for i in items)


def _passed(items: list[Item], errors: list[dict[str, t.Any]]) -> list[Item]:
    """The items no error names (by their input index)."""
    failed = {e.get("index") for e in errors}
    return [i for i in items if i.index not in failed]


def _record_of(items: t.Iterable[Item]) -> Record:
    """The group-kinds and namespaces of the members among ``items``."""
    return Record({group_kind(i.api_version, i.kind) for i in items if i.rank_override is None},
                  {i.namespace for i in items if i.namespace and i.rank_override is None})


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


# Field paths inside the API server's messages: strict decoding ('unknown field "spec.x"') and server-side apply
# ('.spec.x: field not declared in schema', '.spec.replicas: expected numeric ...').
_UNKNOWN_FIELD = re.compile(r'unknown field "([^"]+)"')
_APPLY_PATH = re.compile(r'(?:^|: |\n)\.([A-Za-z0-9_$][^\s:]*): ([^\n]+)')


def _server_errors(item: Item, exc: KubeError) -> list[dict[str, t.Any]]:
    errors = []
    for cause in exc.causes or [{"message": str(exc)}]:
        message = str(cause.get("message") or cause.get("reason") or exc)
        field = str(cause.get("field") or "")
        if field:
            errors.append(item.error(field, message))
            continue
        unknown = _UNKNOWN_FIELD.findall(message)
        if unknown:
            errors += [item.error(path, "field not declared in schema") for path in unknown]
            continue
        located = _APPLY_PATH.findall(message)
        if located:
            errors += [item.error(path, text.strip()) for path, text in located]
            continue
        errors.append(item.error("", message))
    return errors


def _summary(what: str, errors: list[dict[str, t.Any]]) -> str:
    lines = [f"{what} ({len(errors)} problem{'s' if len(errors) != 1 else ''}):"]
    for error in errors:
        where = f"{error['object']}: {error['path']}" if error["path"] else error["object"]
        lines.append(f"  {where}: {error['message']}")
    return "\n".join(lines)


LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# What the cluster itself puts in every namespace, or derives from other objects: no one's data.
_BOOTSTRAPPED = {("ServiceAccount", "default"), ("ServiceAccount", "builder"), ("ServiceAccount", "deployer"),
                 ("ConfigMap", "kube-root-ca.crt"), ("ConfigMap", "openshift-service-ca.crt")}
_DERIVED_KINDS = frozenset({"Event", "EndpointSlice", "Endpoints", "PodMetrics", "LocalSubjectAccessReview"})


def _entry_label(entry: t.Mapping[str, t.Any]) -> str:
    return f"{entry['kind']} {_where(entry.get('namespace'), entry.get('name'))} ({entry.get('action')})"


def _where(namespace: str | None, name: str | None) -> str:
    return f"{namespace}/{name}" if namespace else str(name)


def _bootstrapped(resource: Resource, meta: t.Mapping[str, t.Any]) -> bool:
    """Objects the cluster creates in every namespace, events and objects owned by another object (they go with
    their owner, which is listed itself)."""
    name = str(meta.get("name") or "")
    return (resource.kind in _DERIVED_KINDS or (resource.kind, name) in _BOOTSTRAPPED or name.startswith("system:")
            or bool(meta.get("ownerReferences")))


def _is_secret(obj: t.Mapping[str, t.Any]) -> bool:
    return obj.get("kind") == "Secret" and obj.get("apiVersion") == "v1"


def _fold_string_data(secret: dict[str, t.Any]) -> tuple[str, str] | None:
    """stringData into data (base64), as the API server stores it, so a Secret compares with its live copy by content."""
    string_data = secret.pop("stringData", None)
    if string_data is None:
        return None
    if not isinstance(string_data, dict):
        return "stringData", "must be a mapping of strings"
    data = secret.setdefault("data", {}) or {}
    secret["data"] = data
    for key, value in string_data.items():
        if not isinstance(value, str):
            return f"stringData.{key}", "must be a string"
        data[key] = base64.b64encode(value.encode()).decode()
    return None


def _secret_field(path: str) -> bool:
    return path.split(".")[0] in ("data", "stringData") or LAST_APPLIED in path


def _redact(changes: list[dict[str, t.Any]], secret: bool) -> list[dict[str, t.Any]]:
    if not secret:
        return changes
    out = []
    for change in changes:
        if _secret_field(change["path"]):
            change = {**change, "before": REDACTED if change["before"] is not None else None,
                      "after": REDACTED if change["after"] is not None else None}
        out.append(change)
    return out


def _redact_object(obj: dict[str, t.Any], secret: bool) -> dict[str, t.Any]:
    if not secret:
        return obj
    out = {k: (dict.fromkeys(v, REDACTED) if k in ("data", "stringData") and isinstance(v, dict) else v)
           for k, v in obj.items()}
    metadata: dict[str, t.Any] = dict(out.get("metadata") or {})
    annotations = dict(metadata.get("annotations") or {})
    if LAST_APPLIED in annotations:
        annotations[LAST_APPLIED] = REDACTED
        out["metadata"] = {**metadata, "annotations": annotations}
    return out


def secret_values(objects: t.Iterable[t.Any]) -> set[str]:
    """Every Secret value in the input, as given and decoded: for the caller to mask wherever it logs."""
    found: set[str] = set()
    for obj in objects:
        if not isinstance(obj, dict) or not _is_secret(obj):
            continue
        for field in ("data", "stringData"):
            values = obj.get(field)
            if not isinstance(values, dict):
                continue
            for value in values.values():
                if isinstance(value, str) and value:
                    found.add(value)
                    if field == "data":
                        with contextlib.suppress(ValueError, UnicodeDecodeError):
                            found.add(base64.b64decode(value, validate=True).decode())
    return {v for v in found if len(v) >= 3}
