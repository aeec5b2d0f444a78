# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The effective TLS security profile and the forms each operand receives. PRIVATE."""

from __future__ import annotations

import copy
import typing as t

from .._common.errors import BuildError
from .profile import TLSProfiles
from .tls_data import GO_TLS_VERSION_IDS

INTERMEDIATE = {"type": "Intermediate", "intermediate": {}}
_VERSIONS = ("VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13")


def effective_profile(
    hc_profile: t.Mapping[str, t.Any] | None,
    apiserver_profile: t.Mapping[str, t.Any] | None,
    is_openshift: bool,
    tables: TLSProfiles,
) -> dict[str, t.Any]:
    """HC profile, else the (rebuilt) OpenShift APIServer profile, else Intermediate."""
    if hc_profile is not None:
        profile = copy.deepcopy(dict(hc_profile))
    elif is_openshift and apiserver_profile:
        profile = _rebuild_apiserver_profile(apiserver_profile, tables)
    else:
        profile = copy.deepcopy(INTERMEDIATE)
    if profile.get("type") == "Custom" and profile.get("custom") is None:
        profile = _custom_intermediate(tables)
    return profile


def _custom_intermediate(tables: TLSProfiles) -> dict[str, t.Any]:
    return {
        "type": "Custom",
        "custom": {"ciphers": list(tables.ciphers["Intermediate"]), "minTLSVersion": tables.min_versions["Intermediate"]},
    }


def _rebuild_apiserver_profile(profile: t.Mapping[str, t.Any], tables: TLSProfiles) -> dict[str, t.Any]:
    if profile.get("type") != "Custom":
        return copy.deepcopy(dict(profile))
    custom = profile.get("custom")
    if custom is None:
        return _custom_intermediate(tables)
    known = set(tables.ciphers["Old"])
    result: dict[str, t.Any] = {"type": "Custom", "custom": {}}
    ciphers = [c for c in custom.get("ciphers") or [] if c in known]
    if ciphers:
        result["custom"]["ciphers"] = ciphers
    if custom.get("minTLSVersion"):
        result["custom"]["minTLSVersion"] = custom["minTLSVersion"]
    return result


def field_copy(profile: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """The profile as an operand's own TLSSecurityProfile type serialises it."""
    result: dict[str, t.Any] = {"type": profile.get("type", "")}
    for name in ("old", "intermediate", "modern"):
        if profile.get(name) is not None:
            result[name] = {}
    custom = profile.get("custom")
    if custom is not None:
        result["custom"] = {}
        if custom.get("ciphers"):
            result["custom"]["ciphers"] = list(custom["ciphers"])
        if custom.get("minTLSVersion"):
            result["custom"]["minTLSVersion"] = custom["minTLSVersion"]
    return result


def source_ciphers(profile: t.Mapping[str, t.Any], tables: TLSProfiles) -> tuple[list[str], str]:
    """OpenSSL cipher names and min version from ``custom`` (type Custom) or the type's table entry."""
    if profile.get("type") == "Custom":
        custom = profile.get("custom") or {}
        return list(custom.get("ciphers") or []), custom.get("minTLSVersion") or ""
    kind = profile.get("type", "")
    if kind not in tables.min_versions:
        raise BuildError("spec.tlsSecurityProfile.type", f'unknown TLS profile type "{kind}"')
    return list(tables.ciphers[kind]), tables.min_versions[kind]


def to_iana(ciphers: t.Iterable[str], tables: TLSProfiles) -> list[str]:
    return [tables.openssl_to_iana[c] for c in ciphers if c in tables.openssl_to_iana]


def kubevirt_tls_configuration(profile: t.Mapping[str, t.Any], tables: TLSProfiles) -> dict[str, t.Any]:
    custom = profile.get("custom")
    kind = profile.get("type", "")
    if custom is not None:
        ciphers, minimum = list(custom.get("ciphers") or []), custom.get("minTLSVersion", "")
    else:
        if kind not in tables.min_versions:
            # HCO dereferences a missing profile-table entry and panics; the request is refused.
            raise BuildError(
                "spec.tlsSecurityProfile",
                "internal error: the TLS security profile has no type and no custom section "
                "(HCO's KubeVirt builder panics on it)",
            )
        minimum = tables.min_versions[kind]
        ciphers = [] if profile.get("modern") is not None and tables.kubevirt_modern_object_drops_ciphers else list(tables.ciphers[kind])
    result: dict[str, t.Any] = {"minTLSVersion": minimum if minimum in _VERSIONS else "VersionTLS12"}
    iana = to_iana(ciphers, tables)
    if iana:
        result["ciphers"] = iana
    return result


def go_version_id(version: str) -> int:
    return GO_TLS_VERSION_IDS.get(version, GO_TLS_VERSION_IDS["VersionTLS12"])
