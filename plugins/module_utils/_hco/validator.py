# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""HCO's v1beta1 validating webhook (HCO v1.20.0's webhook validator: ValidateCreate and ValidateUpdate), reporting
every failure, not the first. PRIVATE."""

from __future__ import annotations

import dataclasses
import typing as t

from .._common.errors import FieldError
from .._common.golang import GoSyntaxError, parse_duration
from .._common.names import DNS1123_SUBDOMAIN, LABEL_VALUE, QUALIFIED_NAME_PART
from .profile import ReleaseProfile

ENABLE_ANNOTATION = "dataimportcrontemplate.kubevirt.io/enable"
_TEN_MINUTES = 10 * 60 * 1_000_000_000
_TLS_VERSIONS = ("VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13")
_HTTP2_CIPHERS = ("ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256")
WEBHOOK = "validating-webhook"


@dataclasses.dataclass
class Verdict:
    errors: list[FieldError] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    #: v1.14: a deprecated gate admits the request at once and skips the remaining checks (and builds).
    admitted_early: bool = False

    def fail(self, path: str, message: str) -> None:
        self.errors.append(FieldError(path, message, WEBHOOK))


def _cert_config(spec: t.Mapping[str, t.Any], verdict: Verdict) -> None:
    cert = spec.get("certConfig") or {}
    values: dict[str, int] = {}
    for part in ("ca", "server"):
        for key in ("duration", "renewBefore"):
            path = f"spec.certConfig.{part}.{key}"
            text = (cert.get(part) or {}).get(key)
            try:
                values[path] = parse_duration(text) if text else 0
            except GoSyntaxError as exc:
                verdict.fail(path, f"cannot parse duration {text!r}: {exc}")
                continue
            if values[path] < _TEN_MINUTES:
                verdict.fail(path, "value is too small")
    ca_d, ca_r = values.get("spec.certConfig.ca.duration"), values.get("spec.certConfig.ca.renewBefore")
    sv_d, sv_r = values.get("spec.certConfig.server.duration"), values.get("spec.certConfig.server.renewBefore")
    if ca_d is not None and ca_r is not None and ca_d < ca_r:
        verdict.fail("spec.certConfig.ca", "duration is smaller than renewBefore")
    if sv_d is not None and sv_r is not None and sv_d < sv_r:
        verdict.fail("spec.certConfig.server", "duration is smaller than renewBefore")
    if ca_d is not None and sv_d is not None and ca_d < sv_d:
        verdict.fail("spec.certConfig", "ca.duration is smaller than server.duration")


def _data_import_cron_templates(spec: t.Mapping[str, t.Any], verdict: Verdict) -> None:
    for index, entry in enumerate(spec.get("dataImportCronTemplates") or []):
        path = f"spec.dataImportCronTemplates[{index}]"
        annotations = (entry.get("metadata") or {}).get("annotations") or {}
        value = annotations.get(ENABLE_ANNOTATION)
        if value is not None and str(value).lower() not in ("true", "false"):
            verdict.fail(f"{path}.metadata.annotations[{ENABLE_ANNOTATION}]",
                         f'the {ENABLE_ANNOTATION} annotation of a dataImportCronTemplate must be either "true" or "false"')
        enabled = value is None or str(value).lower() == "true"
        if enabled and entry.get("spec") is None:
            verdict.fail(f"{path}.spec", "dataImportCronTemplate spec is empty for an enabled DataImportCronTemplate")


def _tls(spec: t.Mapping[str, t.Any], profile: ReleaseProfile, verdict: Verdict) -> None:
    tls = spec.get("tlsSecurityProfile")
    if tls is None:
        return
    custom = tls.get("custom")
    if custom is None:
        if tls.get("type") == "Custom" and profile.webhook["custom_type_requires_custom"]:
            verdict.fail("spec.tlsSecurityProfile.custom",
                         "missing required field spec.tlsSecurityProfile.custom when type is Custom")
        return
    minimum = custom.get("minTLSVersion", "")
    path = "spec.tlsSecurityProfile.custom"
    if minimum not in _TLS_VERSIONS:
        verdict.fail(f"{path}.minTLSVersion", "invalid value for spec.tlsSecurityProfile.custom.minTLSVersion")
        return
    ciphers = custom.get("ciphers") or []
    if minimum != "VersionTLS13" and not any(c in _HTTP2_CIPHERS for c in ciphers):
        verdict.fail(f"{path}.ciphers", "http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 "
                                        "cipher (need at least one of ECDHE-RSA-AES128-GCM-SHA256 or "
                                        "ECDHE-ECDSA-AES128-GCM-SHA256)")
    elif minimum == "VersionTLS13" and ciphers:
        verdict.fail(f"{path}.ciphers", "custom ciphers cannot be selected when minTLSVersion is VersionTLS13")


def _mediated_devices(spec: t.Mapping[str, t.Any], verdict: Verdict) -> None:
    config = spec.get("mediatedDevicesConfiguration")
    if not config:
        return
    message = "mediatedDevicesTypes is deprecated, please use mediatedDeviceTypes instead"
    entries = [("spec.mediatedDevicesConfiguration", config)] + [
        (f"spec.mediatedDevicesConfiguration.nodeMediatedDeviceTypes[{i}]", n)
        for i, n in enumerate(config.get("nodeMediatedDeviceTypes") or [])
    ]
    for path, entry in entries:
        old, new = entry.get("mediatedDevicesTypes") or [], entry.get("mediatedDeviceTypes") or []
        if old and new and list(old) != list(new):
            verdict.fail(f"{path}.mediatedDevicesTypes", message)


def _requirement_errors(requirement: t.Mapping[str, t.Any], path: str, field_selector: bool) -> list[str]:
    problems = []
    operator = requirement.get("operator", "")
    values = requirement.get("values") or []
    key = str(requirement.get("key", ""))
    if field_selector:
        if operator not in ("In", "NotIn"):
            problems.append(f'{path}.operator: Invalid value: "{operator}": not a valid selector operator')
        if len(values) != 1:
            problems.append(f"{path}.values: Required value: must have one element")
        return problems
    if operator in ("In", "NotIn"):
        if not values:
            problems.append(f"{path}.values: Required value: must be specified when `operator` is 'In' or 'NotIn'")
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            problems.append(f"{path}.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            problems.append(f"{path}.values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'")
        else:
            try:
                int(str(values[0]))
            except ValueError:
                problems.append(f'{path}.values[0]: Invalid value: "{values[0]}": must be an integer')
    else:
        problems.append(f'{path}.operator: Unsupported value: "{operator}": supported values: "DoesNotExist", '
                        '"Exists", "Gt", "In", "Lt", "NotIn"')
    prefix, _separator, name = key.rpartition("/")
    if not name or len(name) > 63 or not QUALIFIED_NAME_PART.match(name) or (
            prefix and (len(prefix) > 253 or not DNS1123_SUBDOMAIN.match(prefix))):
        problems.append(f'{path}.key: Invalid value: "{key}": name part must consist of alphanumeric characters, '
                        "'-', '_' or '.', and must start and end with an alphanumeric character")
    for index, value in enumerate(values):
        if len(str(value)) > 63 or not LABEL_VALUE.match(str(value)):
            problems.append(f'{path}.values[{index}]: Invalid value: "{value}": a valid label must be an empty string '
                            "or consist of alphanumeric characters, '-', '_' or '.'")
    return problems


def _affinity(spec: t.Mapping[str, t.Any], verdict: Verdict) -> None:
    for side, label in (("workloads", "workloads"), ("infra", "infra")):
        placement = (spec.get(side) or {}).get("nodePlacement") or {}
        required = ((placement.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution")
        if required is None:
            continue
        base = f"spec.{side}.nodePlacement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        problems: list[str] = []
        terms = required.get("nodeSelectorTerms")
        if not terms:
            problems.append(f"{base}.nodeSelectorTerms: Required value: must have at least one node selector term")
        for t_index, term in enumerate(terms or []):
            for r_index, req in enumerate(term.get("matchExpressions") or []):
                problems += _requirement_errors(req, f"{base}.nodeSelectorTerms[{t_index}].matchExpressions[{r_index}]",
                                                False)
            for r_index, req in enumerate(term.get("matchFields") or []):
                problems += _requirement_errors(req, f"{base}.nodeSelectorTerms[{t_index}].matchFields[{r_index}]", True)
        for problem in problems:
            verdict.fail(f"spec.{side}.nodePlacement.affinity", f"invalid {label} node placement affinity: {problem}")


def _gate_warnings(spec: t.Mapping[str, t.Any], profile: ReleaseProfile, operation: str) -> list[str]:
    gates = spec.get("featureGates") or {}
    texts = profile.warnings
    warnings = [texts["discontinued"].format(name) for name in profile.webhook["discontinued_gates"] if name in gates]
    for name, replacement in profile.webhook["replaced_gates"].items():
        if name in gates:
            warnings.append(texts["replaced"].format(name, replacement))
    # On UPDATE HCO warns when the gate differs from the existing object's (validateOldFGOnUpdate). Where v1 is
    # stored (1.19 on) it sees that object converted back from v1, which drops these gates, so an UPDATE that carries
    # one warns as a CREATE does; where v1beta1 is stored the existing object is taken to hold the same gates.
    if operation.lower() != "update" or profile.webhook.get("moved_gates_dropped_by_storage", True):
        warnings += [texts["moved"].format(name) for name in profile.webhook["moved_gates"] if name in gates]
    return warnings


def validate(spec: t.Mapping[str, t.Any], metadata: t.Mapping[str, t.Any], operation: str,
             profile: ReleaseProfile, operator_namespace: str, gate_warnings: bool = True) -> Verdict:
    """Run every webhook rule the release has; collect all failures and warnings."""
    verdict = Verdict()
    hooks = profile.webhook
    _cert_config(spec, verdict)
    if hooks["namespace_rule"] and metadata.get("namespace", operator_namespace) != operator_namespace:
        verdict.fail("metadata.namespace", f"invalid namespace for v1beta1.HyperConverged - please use the "
                                           f"{operator_namespace} namespace")
    _data_import_cron_templates(spec, verdict)
    _tls(spec, profile, verdict)
    _mediated_devices(spec, verdict)
    if hooks["high_burst_warning"] and gate_warnings and spec.get("tuningPolicy") == "highBurst":
        verdict.warnings.append(profile.warnings["high_burst"])  # HCO's first warning
    # A v1 request goes to HCO's v1 webhook, which warns neither of deprecated gates nor of highBurst.
    deprecated = _gate_warnings(spec, profile, operation) if gate_warnings else []
    verdict.warnings += deprecated
    if hooks["deprecated_gates_short_circuit"] and deprecated and not verdict.errors:
        verdict.admitted_early = True
        return verdict
    if hooks["affinity_validation"]:
        _affinity(spec, verdict)
    if hooks["high_burst_conflicts_with_annotation"] and spec.get("tuningPolicy") == "highBurst" and \
            "hco.kubevirt.io/tuningPolicy" in (metadata.get("annotations") or {}):
        verdict.fail("spec.tuningPolicy", "tuning policy set to highBurst, but the hco.kubevirt.io/tuningPolicy "
                                          "annotation is also set; remove one of them")
    return verdict
