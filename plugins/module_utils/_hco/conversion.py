# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the v1beta1 -> v1 conversion decides beyond plain copies: v1 gates and v1-only switches. PRIVATE.

The builders read the (defaulted, mutated) v1beta1 spec directly; every v1beta1 field that is a plain
copy in the conversion keeps its meaning. What the conversion *derives* lives in :class:`V1Settings`.
"""

from __future__ import annotations

import dataclasses
import json
import typing as t

from .._common.errors import BuildError
from . import gotypes
from .profile import ReleaseProfile

V1_ONLY_FIELDS = "hco.kubevirt.io/v1-only-fields"
#: v1beta1 boolean gates that become entries of the v1 gate list.
CONVERTED_GATES = (
    "decentralizedLiveMigration", "declarativeHotplugVolumes", "alignCPUs", "containerPathVolumes",
    "deployKubeSecondaryDNS", "downwardMetrics", "incrementalBackup", "objectGraph",
)


@dataclasses.dataclass
class V1Settings:
    gates: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)
    deploy_network_resources_injector: bool = True
    mdev_enabled: bool | None = None
    persistent_reservation_enabled: bool | None = None
    multi_arch_enabled: bool | None = None
    observability: dict[str, t.Any] | None = None


def gate_enabled(gates: t.Sequence[t.Mapping[str, t.Any]], name: str, phases: t.Mapping[str, str]) -> bool:
    """v1 ``FeatureGates.IsEnabled``: phase default unless listed (an entry without state means Enabled)."""
    phase = next((p for n, p in phases.items() if n.lower() == name.lower()), None)
    if phase is None:
        return False
    listed = [g for g in gates if str(g.get("name", "")).lower() == name.lower()]
    if listed:
        return listed[-1].get("state", "Enabled") != "Disabled"
    return phase == "beta"


def convert(spec: t.Mapping[str, t.Any], annotations: t.Mapping[str, str], profile: ReleaseProfile) -> V1Settings:
    settings = V1Settings()
    raw = annotations.get(V1_ONLY_FIELDS, "")
    if raw:
        try:
            stored = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise BuildError(f"metadata.annotations[{V1_ONLY_FIELDS}]", f"failed to convert to v1: invalid JSON: {exc}") from exc
        if not isinstance(stored, dict):
            raise BuildError(f"metadata.annotations[{V1_ONLY_FIELDS}]", "failed to convert to v1: must be a JSON object")
        settings.deploy_network_resources_injector = bool(stored.get("deployNetworkResourcesInjector", True))
        settings.mdev_enabled = stored.get("mdevConfigEnable")
        settings.persistent_reservation_enabled = stored.get("persistentReservationEnabled")
        settings.multi_arch_enabled = stored.get("multiArchEnabled")
        # HCO decodes these two into the v1 Go types: keys those types lack are dropped, not carried.
        v1_spec = gotypes.root("HyperConvergedV1")
        try:
            gates = gotypes.decode([g for g in stored.get("featureGates") or [] if isinstance(g, dict)],
                                   gotypes.field(v1_spec, "featureGates"), "featureGates")
            settings.observability = gotypes.decode(stored.get("observability"), gotypes.field(v1_spec, "observability"),
                                                    "observability")
        except gotypes.GoDecodeError as exc:
            raise BuildError(f"metadata.annotations[{V1_ONLY_FIELDS}]", f"failed to convert to v1: {exc}") from None
        settings.gates = gates or []

    gates = spec.get("featureGates") or {}
    for name in CONVERTED_GATES:
        settings.gates = [g for g in settings.gates if str(g.get("name", "")).lower() != name.lower()]
        if name in gates and gate_enabled(settings.gates, name, profile.gate_phases) != gates[name]:
            settings.gates.append({"name": name, "state": "Enabled" if gates[name] else "Disabled"})
    if gates.get("disableMDevConfiguration") is not None:
        settings.mdev_enabled = not gates["disableMDevConfiguration"]
    if gates.get("persistentReservation") is not None:
        settings.persistent_reservation_enabled = gates["persistentReservation"]
    if gates.get("enableMultiArchBootImageImport") is not None:
        settings.multi_arch_enabled = gates["enableMultiArchBootImageImport"]
    return settings
