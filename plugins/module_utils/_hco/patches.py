# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The four ``*/jsonpatch`` annotations, applied the way HCO does (HCO's ApplyPatchToSpec and applyAnnotationPatch:
the operand marshalled to JSON, patched, decoded back). PRIVATE.

HCO applies the RFC 6902 patch to the JSON of the built object and then decodes the result *back over the
same Go object* (:func:`.gotypes.decode_over`): Go's decoder merges into what is there, and a key the operand's
Go type does not have (SSP ``/spec/tektonPipelines``) disappears.
"""

from __future__ import annotations

import json
import typing as t

try:
    import jsonpatch
except ImportError:  # pragma: no cover - reported by render() with the install hint
    jsonpatch = None  # type: ignore[assignment]

from .._common.errors import BuildError
from . import gotypes

ANNOTATIONS = {
    "KubeVirt": "kubevirt.kubevirt.io/jsonpatch",
    "CDI": "containerizeddataimporter.kubevirt.io/jsonpatch",
    "NetworkAddonsConfig": "networkaddonsconfigs.kubevirt.io/jsonpatch",
    "SSP": "ssp.kubevirt.io/jsonpatch",
}
_OPS = ("add", "remove", "replace", "move", "copy", "test")


def _path(annotation: str) -> str:
    return f"metadata.annotations[{annotation}]"


def parse(raw: str | None, annotation: str) -> list[dict[str, t.Any]]:
    """Decode and check an annotation value; an absent or empty value is no patch."""
    if raw is None or raw == "":
        return []
    where = _path(annotation)
    try:
        operations = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BuildError(where, f"invalid jsonPatch in the {annotation} annotation: {exc}") from exc
    if not isinstance(operations, list):
        kind = type(operations).__name__.replace("dict", "object").replace("str", "string")
        raise BuildError(where, f"invalid jsonPatch in the {annotation} annotation: json: cannot unmarshal "
                                f"{kind} into Go value of type jsonpatch.Patch")
    for index, operation in enumerate(operations):
        if not isinstance(operation, dict):
            raise BuildError(where, f"invalid jsonPatch in the {annotation} annotation: operation {index} is not an object")
        if operation.get("op") not in _OPS:
            raise BuildError(where, f"invalid jsonPatch in the {annotation} annotation: "
                                    f"operation {index}: unexpected kind of operation {operation.get('op')!r}")
        path = operation.get("path")
        if not isinstance(path, str) or not path.startswith("/spec/"):
            raise BuildError(where, f"invalid jsonPatch in the {annotation} annotation: operation {index}: "
                                    f"can only modify spec fields (path {path!r})")
    return operations


def count_operations(raw: str | None) -> int:
    """The ``kubevirt_hco_unsafe_modifications`` value: operations in the patch, 0 if it cannot be decoded."""
    try:
        operations = json.loads(raw) if raw else []
    except json.JSONDecodeError:
        return 0
    return len(operations) if isinstance(operations, list) else 0


def apply(obj: dict[str, t.Any], raw: str | None, annotation: str) -> dict[str, t.Any]:
    """Return ``obj`` with the annotation's patch applied (HCO's ApplyPatchToSpec)."""
    operations = parse(raw, annotation)
    if not operations:
        return obj
    # As HCO does it: the object marshalled to JSON, patched, decoded back (also the quickest copy of JSON data).
    document = json.loads(json.dumps(obj))
    try:
        patched = jsonpatch.JsonPatch(operations).apply(document, in_place=True)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, KeyError, IndexError, TypeError) as exc:
        raise BuildError(_path(annotation), f"invalid jsonPatch in the {annotation} annotation: {exc}") from exc
    if not isinstance(patched.get("spec"), dict):
        raise BuildError(_path(annotation), f"invalid jsonPatch in the {annotation} annotation: the patched spec is "
                                            f"not an object")
    try:
        spec = gotypes.decode_over(obj.get("spec") or {}, patched["spec"], gotypes.root(obj["kind"]), "spec")
    except gotypes.GoDecodeError as exc:
        raise BuildError(_path(annotation), f"invalid jsonPatch in the {annotation} annotation: {exc}") from None
    return {**obj, "spec": spec}
