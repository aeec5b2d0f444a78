# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one ordered list of operands: what each builds, when, and on which platform. PRIVATE.

The order is HCO's (hyperconverged-cluster-operator v1.20.0, ``controllers/operandhandler/operand_handler.go``,
``NewOperandHandler``): the reconciler ensures operands in this order and stops at the first that fails, and the
webhook reports build failures in it. The result lists objects in another, stable order (``OUTPUT_KINDS``).
"""

from __future__ import annotations

import dataclasses
import functools
import typing as t

from .._common.errors import BuildError
from . import golden_images, patches
from .builders import (
    aaq,
    aie_webhook,
    cdi,
    console,
    file_restore,
    kubevirt,
    migration,
    network_addons,
    network_resources_injector,
    observability_controller,
    passt_binding,
    priority_class,
    ssp,
    wasp_agent,
)
from .view import HCView

Platform = t.Literal["kubernetes", "openshift"]
BOTH: tuple[Platform, ...] = ("kubernetes", "openshift")


@dataclasses.dataclass(frozen=True)
class GoldenImages:
    """The DICTs sent to SSP and the HC's ``status.dataImportCronTemplates``, or why they could not be computed."""

    for_ssp: tuple[dict[str, t.Any], ...]
    status: tuple[dict[str, t.Any], ...]
    error: BuildError | None = None


@dataclasses.dataclass(frozen=True)
class Inputs:
    view: HCView
    common_golden_images: t.Sequence[t.Mapping[str, t.Any]] | None
    #: inputs whose DICTs are these inputs' too (the node-less view's, where the DICTs do not depend on the nodes)
    same_golden: Inputs | None = None

    @functools.cached_property
    def golden(self) -> GoldenImages:
        """The view's DICTs, computed once and only where an operand reads them (the SSP)."""
        if self.same_golden is not None:
            return self.same_golden.golden
        return golden(self.view, self.common_golden_images)


@dataclasses.dataclass(frozen=True)
class Operand:
    key: str
    build: t.Callable[[Inputs], list[dict[str, t.Any]]]
    enabled: t.Callable[[HCView], bool] = lambda view: True
    #: where the reconciler deploys it (SSP: OpenShift only, though the webhook builds it everywhere).
    deployed_on: tuple[Platform, ...] = BOTH
    #: where the webhook's UPDATE dry run builds it (HCO v1.20.0 webhook validator: ``ValidateUpdate`` passes
    #: ``isOpenshift`` to ``checkOperands``, and SSP is only checked on OpenShift).
    checked_on_update_on: tuple[Platform, ...] = BOTH
    #: the kind whose ``*/jsonpatch`` annotation the builder applies (patches.ANNOTATIONS), if any.
    patched_kind: str | None = None
    #: whether what it builds depends on the nodes (view.facts' counts and architectures): only such an operand
    #: can differ in the webhook's node-less dry run (webhook_view), so only it is built there again.
    reads_nodes: bool = False


def _patched(obj: dict[str, t.Any], view: HCView) -> dict[str, t.Any]:
    """The operand's ``*/jsonpatch`` annotation applied (HCO ``ApplyPatchToSpec`` in each CR's handler)."""
    annotation = patches.ANNOTATIONS[obj["kind"]]
    return patches.apply(obj, view.annotations.get(annotation), annotation)


def _null_creation_timestamps(obj: dict[str, t.Any]) -> dict[str, t.Any]:
    """Embedded ObjectMeta as Go encoded a zero creationTimestamp before Kubernetes 1.33: ``null``."""
    spec = obj.get("spec") or {}
    metas = [(spec.get("template") or {}).get("metadata")] if obj["kind"] in ("Deployment", "DaemonSet") else []
    for dict_template in (spec.get("commonTemplates") or {}).get("dataImportCronTemplates") or []:
        metas += [dict_template.get("metadata"), ((dict_template.get("spec") or {}).get("template") or {})
                  .setdefault("metadata", {})]
    for meta in metas:
        if isinstance(meta, dict):
            meta["creationTimestamp"] = None
    return obj


