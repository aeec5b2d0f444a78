# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Validate an object against a CRD's structural ``openAPIV3Schema`` before anything is sent.

Unknown fields are errors: the API server would prune them (or refuse them with strict field validation), and every
later run would then report a change that can never converge.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .._common.golang import go_regexp

_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
                                       "integer": (int,), "number": (int, float)}


def served_schemas(crd: t.Mapping[str, t.Any]) -> dict[tuple[str, str], dict[str, t.Any]]:
    """(apiVersion, kind) -> openAPIV3Schema for every served version of a CustomResourceDefinition."""
    spec = crd.get("spec") or {}
    schemas: dict[tuple[str, str], dict[str, t.Any]] = {}
    for version in spec.get("versions") or []:
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if version.get("served") and schema:
            schemas[(f"{spec['group']}/{version['name']}", spec["names"]["kind"])] = schema
    return schemas


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def validate(value: t.Any, schema: t.Mapping[str, t.Any], path: str = "") -> list[tuple[str, str]]:
    """Every violation as (dotted path, message)."""
    if value is None:
        return [] if schema.get("nullable") else [(path, "null is not allowed")]
    if schema.get("x-kubernetes-int-or-string"):
        if not isinstance(value, (int, str)) or isinstance(value, bool):
            return [(path, "must be an integer or a string")]
    elif "type" in schema:
        expected = schema["type"]
        if not isinstance(value, _TYPES.get(expected, (object,))) or (
                expected in ("integer", "number") and isinstance(value, bool)):
            return [(path, f"must be of type {expected}, got {type(value).__name__}")]
    errors: list[tuple[str, str]] = []
    if "enum" in schema and value not in schema["enum"]:
        errors.append((path, f"unsupported value {value!r}: must be one of {schema['enum']}"))
    if isinstance(value, str):
        errors += _check_string(value, schema, path)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        errors += _check_number(value, schema, path)
    if isinstance(value, dict):
        errors += _check_object(value, schema, path)
    elif isinstance(value, list):
        errors += _check_array(value, schema, path)
    return errors


def _check_string(value: str, schema: t.Mapping[str, t.Any], path: str) -> list[tuple[str, str]]:
    errors = []
    if "pattern" in schema and not go_regexp(schema["pattern"]).search(value):
        errors.append((path, f"{value!r} does not match {schema['pattern']!r}"))
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append((path, f"may not be longer than {schema['maxLength']}"))
    if "minLength" in schema and len(value) < schema["minLength"]:
        errors.append((path, f"must be at least {schema['minLength']} characters"))
    return errors


def _check_number(value: float, schema: t.Mapping[str, t.Any], path: str) -> list[tuple[str, str]]:
    errors = []
    if "minimum" in schema and value < schema["minimum"]:
        errors.append((path, f"must be greater than or equal to {schema['minimum']}"))
    if "maximum" in schema and value > schema["maximum"]:
        errors.append((path, f"must be less than or equal to {schema['maximum']}"))
    return errors


def _check_object(value: dict[str, t.Any], schema: t.Mapping[str, t.Any], path: str) -> list[tuple[str, str]]:
    errors = [(_join(path, name), "required value") for name in schema.get("required", []) if name not in value]
    properties = schema.get("properties")
    additional = schema.get("additionalProperties")
    for key, item in value.items():
        child = _join(path, key)
        if properties and key in properties:
            errors += validate(item, properties[key], child)
        elif isinstance(additional, dict):
            errors += validate(item, additional, child)
        elif not (schema.get("x-kubernetes-preserve-unknown-fields") or additional is True):
            errors.append((child, "unknown field"))
    return errors


def _check_array(value: list[t.Any], schema: t.Mapping[str, t.Any], path: str) -> list[tuple[str, str]]:
    errors = []
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append((path, f"must have at most {schema['maxItems']} items"))
    if "minItems" in schema and len(value) < schema["minItems"]:
        errors.append((path, f"must have at least {schema['minItems']} items"))
    if "items" in schema:
        for index, item in enumerate(value):
            errors += validate(item, schema["items"], _join(path, index))
    return errors


def validate_custom_resource(obj: t.Mapping[str, t.Any], schema: t.Mapping[str, t.Any]) -> list[tuple[str, str]]:
    """Errors of a custom resource; metadata is ObjectMeta, which the server checks, not the CRD schema."""
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    trimmed = dict(schema)
    trimmed["properties"] = {k: v for k, v in (schema.get("properties") or {}).items()
                             if k not in ("apiVersion", "kind", "metadata")}
    trimmed["required"] = [k for k in schema.get("required") or [] if k not in ("apiVersion", "kind", "metadata")]
    return validate(body, trimmed)
