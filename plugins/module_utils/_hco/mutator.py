# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""HCO's v1beta1 mutating webhook. PRIVATE."""

from __future__ import annotations

import typing as t

from .._common.errors import FieldError
from .._common.times import TimeError, parse
from .profile import ReleaseProfile

IMMEDIATE_BIND = "cdi.kubevirt.io/storage.bind.immediate.requested"


def undecodable(spec: t.Mapping[str, t.Any]) -> list[FieldError]:
    """What the webhook cannot decode into HCO's Go types, which refuses the request before any mutation
    (controller-runtime's admission.Decoder): a ``metav1.Time`` Go's parser refuses. The API server's date-time
    check admits more (k8s.io/kube-openapi pkg/validation/strfmt, ``IsDateTime``: lower-case ``t`` and ``z``, any
    character before the fraction, any offset digits). The spec's times are the DataImportCronTemplates' DataVolume
    condition times."""
    errors = []
    for index, template in enumerate(spec.get("dataImportCronTemplates") or []):
        status = (((template or {}).get("spec") or {}).get("template") or {}).get("status") \
            if isinstance(template, dict) else None
        conditions = status.get("conditions") if isinstance(status, dict) else None
        for number, condition in enumerate(conditions if isinstance(conditions, list) else []):
            for key in ("lastHeartbeatTime", "lastTransitionTime"):
                value = condition.get(key) if isinstance(condition, dict) else None
                if not isinstance(value, str):
                    continue
                try:
                    parse(value)
                except TimeError as exc:
                    errors.append(FieldError(f"spec.dataImportCronTemplates[{index}].spec.template.status.conditions"
                                             f"[{number}].{key}", str(exc), "mutating-webhook"))
    return errors


def mutate(spec: dict[str, t.Any], status: t.Mapping[str, t.Any] | None, operation: str,
           profile: ReleaseProfile) -> dict[str, t.Any]:
    """Apply the webhook's changes to a defaulted spec (in place) and return it."""
    for template in spec.get("dataImportCronTemplates") or []:
        if not isinstance(template, dict):
            continue
        metadata = template.setdefault("metadata", {})
        if not isinstance(metadata, dict):
            continue
        annotations = metadata.get("annotations")
        if not isinstance(annotations, dict):
            annotations = metadata["annotations"] = {}
        annotations.setdefault(IMMEDIATE_BIND, "true")
        dict_spec = template.get("spec")
        if profile.mutator["dict_retention_defaults"] and isinstance(dict_spec, dict):
            dict_spec.setdefault("retentionPolicy", "None")
            dict_spec.setdefault("importsToKeep", 1)

    # The API server clears status on create, so only an update sees the topology HCO has stored.
    if operation == "UPDATE" and status and "infrastructureHighlyAvailable" in status and "evictionStrategy" not in spec:
        spec["evictionStrategy"] = "LiveMigrate" if status["infrastructureHighlyAvailable"] else "None"

    mdev = spec.get("mediatedDevicesConfiguration")
    if isinstance(mdev, dict):
        for entry in [mdev, *[n for n in mdev.get("nodeMediatedDeviceTypes") or [] if isinstance(n, dict)]]:
            if entry.get("mediatedDevicesTypes") and not entry.get("mediatedDeviceTypes"):
                entry["mediatedDeviceTypes"] = list(entry["mediatedDevicesTypes"])

    if operation == "CREATE" and profile.mutator["ksm_default_on_create"] and "ksmConfiguration" not in spec:
        spec["ksmConfiguration"] = {}
    return spec