def built(operand: Operand, inputs: Inputs) -> list[dict[str, t.Any]]:
    """What the operand builds, as the release's Go code encodes it."""
    objects = operand.build(inputs)
    if inputs.view.profile.null_creation_timestamps:
        objects = [_null_creation_timestamps(obj) for obj in objects]
    return objects


def _one(builder: t.Callable[[HCView], dict[str, t.Any]], patch: bool = False) -> t.Callable[[Inputs], list]:
    def build(inputs: Inputs) -> list[dict[str, t.Any]]:
        obj = builder(inputs.view)
        return [_patched(obj, inputs.view) if patch else obj]
    return build


def _many(builder: t.Callable[[HCView], list[dict[str, t.Any]]]) -> t.Callable[[Inputs], list]:
    return lambda inputs: builder(inputs.view)


def _ssp(inputs: Inputs) -> list[dict[str, t.Any]]:
    if inputs.golden.error:
        raise inputs.golden.error
    return [_patched(ssp.build(inputs.view, list(inputs.golden.for_ssp)), inputs.view)]


OPERANDS: tuple[Operand, ...] = (
    Operand("priorityclass", _one(priority_class.build)),
    Operand("kubevirt", _one(kubevirt.build, patch=True), patched_kind="KubeVirt", reads_nodes=True),
    Operand("cdi", _one(cdi.build, patch=True), patched_kind="CDI"),
    Operand("cnao", _one(network_addons.build, patch=True), patched_kind="NetworkAddonsConfig"),
    Operand("aaq", _one(aaq.build), aaq.enabled),
    Operand("ssp", _ssp, deployed_on=("openshift",), checked_on_update_on=("openshift",), patched_kind="SSP",
            reads_nodes=True),
    Operand("passt_binding", _many(passt_binding.build), passt_binding.enabled),
    Operand("migcontroller", _one(migration.build)),
    Operand("filerestore", _one(file_restore.build)),
    Operand("console", _many(console.build), console.enabled),
    Operand("wasp_agent", _many(wasp_agent.build), wasp_agent.enabled),
    Operand("network_resources_injector", _one(network_resources_injector.build), network_resources_injector.enabled),
    Operand("aie_webhook", _many(aie_webhook.build), aie_webhook.enabled),
    Operand("observability_controller", _many(observability_controller.build), observability_controller.enabled),
)
KEYS = tuple(operand.key for operand in OPERANDS)

#: The order the result lists objects in, which is not the reconcile order: the operators' custom resources first,
#: then the secondary objects by kind, each kind by namespace and name: the golden examples' order, kept stable for
#: users' diffs.
OUTPUT_KINDS = ("KubeVirt", "CDI", "NetworkAddonsConfig", "SSP", "AAQ", "MigController", "FileRestoreOperator",
                "PriorityClass", "ServiceAccount", "SecurityContextConstraints", "DaemonSet", "Deployment", "ConfigMap",
                "NetworkAttachmentDefinition")


def output_order(obj: t.Mapping[str, t.Any]) -> tuple[int, str, str]:
    metadata = obj["metadata"]
    return OUTPUT_KINDS.index(obj["kind"]), metadata.get("namespace", ""), metadata["name"]


def of_release(keys: t.Collection[str]) -> tuple[Operand, ...]:
    """The operands a release has, in HCO's order."""
    return tuple(operand for operand in OPERANDS if operand.key in keys)


def patched(operand: Operand, view: HCView) -> bool:
    """Whether the HyperConverged patches the operand (its ``*/jsonpatch`` annotation holds something)."""
    return bool(operand.patched_kind and view.annotations.get(patches.ANNOTATIONS[operand.patched_kind]))


def checked_without_nodes(operand: Operand, view: HCView) -> bool:
    """Whether the webhook's node-less dry run can refuse what the nodes admit: a patched operand built from them."""
    return operand.reads_nodes and patched(operand, view)


def golden(view: HCView, common: t.Sequence[t.Mapping[str, t.Any]] | None) -> GoldenImages:
    try:
        for_ssp, status = golden_images.build(view, common)
    except BuildError as exc:
        return GoldenImages((), (), exc)
    return GoldenImages(tuple(for_ssp), tuple(status))
