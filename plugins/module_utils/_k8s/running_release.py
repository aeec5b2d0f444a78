# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which HCO (or, without HCO, which KubeVirt) a cluster runs, read as the operators record it.

In order, the first that answers: the HyperConverged's ``status.versions`` entry ``operator`` (HCO writes it once it
has reconciled at that version, controllers/hyperconverged, ``completeReconciliation``); the ``HCO_KV_IO_VERSION``
of HCO's operator Deployment (the CSV sets it; HCO reads its own version from it); the KubeVirt CR's
``status.observedKubeVirtVersion`` (virt-operator's, in standalone installs). Three GETs at most, none a write.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import re

from .client import Connection, KubeError

HYPERCONVERGEDS = "/apis/hco.kubevirt.io/v1beta1/hyperconvergeds"
DEPLOYMENTS = "/apis/apps/v1/deployments"
OPERATOR_SELECTOR = "name=hyperconverged-cluster-operator"
KUBEVIRTS = "/apis/kubevirt.io/v1/kubevirts"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)")


@dataclasses.dataclass(frozen=True)
class Running:
    component: str   # "HCO" or "KubeVirt"
    version: str     # as read, e.g. "1.18.1" or "v1.5.2"
    where: str       # what said so, in the words of the object

    @property
    def minor(self) -> tuple[int, int] | None:
        found = _VERSION.match(self.version.strip())
        return (int(found.group(1)), int(found.group(2))) if found else None


def _items(connection: Connection, path: str, selector: str | None = None) -> list[dict]:
    try:
        answer = connection.request("GET", path, query={"labelSelector": selector} if selector else None)
    except KubeError as exc:
        if exc.status in (403, 404):   # not served, or not ours to read: nothing known from here
            return []
        raise
    return list((answer or {}).get("items") or [])


def hyperconvergeds(connection: Connection) -> list[dict]:
    """The cluster's HyperConvergeds (none where the kind is not served or not readable): one LIST."""
    return _items(connection, HYPERCONVERGEDS)


def running(connection: Connection, listed: list[dict] | None = None) -> Running | None:
    """What the cluster runs, or None where no HCO and no KubeVirt answer. ``listed``: the HyperConvergeds, where
    the caller has read them already."""
    for hyperconverged in hyperconvergeds(connection) if listed is None else listed:
        for entry in (hyperconverged.get("status") or {}).get("versions") or []:
            if entry.get("name") == "operator" and entry.get("version"):
                meta = hyperconverged.get("metadata") or {}
                return Running("HCO", str(entry["version"]),
                               f"HyperConverged {meta.get('namespace')}/{meta.get('name')} status.versions")
    for deployment in _items(connection, DEPLOYMENTS, OPERATOR_SELECTOR):
        for container in ((deployment.get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []:
            for variable in container.get("env") or []:
                if variable.get("name") == "HCO_KV_IO_VERSION" and variable.get("value"):
                    meta = deployment.get("metadata") or {}
                    return Running("HCO", str(variable["value"]),
                                   f"Deployment {meta.get('namespace')}/{meta.get('name')} HCO_KV_IO_VERSION")
    for kubevirt in _items(connection, KUBEVIRTS):
        observed = (kubevirt.get("status") or {}).get("observedKubeVirtVersion")
        if observed:
            meta = kubevirt.get("metadata") or {}
            return Running("KubeVirt", str(observed),
                           f"KubeVirt {meta.get('namespace')}/{meta.get('name')} status.observedKubeVirtVersion")
    return None
