# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The inputs every operand builder reads, in one object. PRIVATE."""

from __future__ import annotations

import dataclasses
import typing as t

from .cluster import ClusterFacts
from .conversion import V1Settings, gate_enabled
from .profile import ReleaseProfile


@dataclasses.dataclass
class Environment:
    """The operator's environment variables (CSV values unless overridden)."""

    variables: dict[str, str | None]

    def get(self, name: str) -> str:
        return self.variables.get(name) or ""

    @property
    def hco_version(self) -> str:
        return self.get("HCO_KV_IO_VERSION")

    @property
    def kvm_emulation(self) -> bool:
        # Go's strconv.ParseBool: anything unparsable counts as false.
        return self.get("KVM_EMULATION").strip() in ("1", "t", "T", "TRUE", "true", "True")


@dataclasses.dataclass
class HCView:
    profile: ReleaseProfile
    name: str
    namespace: str
    annotations: dict[str, str]
    spec: dict[str, t.Any]
    status: dict[str, t.Any]
    facts: ClusterFacts
    env: Environment
    v1: V1Settings
    tls_profile: dict[str, t.Any]

    def gate(self, name: str) -> bool:
        if self.profile.v1_hub:
            return gate_enabled(self.v1.gates, name, self.profile.gate_phases)
        return bool((self.spec.get("featureGates") or {}).get(name))

    def switch(self, name: str, default: t.Any = None) -> t.Any:
        """A top-level switch that moved from featureGates to the spec root between releases."""
        value: t.Any = self.spec
        for key in self.profile.switch_paths[name]:
            value = value.get(key) if isinstance(value, dict) else None
        return default if value is None else value

    def annotation_true(self, name: str) -> bool:
        return self.annotations.get(name) == "true"

    @property
    def infra(self) -> dict[str, t.Any] | None:
        return (self.spec.get("infra") or {}).get("nodePlacement")

    @property
    def workloads(self) -> dict[str, t.Any] | None:
        return (self.spec.get("workloads") or {}).get("nodePlacement")

    @property
    def version(self) -> str:
        return self.env.hco_version
