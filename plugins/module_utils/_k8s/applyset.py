# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Kubernetes ApplySet convention (KEP-3659), as kubectl implements it.

An apply set is recorded on a parent object (here a ConfigMap, a parent kind kubectl supports; its default, a
Secret, would make an automation account need the right to create Secrets, which can mint tokens): its ``applyset.kubernetes.io/id``
label holds an id derived from the parent's group, kind, namespace and name, its annotations name the tool and the
group-kinds and namespaces its members live in. Members carry ``applyset.kubernetes.io/part-of: <id>``. A pruner
lists only the recorded group-kinds, with that label, and only deletes what it finds there.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import typing as t

from .._common.names import COLLECTION, DNS1123_SUBDOMAIN

ID_LABEL = "applyset.kubernetes.io/id"
PART_OF_LABEL = "applyset.kubernetes.io/part-of"
TOOLING_ANNOTATION = "applyset.kubernetes.io/tooling"
GROUP_KINDS_ANNOTATION = "applyset.kubernetes.io/contains-group-kinds"
NAMESPACES_ANNOTATION = "applyset.kubernetes.io/additional-namespaces"

TOOL = COLLECTION
# <tool>/<semantic version> as the KEP asks; tests check it against galaxy.yml.
TOOLING = f"{TOOL}/v0.1.0"

PARENT_API_VERSION = "v1"
PARENT_KIND = "ConfigMap"

# A ConfigMap's name: a DNS subdomain.


def applyset_id(name: str, namespace: str, kind: str = PARENT_KIND, group: str = "") -> str:
    """``applyset-<base64url(sha256(name.namespace.kind.group)), unpadded>-v1``, as kubectl computes it."""
    digest = hashlib.sha256(".".join((name, namespace, kind, group)).encode()).digest()
    return "applyset-" + base64.urlsafe_b64encode(digest).decode().rstrip("=") + "-v1"


def group_kind(api_version: str, kind: str) -> str:
    """``Kind.group``, or ``Kind`` for the core group (Kubernetes' GroupKind string)."""
    group = api_version.rpartition("/")[0]
    return f"{kind}.{group}" if group else kind


def split_group_kind(value: str) -> tuple[str, str]:
    kind, _sep, group = value.partition(".")
    return group, kind


def name_problem(name: str) -> str:
    """Why ``name`` cannot name a parent, or an empty string."""
    if len(name) > 253 or not DNS1123_SUBDOMAIN.match(name):
        return "must be a lowercase DNS subdomain (letters, digits, '-' and '.'), at most 253 characters"
    return ""


@dataclasses.dataclass
class Record:
    """What a parent says about its members."""

    group_kinds: set[str] = dataclasses.field(default_factory=set)
    namespaces: set[str] = dataclasses.field(default_factory=set)

    def union(self, other: Record) -> Record:
        return Record(self.group_kinds | other.group_kinds, self.namespaces | other.namespaces)


@dataclasses.dataclass(frozen=True)
class ApplySet:
    name: str
    namespace: str

    @functools.cached_property
    def id(self) -> str:   # asked of every member: the hash once
        return applyset_id(self.name, self.namespace)

    @property
    def label(self) -> str:
        return f"{PARENT_KIND} {self.namespace}/{self.name}"

    def parent(self, record: Record, extra_labels: t.Mapping[str, str] | None = None) -> dict[str, t.Any]:
        """The parent object that records ``record`` (additional namespaces exclude the parent's own)."""
        annotations = {TOOLING_ANNOTATION: TOOLING, GROUP_KINDS_ANNOTATION: ",".join(sorted(record.group_kinds))}
        others = sorted(record.namespaces - {self.namespace})
        if others:
            annotations[NAMESPACES_ANNOTATION] = ",".join(others)
        return {"apiVersion": PARENT_API_VERSION, "kind": PARENT_KIND,
                "metadata": {"name": self.name, "namespace": self.namespace,
                             "labels": {**(extra_labels or {}), ID_LABEL: self.id}, "annotations": annotations}}

    def read(self, live: t.Mapping[str, t.Any] | None) -> tuple[Record, str]:
        """The record of a live parent, and why it is not ours to use (empty when it is)."""
        if live is None:
            return Record(), ""
        meta = live.get("metadata") or {}
        labels = meta.get("labels") or {}
        annotations = meta.get("annotations") or {}
        tooling = annotations.get(TOOLING_ANNOTATION)
        if labels.get(ID_LABEL) != self.id or tooling is None:
            return Record(), (f"{self.label} exists and is not the parent of apply set {self.name}; it is left "
                              "alone: choose another apply_set or apply_set_namespace")
        if tooling.partition("/")[0] != TOOL:
            return Record(), (f"{self.label} is the parent of an apply set managed by {tooling}; it is left alone: "
                              "choose another apply_set or apply_set_namespace")
        return Record({v for v in str(annotations.get(GROUP_KINDS_ANNOTATION) or "").split(",") if v},
                      {v for v in str(annotations.get(NAMESPACES_ANNOTATION) or "").split(",") if v}
                      | {self.namespace}), ""


def lease_name(parent: str) -> str:
    """The name of the Lease that locks the apply set whose parent is ``parent`` (lock.py; the RBAC and the access
    reviews name it too, without the client)."""
    name = f"{parent}-lock"
    if len(name) <= 253:
        return name
    return f"{parent[:236]}-{hashlib.sha256(parent.encode()).hexdigest()[:10]}-lock"
