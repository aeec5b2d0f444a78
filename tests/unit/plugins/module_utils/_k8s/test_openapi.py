# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import typing as t

import vectors

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import openapi

SCHEMA: dict[str, t.Any] = {
    "type": "object",
    "required": ["metadata", "spec"],
    "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["A", "B"]},
            "size": {"type": "integer", "minimum": 1, "maximum": 10},
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5},
            "port": {"x-kubernetes-int-or-string": True},
            "items": {"type": "array", "maxItems": 1, "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "optional": {"type": "string", "nullable": True},
        }},
    },
}


def test_every_violation_is_reported_with_its_path():
    obj = {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "n", "whatever": 1},
           "spec": {"mode": "C", "size": 11, "name": "ABCDEFG", "port": 1.5, "items": ["a", 2],
                    "labels": {"k": 1}, "free": {"any": {"thing": 1}}, "optional": None, "bogus": 1}}
    assert openapi.validate_custom_resource(obj, SCHEMA) == [
        ("spec.mode", "unsupported value 'C': must be one of ['A', 'B']"),
        ("spec.size", "must be less than or equal to 10"),
        ("spec.name", "'ABCDEFG' does not match '^[a-z]+$'"),
        ("spec.name", "may not be longer than 5"),
        ("spec.port", "must be an integer or a string"),
        ("spec.items", "must have at most 1 items"),
        ("spec.items[1]", "must be of type string, got int"),
        ("spec.labels.k", "must be of type string, got int"),
        ("spec.bogus", "unknown field"),
    ]


def test_missing_required_and_booleans_are_not_integers():
    assert openapi.validate_custom_resource({"kind": "X"}, SCHEMA) == [("spec", "required value")]
    assert openapi.validate({"size": True}, SCHEMA["properties"]["spec"]) == [
        ("size", "must be of type integer, got bool")]


def test_served_schemas_of_a_shared_crd():
    crd = vectors.load(vectors.CRD_DIR / "kubevirts.kubevirt.io.yaml")
    schemas = openapi.served_schemas(crd)
    assert ("kubevirt.io/v1", "KubeVirt") in schemas
    kubevirt = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "k"},
                "spec": {"configuration": {"developerConfiguration": {"featureGates": "A"}},
                         "notAField": 1}}
    errors = openapi.validate_custom_resource(kubevirt, schemas[("kubevirt.io/v1", "KubeVirt")])
    expected = ["spec.configuration.developerConfiguration.featureGates", "spec.notAField"]
    assert [error[0] for error in errors] == expected
