# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The whole pipeline: input checks -> CRD defaults -> mutation -> validation -> conversion -> builders
-> jsonpatch annotations -> result. This is the one entry point the action and filter plugins call. PRIVATE.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import re
import typing as t

try:
    import yaml
except ImportError:  # pragma: no cover
    yaml = None  # type: ignore[assignment]

from .._common.errors import BuildError, FieldError, RenderError
from .._common.golang import GoSyntaxError
from . import golden_images, operands, patches, v1_input
from .cluster import default_nodes, derive_facts
from .conversion import V1Settings, convert
from .mutator import mutate, undecodable
from .profile import ReleaseProfile
from .releases import get_profile
from .schema import apply_structural_schema, hyperconverged_spec
from .schema import suggestion as schema_suggestion
from .tls import effective_profile
from .validator import validate
from .view import Environment, HCView
from .webhook_view import without_nodes

API_VERSION = "hco.kubevirt.io/v1beta1"
KIND = "HyperConverged"
NAME = "kubevirt-hyperconverged"
DEFAULT_NAMESPACE = "kubevirt-hyperconverged"
TAINTED = "TaintedConfiguration"
ENVIRONMENT_KEYS = ("kvm_emulation", "smbios", "machine_types", "version", "variables")
CLUSTER_KEYS = ("platform", "namespace", "nodes", "apiserver_tls_profile", "base_domain", "monitoring")


@dataclasses.dataclass
class RenderResult:
    operands: list[dict[str, t.Any]]
    hyperconverged: dict[str, t.Any]
    warnings: list[str]
    unsafe_modifications: dict[str, int]
    tainted: bool
    release: str
    pruned: list[str]

    def as_dict(self) -> dict[str, t.Any]:
        return dataclasses.asdict(self)


_SPEC_MODELS: dict[str, t.Any] = {}


def pruned_messages(release: str, pruned: t.Sequence[str]) -> list[str]:
    """One line per field the API server would prune, with the nearest known field when one is close (a typo)."""
    model = _spec_model(get_profile(release))
    lines = []
    for field in pruned:
        near = schema_suggestion(model, field)
        lines.append(f"{field}: unknown field (the API server would drop it)"
                     + (f" (did you mean {near}?)" if near else ""))
    return lines


def _spec_model(profile: ReleaseProfile) -> t.Any:
    if profile.name not in _SPEC_MODELS:
        _SPEC_MODELS[profile.name] = hyperconverged_spec(profile.crd)
    return _SPEC_MODELS[profile.name]


def _environment(profile: ReleaseProfile, environment: t.Mapping[str, t.Any], errors: list[FieldError]) -> Environment:
    variables: dict[str, str | None] = {**profile.env_defaults, **profile.images}
    if environment.get("version") is not None:
        variables["HCO_KV_IO_VERSION"] = str(environment["version"])
    if environment.get("kvm_emulation") is not None:
        variables["KVM_EMULATION"] = "true" if environment["kvm_emulation"] else "false"
    machine_types = environment.get("machine_types")
    if machine_types is not None:
        if not isinstance(machine_types, dict):
            errors.append(FieldError("environment.machine_types", "must be a mapping of architecture to machine type",
                                     "input"))
        else:
            for arch, machine in machine_types.items():
                name = "MACHINETYPE" if arch in ("legacy", "default") else f"{str(arch).upper()}_MACHINETYPE"
                variables[name] = None if machine is None else str(machine)
    smbios = environment.get("smbios")
    if smbios is not None:
        if isinstance(smbios, dict):
            variables["SMBIOS"] = yaml.safe_dump({str(k).capitalize(): v for k, v in smbios.items()})
        elif isinstance(smbios, str):
            variables["SMBIOS"] = smbios
        else:
            errors.append(FieldError("environment.smbios", "must be a mapping or YAML text", "input"))
    raw = environment.get("variables") or {}
    if not isinstance(raw, dict):
        errors.append(FieldError("environment.variables", "must be a mapping of variable name to value", "input"))
    else:
        for key, value in raw.items():
            variables[str(key)] = None if value is None else str(value)
    return Environment(variables)


