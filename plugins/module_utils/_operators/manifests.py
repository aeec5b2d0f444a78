# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""An operator's release files: where they are, their checksums, and the objects they make once in place.

Layout of a local directory (air-gapped sites): ``<dir>/<operator>/<version>/<file>``, the files named as upstream
publishes them (``kubevirt/v1.9.0/kubevirt-operator.yaml``); for an operator with no upstream file list, every
``*.yaml``/``*.yml`` there in name order. Checksums are keyed ``<operator>/<file>``.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import os
import typing as t

from .._k8s.manifests import ManifestError, objects_of
from .._k8s.parse import parse as input_stage
from .catalog import Operator


@dataclasses.dataclass(frozen=True)
class Source:
    key: str          # "<operator>/<file>", the checksum key
    location: str     # a URL or an absolute path


def sources(op: Operator, version: str, directory: str, url: str,
            named: t.Callable[[str], str]) -> tuple[list[Source], str | None]:
    """Where each release file of ``op`` at ``version`` is read from; the problem when there is none (options named
    by ``named``, settings.Settings.named)."""
    if directory:
        folder = os.path.join(directory, op.key, version)
        names = list(op.files)
        if not names:
            try:
                names = sorted(n for n in os.listdir(folder) if n.endswith((".yaml", ".yml")))
            except OSError as exc:
                return [], f"{op.title}: cannot list {folder}: {exc.strerror}"
            if not names:
                return [], f"{op.title}: {folder} has no *.yaml file"
        return [Source(f"{op.key}/{n}", os.path.join(folder, n)) for n in names], None
    pattern = url or op.url
    if not pattern or not op.files:
        return [], (f"{op.title}: upstream publishes no release manifests of it; put its files under "
                    f"{named('manifests_dir')}/{op.key}/{version}/ or install it through OLM")
    return [Source(f"{op.key}/{n}", pattern.format(version=version, file=n, operator=op.key)) for n in op.files], None


def checksum_problem(source: Source, content: bytes, expected: str | None,
                     named: t.Callable[[str], str]) -> str | None:
    """``expected`` is ``sha256:<hex>`` (or bare hex, sha256); None when it matches or none is given."""
    if not expected:
        return None
    algorithm, _sep, digest = expected.rpartition(":")
    algorithm = algorithm or "sha256"
    if algorithm not in hashlib.algorithms_guaranteed:
        return f"{named('checksums')}[{source.key!r}]: unknown algorithm {algorithm!r} (use sha256:<hex>)"
    actual = hashlib.new(algorithm, content).hexdigest()
    if actual.lower() != digest.strip().lower():
        return (f"{source.location}: {algorithm} is {actual}, not {digest.strip()} as {named('checksums')}"
                f"[{source.key!r}] says; nothing was applied")
    return None


KUSTOMIZE_GROUP = "kustomize.config.k8s.io"


def parse(source: Source, content: bytes) -> tuple[list[dict[str, t.Any]], list[str]]:
    """The file's objects, or every problem of it, each naming the file and the document: checked as the apply's
    first stage checks its input, so a file that is no release manifest is refused before any operator is written."""
    try:
        objects = objects_of(source.location, content.decode("utf-8"))
    except UnicodeDecodeError:
        return [], [f"{source.location}: is not UTF-8 text"]
    except ManifestError as exc:
        return [], [f"{source.location}: {exc}"]
    problems = []
    for index, obj in enumerate(objects):
        where = f"{source.location}: object {index + 1}"
        if isinstance(obj, dict) and str(obj.get("apiVersion", "")).startswith(KUSTOMIZE_GROUP + "/"):
            problems.append(f"{where}: is a kustomize {obj.get('kind')}, not a Kubernetes object; remove the file "
                            "from the release files' directory (every *.yaml there is applied)")
    if problems:
        return [], problems
    _items, refused = input_stage(objects, [f"{source.location}: object {i + 1}" for i in range(len(objects))])
    if refused:
        return [], [str(p) for p in refused]
    return objects, []


# Kinds without a namespace (as the API server defines them); everything else is namespaced.
CLUSTER_KINDS = frozenset({
    "Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "PriorityClass", "StorageClass",
    "CSIDriver", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService",
    "SecurityContextConstraints", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
})


def place(op: Operator, objects: t.Sequence[dict[str, t.Any]], namespace: str,
          skip: t.Collection[tuple[str, str, str]] = ()) -> tuple[list[dict[str, t.Any]], list[str]]:
    """The objects as this site installs them, and a note for each thing changed on the way.

    A colocated operator watches its CR only in its own namespace, so it moves into the operands' ``namespace``
    (HCO's layout), with every reference to its namespace (as kustomize's namespace transformer moves them).
    ``skip``: (kind, namespace, name) the operands' apply set writes (virt-operator's files carry the
    kubevirt-cluster-critical PriorityClass HCO writes as an operand); they stay with the operands."""
    target = namespace if op.colocated else op.namespace
    placed, notes = [], []
    for obj in objects:
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        kind = obj.get("kind")
        if kind not in CLUSTER_KINDS and meta.get("namespace", op.namespace) == op.namespace:
            meta["namespace"] = target
        if kind == "Namespace" and meta.get("name") == op.namespace:
            meta["name"] = target
        _move_references(obj, op.namespace, target)
        if (kind, meta.get("namespace") or "", meta.get("name")) in skip:
            notes.append(f"{kind} {meta.get('name')}: left to the operands' apply set, which writes it too")
            continue
        placed.append(obj)
    if target != op.namespace:
        notes.append(f"{op.title}: installed in {target} (its files say {op.namespace}), where its operand lives")
    return placed, notes


def _move_references(obj: dict[str, t.Any], old: str, new: str) -> None:
    if old == new:
        return
    kind = obj.get("kind")
    if kind in ("RoleBinding", "ClusterRoleBinding"):
        for subject in obj.get("subjects") or []:
            if subject.get("kind") == "ServiceAccount" and subject.get("namespace") == old:
                subject["namespace"] = new
    services = []
    if kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        services = [(w.get("clientConfig") or {}).get("service") for w in obj.get("webhooks") or []]
    elif kind == "CustomResourceDefinition":
        conversion = (obj.get("spec") or {}).get("conversion") or {}
        services = [((conversion.get("webhook") or {}).get("clientConfig") or {}).get("service")]
    elif kind == "APIService":
        services = [(obj.get("spec") or {}).get("service")]
    for service in services:
        if isinstance(service, dict) and service.get("namespace") == old:
            service["namespace"] = new
