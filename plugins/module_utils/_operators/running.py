# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the cluster runs: each operator's version, read where the guides read it.

From release manifests: the operator Deployment's ``app.kubernetes.io/version`` label, else its image tag (the
release files pin ``...:v1.9.0``), else the operand CR's observed version. Through OLM: the Subscription's installed
CSV.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .._k8s.applyset import PART_OF_LABEL, applyset_id
from .._k8s.client import KubeError
from .catalog import Operator
from .steps import Running


def get(connection: t.Any, path: str) -> dict[str, t.Any] | None:
    try:
        return t.cast("dict[str, t.Any]", connection.request("GET", path))
    except KubeError as exc:
        if exc.status == 404:
            return None
        raise


def _versioned(deployment: t.Mapping[str, t.Any]) -> tuple[str | None, str]:
    """The version and where it was read (label or image)."""
    label = ((deployment.get("metadata") or {}).get("labels") or {}).get("app.kubernetes.io/version")
    if label:
        return str(label), "label app.kubernetes.io/version"
    containers = (((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []
    image = str(containers[0].get("image", "")) if containers else ""
    return (image.rsplit(":", 1)[-1] if ":" in image.rsplit("/", 1)[-1] else None), f"image {image}"


def operand_path(op: Operator, namespace: str, discovery: t.Any) -> str | None:
    """The collection path of ``op``'s operand kind, None when the server does not serve it."""
    if op.operand is None:
        return None
    resource = discovery.find(op.operand.api_version, op.operand.kind)
    return resource.path(namespace if resource.namespaced else None, None) if resource else None


def from_manifests(connection: t.Any, discovery: t.Any, op: Operator, namespace: str,
                   apply_set: str = "") -> Running | None:
    """``namespace``: where this site puts ``op`` (its own, or the operands' for a colocated operator);
    ``apply_set``: the site's apply set of ``op``, whose Deployment tells the version of an operator whose
    Deployment name upstream does not fix."""
    if not op.deployment and apply_set:
        selector = f"{PART_OF_LABEL}%3D{applyset_id(apply_set, namespace)}"
        listed = get(connection, f"/apis/apps/v1/namespaces/{namespace}/deployments?labelSelector={selector}") or {}
        for item in listed.get("items") or []:
            version, how = _versioned(item)
            return Running(version, f"Deployment {namespace}/{item['metadata']['name']} {how}")
    if op.deployment:
        where = f"Deployment {namespace}/{op.deployment}"
        found = get(connection, f"/apis/apps/v1/namespaces/{namespace}/deployments/{op.deployment}")
        if found is not None:
            version, how = _versioned(found)
            return Running(version, f"{where} {how}")
        elsewhere = _elsewhere(connection, op.deployment)
        if elsewhere is not None:
            return elsewhere
    collection = operand_path(op, namespace, discovery)
    if collection is None or op.operand is None or not op.operand.version_field:
        return None
    items = (get(connection, collection) or {}).get("items") or []
    for item in items:
        observed = (item.get("status") or {}).get(op.operand.version_field)
        if observed:
            meta = item.get("metadata") or {}
            return Running(str(observed), f"{op.operand.kind} {meta.get('name')} status.{op.operand.version_field}")
    return None


def _elsewhere(connection: t.Any, name: str) -> Running | None:
    """The operator's Deployment in any namespace (installed by Helm, OLM or a person)."""
    listed = get(connection, f"/apis/apps/v1/deployments?fieldSelector=metadata.name%3D{name}") or {}
    for item in listed.get("items") or []:
        version, how = _versioned(item)
        return Running(version, f"Deployment {item['metadata'].get('namespace')}/{name} {how}", external=True)
    return None


def installed_csv(connection: t.Any, namespace: str, name: str) -> tuple[dict[str, t.Any] | None, str | None]:
    """The Subscription and its installed CSV's name."""
    sub = get(connection, f"/apis/operators.coreos.com/v1alpha1/namespaces/{namespace}/subscriptions/{name}")
    return sub, ((sub or {}).get("status") or {}).get("installedCSV")


def current_csv(sub: t.Mapping[str, t.Any] | None) -> str | None:
    """The CSV a Subscription stands for: the installed one, else the one OLM resolved. OLM records installedCSV
    after the CSV succeeded, in a later update, so a reader between the two sees only currentCSV."""
    status = (sub or {}).get("status") or {}
    return status.get("installedCSV") or status.get("currentCSV")