def _check_unknown(section: str, value: t.Mapping[str, t.Any], known: t.Sequence[str], errors: list[FieldError]) -> None:
    for key in value:
        if key not in known:
            errors.append(FieldError(f"{section}.{key}", f"unknown key; expected one of: {', '.join(known)}", "input"))


def _nodes(cluster: t.Mapping[str, t.Any], errors: list[FieldError]) -> list[dict[str, t.Any]]:
    nodes = cluster.get("nodes")
    if nodes is None:
        return default_nodes()
    if not isinstance(nodes, list):
        errors.append(FieldError("cluster.nodes", "must be a list of {name, labels, architecture}", "input"))
        return []
    result = []
    for index, node in enumerate(nodes):
        path = f"cluster.nodes[{index}]"
        if not isinstance(node, dict):
            errors.append(FieldError(path, "must be a mapping with name, labels and architecture", "input"))
            continue
        if not isinstance(node.get("labels") or {}, dict):
            errors.append(FieldError(f"{path}.labels", "must be a mapping", "input"))
            continue
        result.append({"name": str(node.get("name", "")), "labels": dict(node.get("labels") or {}),
                       "architecture": str(node.get("architecture") or "")})
    return result


def _schedule(namespace: str, name: str) -> str:
    """A stable stand-in for the schedule HCO draws at random once per cluster: same input, same output."""
    digest = hashlib.sha256(f"{namespace}/{name}".encode()).digest()
    return f"{digest[0] % 60} {digest[1] % 12}/12 * * *"


def _check_object(hc: t.Any, namespace: str, check_namespace: bool, errors: list[FieldError]) -> tuple[dict, dict]:
    if not isinstance(hc, dict):
        errors.append(FieldError("hyperconverged", f"must be a mapping (a HyperConverged object), "
                                                   f"got {type(hc).__name__}", "input"))
        return {}, {}
    if hc.get("apiVersion") != API_VERSION:
        errors.append(FieldError("apiVersion", f'must be "{API_VERSION}", got {hc.get("apiVersion")!r}', "input"))
    if hc.get("kind") != KIND:
        errors.append(FieldError("kind", f'must be "{KIND}", got {hc.get("kind")!r}', "input"))
    metadata = hc.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        errors.append(FieldError("metadata", "must be a mapping", "input"))
        metadata = {}
    name = metadata.get("name")
    if not isinstance(name, str) or not re.search(NAME, name):
        errors.append(FieldError("metadata.name", f'Invalid value: {name!r}: should match \'{NAME}\'', "schema"))
    elif name != NAME:
        errors.append(FieldError("metadata.name", f'HCO only reconciles the HyperConverged named "{NAME}"; '
                                                  f'{name!r} would be ignored', "controller"))
    object_namespace = metadata.get("namespace", namespace)
    if object_namespace != namespace and check_namespace:
        errors.append(FieldError("metadata.namespace", f'the HyperConverged must be in the operator namespace '
                                                       f'"{namespace}", got {object_namespace!r}', "admission-policy"))
    annotations = metadata.get("annotations") or {}
    if not isinstance(annotations, dict) or not all(isinstance(v, str) for v in annotations.values()):
        errors.append(FieldError("metadata.annotations", "must be a mapping of strings", "schema"))
        annotations = {}
    return metadata, annotations


@dataclasses.dataclass(frozen=True)
class _Built:
    #: per operand key, in HCO's order, the objects deployed on this platform.
    objects: t.Mapping[str, list[dict[str, t.Any]]]
    failed: frozenset[str]
    golden: operands.GoldenImages


