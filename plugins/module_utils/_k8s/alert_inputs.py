# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What HCO's alerts read that the site reads too, before any write: the KubeDescheduler HCO checks and the
DaemonSets named wasp-agent. Two GETs (a third, discovery, where there is no KubeDescheduler), none a write; a kind
that is not served, or not readable with the site's account, reads as absent (HCO does not check a descheduler whose
CRD is not served either).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .._hco.alerts import DESCHEDULER_NAME, DESCHEDULER_NAMESPACE, WASP_AGENT
from .client import Connection, KubeError

DESCHEDULER = (f"/apis/operator.openshift.io/v1/namespaces/{DESCHEDULER_NAMESPACE}/kubedeschedulers/"
               f"{DESCHEDULER_NAME}")
DESCHEDULER_GROUP_VERSION = "/apis/operator.openshift.io/v1"
DAEMONSETS = "/apis/apps/v1/daemonsets"


@dataclasses.dataclass(frozen=True)
class AlertInputs:
    # The KubeDescheduler's spec, or None where there is none (or its kind is not served).
    descheduler: t.Mapping[str, t.Any] | None
    # Each wasp-agent DaemonSet: (namespace, the manager that created it, as its managedFields say, or "").
    wasp_agents: tuple[tuple[str, str], ...]
    # The field managers of each KubeDescheduler spec field the site may set (site_descheduler), by its path.
    descheduler_owners: t.Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # Whether the cluster serves KubeDescheduler (asked only where there is none).
    descheduler_served: bool = True


# The spec fields site_descheduler sets, as managedFields' fieldsV1 spells them.
OWNED_PATHS = {"spec.profiles": ("f:spec", "f:profiles"),
               "spec.profileCustomizations.devEnableEvictionsInBackground": (
                   "f:spec", "f:profileCustomizations", "f:devEnableEvictionsInBackground")}


def owners(metadata: t.Mapping[str, t.Any]) -> dict[str, tuple[str, ...]]:
    """The managers of each of OWNED_PATHS, from the object's managedFields."""
    found: dict[str, tuple[str, ...]] = {}
    for path, keys in OWNED_PATHS.items():
        managers = []
        for entry in metadata.get("managedFields") or []:
            fields: t.Any = entry.get("fieldsV1") or {}
            for key in keys:
                fields = fields.get(key) if isinstance(fields, dict) else None
            if fields is not None and entry.get("manager"):
                managers.append(str(entry["manager"]))
        found[path] = tuple(sorted(set(managers)))
    return found


def _served(connection: Connection) -> bool:
    listed = _get(connection, DESCHEDULER_GROUP_VERSION) or {}
    return any(resource.get("name") == "kubedeschedulers" for resource in listed.get("resources") or [])


def _get(connection: Connection, path: str, query: t.Mapping[str, str] | None = None) -> t.Any:
    try:
        return connection.request("GET", path, query=dict(query) if query else None)
    except KubeError as exc:
        if exc.status in (403, 404):
            return None
        raise


def read(connection: Connection) -> AlertInputs:
    descheduler = _get(connection, DESCHEDULER)
    listed = _get(connection, DAEMONSETS, {"fieldSelector": f"metadata.name={WASP_AGENT}"}) or {}
    agents = []
    for item in listed.get("items") or []:
        metadata = item.get("metadata") or {}
        creator = next((entry.get("manager") for entry in metadata.get("managedFields") or []
                        if entry.get("operation") in ("Apply", "Update")), "")
        agents.append((str(metadata.get("namespace") or ""), str(creator or "")))
    if not isinstance(descheduler, dict):
        return AlertInputs(None, tuple(sorted(agents)), descheduler_served=_served(connection))
    return AlertInputs(dict(descheduler.get("spec") or {}), tuple(sorted(agents)),
                       owners(descheduler.get("metadata") or {}))
