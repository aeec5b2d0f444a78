# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The types of a release profile: everything that differs between HCO releases, as data (the tables are in
``releases/``). PRIVATE."""

from __future__ import annotations

import dataclasses
import typing as t


@dataclasses.dataclass(frozen=True)
class TLSProfiles:
    """OpenShift TLS profile table (OpenSSL names) and the OpenSSL -> IANA name map of a release."""

    min_versions: t.Mapping[str, str]
    ciphers: t.Mapping[str, tuple[str, ...]]
    openssl_to_iana: t.Mapping[str, str]
    #: 1.20: ``modern`` set (without ``custom``) drops the ciphers even for other types.
    kubevirt_modern_object_drops_ciphers: bool
    go_cipher_ids: t.Mapping[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class KubeVirtGateRule:
    """KubeVirt gate ``gate`` is added when condition ``when`` (see kubevirt builder) holds."""

    gate: str
    when: str


@dataclasses.dataclass(frozen=True)
class ReleaseProfile:
    name: str
    hco_version: str
    summary: str
    #: v1beta1 is converted to the v1 hub (1.17+); otherwise builders read v1beta1 directly.
    v1_hub: bool
    crd: t.Mapping[str, t.Any]
    env_defaults: t.Mapping[str, str | None]
    #: v1 gate phases (beta gates are on unless disabled); empty without a v1 hub.
    gate_phases: t.Mapping[str, str]
    #: where the top-level switches live in v1beta1 (spec path as a tuple).
    switch_paths: t.Mapping[str, tuple[str, ...]]
    mutator: t.Mapping[str, bool]
    webhook: t.Mapping[str, t.Any]
    warnings: t.Mapping[str, str]
    kubevirt: t.Mapping[str, t.Any]
    kubevirt_gates_always: tuple[str, ...]
    kubevirt_gates_unless_emulation: tuple[str, ...]
    kubevirt_gate_rules: tuple[KubeVirtGateRule, ...]
    kubevirt_beta_gates: tuple[str, ...]
    obsolete_cpu_models: tuple[str, ...]
    tls: TLSProfiles
    cdi_feature_gates: tuple[str, ...]
    cnao: t.Mapping[str, t.Any]
    ssp: t.Mapping[str, t.Any]
    aaq: t.Mapping[str, t.Any]
    common_dicts: tuple[t.Mapping[str, t.Any], ...]
    dicts: t.Mapping[str, bool]
    #: the operands this release has (keys of ``operands.OPERANDS``, which holds their order).
    operands: tuple[str, ...]
    #: operator images from the CSV (secondary objects).
    images: t.Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: ``hco.kubevirt.io/v1`` is served (1.18 on): a v1 HyperConverged is accepted as input.
    v1_served: bool = False
    #: how the release takes a v1 request before converting it: ``unknown`` v1 fields its schema prunes,
    #: ``drops_high_burst`` when its v1 mutating webhook removes the highBurst tuning policy.
    v1_input: t.Mapping[str, t.Any] = dataclasses.field(default_factory=dict)
    #: the console proxy's root filesystem is read-only (1.19 on).
    console_proxy_read_only_root: bool = True
    #: the console plugin's nginx and the console proxy follow the TLS profile (1.18 on).
    console_tls: bool = True
    #: the MigController carries the TLS profile (1.18 on).
    migration_tls: bool = True
    #: ``platform.kubevirt.io/autopilot`` takes swap over from wasp-agent (1.18 on).
    wasp_autopilot_opt_out: bool = True
    #: the node DaemonSets (wasp-agent, passt CNI) as 1.16 first wrote them: no termination-message fields,
    #: untyped hostPath volumes, fewer update-strategy fields, wasp-agent's older egress label.
    first_daemonsets: bool = False
    #: the console's Deployments run under their own ServiceAccounts (1.17 on; "default" before).
    console_service_accounts: bool = True
    #: embedded ObjectMeta (pod templates, golden images) carry ``creationTimestamp: null``: the vendored
    #: apimachinery of 1.16 and earlier encodes the zero time so (omitzero came with Kubernetes 1.33).
    null_creation_timestamps: bool = False


def earlier_crd(later: ReleaseProfile, feature_gates: t.Mapping[str, bool | None], **changes: t.Any) -> dict[str, t.Any]:
    """An earlier release's ``crd`` table from a later one's: its featureGates (name: CRD default, None for none),
    the spec-level default keeping only the gates the earlier release has, and the ``changes``."""
    spec_default = dict(later.crd["spec_default"])
    spec_default["featureGates"] = {name: default for name, default in spec_default["featureGates"].items()
                                    if name in feature_gates}
    return {**later.crd, "spec_default": spec_default, "feature_gates": dict(feature_gates), **changes}