def _build_operands(view: HCView, profile: ReleaseProfile, operation: str,
                    common_golden_images: t.Sequence[t.Mapping[str, t.Any]] | None,
                    build_errors: list[BuildError]) -> _Built:
    """Every operand of the release, in HCO's order; each failure is appended to ``build_errors``: the webhook's (a
    patched operand also built as its pod builds it, knowing no node) or else the reconciler's."""
    built: dict[str, list[dict[str, t.Any]]] = {}
    failed: set[str] = set()
    if build_errors:
        return _Built(built, frozenset(failed), operands.GoldenImages((), ()))
    platform: operands.Platform = "openshift" if view.facts.is_openshift else "kubernetes"
    inputs = operands.Inputs(view, common_golden_images)
    webhook: operands.Inputs | None = None
    for operand in operands.of_release(profile.operands):
        if not operand.enabled(view):
            continue
        checked = not (operation == "UPDATE" and platform not in operand.checked_on_update_on)
        refused: BuildError | None = None
        if checked and operands.checked_without_nodes(operand, view):
            if webhook is None:
                # The DICTs depend on the nodes only with multi-arch import (golden_images drops a DICT without
                # one of the nodes' architectures).
                same = None if golden_images.multi_arch_enabled(view) else inputs
                webhook = operands.Inputs(without_nodes(view), common_golden_images, same)
            refused = _build_error(operand, webhook)
        try:
            objects = operands.built(operand, inputs)
        except BuildError as exc:
            if not checked:
                continue
            build_errors.append(refused or _reconcile_error(exc, operand))
            failed.add(operand.key)
            continue
        if refused is not None:
            build_errors.append(refused)
            failed.add(operand.key)
            continue
        if platform in operand.deployed_on:
            built[operand.key] = objects
    return _Built(built, frozenset(failed), inputs.golden)


def _build_error(operand: operands.Operand, inputs: operands.Inputs) -> BuildError | None:
    try:
        operand.build(inputs)
    except BuildError as exc:
        return exc
    return None


def _reconcile_error(exc: BuildError, operand: operands.Operand) -> BuildError:
    """A patched operand that builds in the webhook's node-less dry run but not with the nodes: HCO admits the
    HyperConverged and every reconcile then fails on it, so nothing is deployed - refused here, saying so."""
    if not operand.reads_nodes or operand.patched_kind is None or not exc.message.startswith("invalid jsonPatch"):
        return exc
    return BuildError(exc.path, f"{exc.message} (HCO's webhook admits the HyperConverged: it applies the patch to the "
                                f"{operand.patched_kind} it builds without nodes, where it succeeds; with this "
                                f"cluster's nodes every reconcile fails on it)")


@dataclasses.dataclass(frozen=True)
class _Request:
    """The checked inputs of one render: what the stages after the input checks read."""

    profile: ReleaseProfile
    operation: t.Literal["CREATE", "UPDATE"]
    platform: t.Literal["kubernetes", "openshift"]
    namespace: str
    nodes: tuple[dict[str, t.Any], ...]
    env: Environment
    cluster: t.Mapping[str, t.Any]
    metadata: t.Mapping[str, t.Any]
    annotations: t.Mapping[str, str]
    hc: t.Mapping[str, t.Any]
    #: the request was a v1 HyperConverged (converted to v1beta1 as HCO converts it; v1 has no deprecated gates).
    from_v1: bool = False
    #: v1 fields the release's v1 schema does not have, pruned before the conversion.
    v1_pruned: tuple[str, ...] = ()


