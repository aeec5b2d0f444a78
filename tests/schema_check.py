# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Validate objects against a CRD's ``openAPIV3Schema`` the way a structural schema treats them.

A field the schema does not know is an error here: the API server would prune it silently and every later
apply would see drift.
"""

from __future__ import annotations

import functools
import pathlib
import re
import typing as t

import yaml

# The C loader (libyaml) parses the 3.8 MB of shared CRDs several times faster than the pure-Python one.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


@functools.cache
def crd_index(crd_dir: str) -> dict[tuple[str, str], dict[str, t.Any]]:
    """(apiVersion, kind) -> openAPIV3Schema for every served version of every CRD in the directory."""
    index: dict[tuple[str, str], dict[str, t.Any]] = {}
    for path in sorted(pathlib.Path(crd_dir).glob("*.yaml")):
        for document in yaml.load_all(path.read_text(encoding="utf-8"), Loader=_LOADER):
            if not document or document.get("kind") != "CustomResourceDefinition":
                continue
            spec = document["spec"]
            for version in spec["versions"]:
                if version.get("served") and "schema" in version:
                    index[(f"{spec['group']}/{version['name']}", spec["names"]["kind"])] = \
                        version["schema"]["openAPIV3Schema"]
    return index


def validate(value: t.Any, schema: t.Mapping[str, t.Any], path: str = "") -> list[str]:
    errors: list[str] = []
    if value is None:
        if not schema.get("nullable"):
            errors.append(f"{path or '/'}: null is not allowed")
        return errors
    if schema.get("x-kubernetes-int-or-string"):
        if not isinstance(value, (int, str)) or isinstance(value, bool):
            errors.append(f"{path}: must be an integer or a string")
    elif "type" in schema:
        kind = schema["type"]
        if kind == "integer":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind == "number":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, _TYPES[kind])
        if not ok:
            return [f"{path}: expected {kind}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{path}/{name}: required")
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        for key, item in value.items():
            child = f"{path}/{key}"
            if properties and key in properties:
                errors += validate(item, properties[key], child)
            elif isinstance(additional, dict):
                errors += validate(item, additional, child)
            elif schema.get("x-kubernetes-preserve-unknown-fields") or additional is True or (path == "" and key in ("apiVersion", "kind", "metadata")):
                continue
            else:
                errors.append(f"{child}: unknown field (the API server would prune it)")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors += validate(item, schema["items"], f"{path}/{index}")
    return errors


# Kubernetes' own API groups: their kinds have no CRD, and the API server validates them itself.
BUILT_IN_GROUPS = frozenset({"", "apps", "batch", "policy", "rbac.authorization.k8s.io", "scheduling.k8s.io",
                             "storage.k8s.io", "networking.k8s.io", "admissionregistration.k8s.io",
                             "apiextensions.k8s.io", "coordination.k8s.io"})
# Custom kinds the operands include whose CRDs the reference material does not carry (OpenShift's built-in API).
WITHOUT_CRD_HERE = frozenset({("security.openshift.io/v1", "SecurityContextConstraints")})


def crd_fit(obj: t.Mapping[str, t.Any], crd_dir: str) -> list[str]:
    """check_object's errors, and an error for a custom kind with no CRD to check it against (unless it is one of
    WITHOUT_CRD_HERE): a check that passes an object it could not check proves nothing."""
    errors = check_object(obj, crd_dir)
    if errors is not None:
        return errors
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    if group in BUILT_IN_GROUPS or (obj.get("apiVersion"), obj.get("kind")) in WITHOUT_CRD_HERE:
        return []
    return [f": no CRD for {obj.get('apiVersion')} {obj.get('kind')} in {crd_dir} to check it against"]


def check_object(obj: t.Mapping[str, t.Any], crd_dir: str) -> list[str] | None:
    """Errors for ``obj``, or None when no CRD in ``crd_dir`` defines its kind (built-in kinds)."""
    schema = crd_index(crd_dir).get((obj["apiVersion"], obj["kind"]))
    if schema is None:
        return None
    # metadata is ObjectMeta, validated by the API server itself, not by the CRD schema.
    body = {k: v for k, v in obj.items() if k != "metadata"}
    if "metadata" in obj:
        body["metadata"] = {}
    return validate(body, schema)
