# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a cluster runs: platform, version, and whether the HyperConverged Cluster Operator manages KubeVirt there.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .client import Connection, KubeError
from .discovery import Discovery

HCO_API_VERSION = "hco.kubevirt.io/v1beta1"
HCO_DEPLOYMENT_SELECTOR = "name=hyperconverged-cluster-operator"


# Never listed through ``read``: their content must not end up in facts or job output.
UNREADABLE_KINDS = frozenset((("v1", "Secret"),))


def cluster_facts(connection: Connection, kinds: t.Sequence[tuple[str, str]] = (),
                  read: t.Sequence[tuple[str, str]] = ()) -> dict[str, t.Any]:
    """Platform, server version, HCO presence, which of kinds the server serves, and the objects of the read kinds
    (an unserved read kind gives an empty list)."""
    discovery = Discovery(connection)
    version = connection.request("GET", "/version") or {}
    openshift = discovery.find("config.openshift.io/v1", "ClusterVersion") is not None
    hco_resource = discovery.find(HCO_API_VERSION, "HyperConverged")
    hyperconvergeds: list[dict[str, t.Any]] = []
    if hco_resource is not None:
        listing = connection.request("GET", hco_resource.path())
        hyperconvergeds = [{"namespace": o["metadata"].get("namespace"), "name": o["metadata"]["name"]}
                           for o in listing.get("items") or []]
    deployments: list[dict[str, t.Any]] = []
    apps = discovery.find("apps/v1", "Deployment")
    if apps is not None:
        try:
            listing = connection.request("GET", apps.path(), query={"labelSelector": HCO_DEPLOYMENT_SELECTOR})
            deployments = [{"namespace": o["metadata"].get("namespace"), "name": o["metadata"]["name"]}
                           for o in listing.get("items") or []]
        except KubeError as exc:
            if exc.status != 403:
                raise
    return {
        "platform": "openshift" if openshift else "kubernetes",
        "version": {"git_version": version.get("gitVersion"), "major": version.get("major"),
                    "minor": str(version.get("minor") or "").rstrip("+")},
        "hco": {
            "crd": hco_resource is not None,
            "hyperconvergeds": hyperconvergeds,
            "operator_deployments": deployments,
            "present": hco_resource is not None and bool(hyperconvergeds or deployments),
        },
        "objects": {f"{api_version}/{kind}": _list(connection, discovery, api_version, kind)
                    for api_version, kind in read},
        "served": {f"{api_version}/{kind}": discovery.find(api_version, kind) is not None
                   for api_version, kind in kinds},
        "resources": {f"{api_version}/{kind}": {"resource": found.plural, "namespaced": found.namespaced}
                      for api_version, kind in kinds
                      for found in [discovery.find(api_version, kind)] if found is not None},
    }


def _list(connection: Connection, discovery: Discovery, api_version: str, kind: str) -> list[dict[str, t.Any]]:
    if (api_version, kind) in UNREADABLE_KINDS:
        raise KubeError(f"{kind} objects are not read into facts", status=400)
    found = discovery.find(api_version, kind)
    if found is None:
        return []
    items = (connection.request("GET", found.path()) or {}).get("items") or []
    for item in items:
        item.setdefault("apiVersion", api_version)
        item.setdefault("kind", kind)
        (item.get("metadata") or {}).pop("managedFields", None)
    return list(items)