def _request(hyperconverged: t.Any, release: str | None, operation: str, cluster: t.Any, environment: t.Any,
             errors: list[FieldError]) -> _Request:
    """Input checks: every problem with the arguments themselves is appended to ``errors``."""
    try:
        profile = get_profile(release)
    except RenderError as exc:
        errors += exc.errors
        profile = get_profile(None)
    operation = str(operation or "create").upper()
    if operation not in ("CREATE", "UPDATE"):
        errors.append(FieldError("operation", f'must be "create" or "update", got {operation.lower()!r}', "input"))
    cluster = cluster or {}
    environment = environment or {}
    for section, value, known in (("cluster", cluster, CLUSTER_KEYS), ("environment", environment, ENVIRONMENT_KEYS)):
        if not isinstance(value, dict):
            errors.append(FieldError(section, "must be a mapping", "input"))
        else:
            _check_unknown(section, value, known, errors)
    cluster = cluster if isinstance(cluster, dict) else {}
    environment = environment if isinstance(environment, dict) else {}
    platform = cluster.get("platform") or "kubernetes"
    if platform not in ("kubernetes", "openshift"):
        errors.append(FieldError("cluster.platform", f'must be "kubernetes" or "openshift", got {platform!r}', "input"))
    namespace = str(cluster.get("namespace") or DEFAULT_NAMESPACE)
    nodes = _nodes(cluster, errors)
    env = _environment(profile, environment, errors)
    hyperconverged, from_v1, v1_pruned = v1_input.admitted(hyperconverged, profile, errors)
    # 1.20 refuses a foreign namespace with a ValidatingAdmissionPolicy; older releases in the webhook.
    metadata, annotations = _check_object(hyperconverged, namespace, not profile.webhook["namespace_rule"], errors)
    return _Request(profile=profile, operation=t.cast(t.Any, operation), platform=t.cast(t.Any, platform),
                    namespace=namespace,
                    nodes=tuple(nodes), env=env, cluster=cluster, metadata=metadata, annotations=annotations,
                    hc=hyperconverged if isinstance(hyperconverged, dict) else {}, from_v1=from_v1,
                    v1_pruned=tuple(v1_pruned))


def _admit(request: _Request, status: t.Mapping[str, t.Any], errors: list[FieldError]
           ) -> tuple[dict[str, t.Any], list[str], t.Any]:
    """CRD schema (pruning, defaults), the mutating and the validating webhook: (spec, pruned paths, verdict);
    raise RenderError with every problem, the input checks' included."""
    profile, hc = request.profile, request.hc
    spec, pruned, schema_errors = apply_structural_schema(_spec_model(profile), copy.deepcopy(hc.get("spec")))
    errors += schema_errors
    request_status = hc.get("status") if isinstance(hc.get("status"), dict) else None
    verdict = None
    # A value Go cannot decode refuses the request in the mutating webhook, before it mutates or validates anything.
    decoded = undecodable(spec) if isinstance(spec, dict) else []
    errors += decoded
    try:
        if not decoded:
            spec = mutate(spec, request_status or status, request.operation, profile)
            verdict = validate(spec, request.metadata, request.operation, profile, request.namespace,
                               gate_warnings=not request.from_v1)
    except (AttributeError, TypeError, ValueError, GoSyntaxError):
        # Only reachable with schema errors (values of the wrong type), which are reported already.
        if not schema_errors:
            raise
    if verdict is not None:
        errors += verdict.errors
    if errors:
        raise RenderError(errors, list(verdict.warnings) if verdict else [])
    return spec, pruned, verdict


def _view(request: _Request, spec: dict[str, t.Any], status: dict[str, t.Any],
          build_errors: list[BuildError]) -> HCView:
    """What every builder reads: the admitted spec, its v1 conversion and the cluster facts."""
    profile, cluster = request.profile, request.cluster
    v1 = V1Settings()
    if profile.v1_hub:
        try:
            v1 = convert(spec, request.annotations, profile)
        except BuildError as exc:
            build_errors.append(exc)
    facts = derive_facts(list(request.nodes), (spec.get("workloads") or {}).get("nodePlacement"), request.platform,
                         request.namespace, str(cluster.get("base_domain") or ""), cluster.get("apiserver_tls_profile"),
                         cluster.get("monitoring"))
    status.setdefault("dataImportSchedule", _schedule(request.namespace, NAME))
    return HCView(profile=profile, name=NAME, namespace=request.namespace, annotations=dict(request.annotations),
                  spec=spec, status=status, facts=facts, env=request.env, v1=v1,
                  tls_profile=effective_profile(spec.get("tlsSecurityProfile"), facts.apiserver_tls_profile,
                                                facts.is_openshift, profile.tls))


def _reconciled(request: _Request, built: _Built, build_errors: list[BuildError]
                ) -> tuple[dict[str, list[dict[str, t.Any]]], list[dict[str, t.Any]]]:
    """v1.14 admitted the request unchecked; its controller stops at the first operand that fails: the objects it
    got to, and the ReconcileComplete condition it sets."""
    kept: dict[str, list[dict[str, t.Any]]] = {}
    for operand in operands.of_release(request.profile.operands):
        if operand.key in built.failed and request.platform in operand.deployed_on:
            break
        kept[operand.key] = built.objects.get(operand.key, [])
    return kept, [{"type": "ReconcileComplete", "status": "False", "reason": "ReconcileFailed",
                   "message": "; ".join(str(e.as_field_error()) for e in build_errors)}]


def render(
    hyperconverged: t.Any,
    release: str | None = None,
    operation: str = "create",
    cluster: t.Mapping[str, t.Any] | None = None,
    environment: t.Mapping[str, t.Any] | None = None,
    status: t.Mapping[str, t.Any] | None = None,
    common_golden_images: t.Sequence[t.Mapping[str, t.Any]] | None = None,
) -> RenderResult:
    """Compute every operand HCO would build for ``hyperconverged``; raise RenderError listing all problems."""
    if yaml is None or patches.jsonpatch is None:
        raise RenderError([FieldError("", "the Python libraries PyYAML and jsonpatch are required on the controller "
                                          "(pip install PyYAML jsonpatch)", "input")])
    errors: list[FieldError] = []
    request = _request(hyperconverged, release, operation, cluster, environment, errors)
    status = dict(status or {})
    spec, pruned, verdict = _admit(request, status, errors)
    pruned = [*request.v1_pruned, *pruned]
    warnings = list(verdict.warnings) if verdict else []

    build_errors: list[BuildError] = []
    view = _view(request, spec, status, build_errors)
    built = _build_operands(view, request.profile, request.operation, common_golden_images, build_errors)
    objects = dict(built.objects)
    conditions = [dict(c) for c in status.get("conditions") or [] if c.get("type") != TAINTED]
    if build_errors:
        if not (verdict and verdict.admitted_early):
            raise RenderError([e.as_field_error() for e in build_errors], warnings)
        objects, failure = _reconciled(request, built, build_errors)
        conditions += failure

    annotations = request.annotations
    unsafe = {name: patches.count_operations(annotations.get(name)) for name in patches.ANNOTATIONS.values()}
    tainted = any(unsafe.values())
    if tainted:
        conditions.append({"type": TAINTED, "status": "True", "reason": "UnsupportedFeatureAnnotation",
                           "message": "Unsupported feature was activated via an HCO annotation"})
    kept_metadata = ("name", "namespace", "labels", "annotations")
    effective: dict[str, t.Any] = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {k: copy.deepcopy(v) for k, v in request.metadata.items() if k in kept_metadata},
        "spec": spec,
        "status": {**{k: v for k, v in status.items() if k != "conditions"}, "conditions": conditions,
                   "dataImportCronTemplates": list(built.golden.status)},
    }
    effective["metadata"].setdefault("namespace", request.namespace)
    ordered = sorted((obj for objects_ in objects.values() for obj in objects_), key=operands.output_order)
    return RenderResult(operands=ordered, hyperconverged=effective, warnings=warnings, unsafe_modifications=unsafe,
                        tainted=tainted, release=request.profile.name, pruned=pruned)
