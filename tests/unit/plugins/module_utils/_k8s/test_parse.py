# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The first stage: every local problem named as the user wrote it, items in dependency order."""

from __future__ import annotations

import base64
import copy

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.parse import origin, parse


def cm(name: str, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "n"}, **extra}


def test_items_come_in_dependency_order_then_input_order():
    objects = [cm("b"), {"apiVersion": "x.io/v1", "kind": "Widget", "metadata": {"name": "w"}}, cm("a"),
               {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}]
    items, problems = parse(objects)
    assert problems == []
    order = [(i.kind, i.name, i.index) for i in items]
    assert order == [("Namespace", "n", 3), ("ConfigMap", "b", 0), ("ConfigMap", "a", 2), ("Widget", "w", 1)]


def test_every_malformed_object_is_named_with_every_missing_field():
    items, problems = parse(["text", {"kind": "ConfigMap"}, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}],
                            ["src[0] /m.yaml, document 1", None])
    assert items == []
    assert [(p.object, p.index, p.path, p.message) for p in problems] == [
        ("src[0] /m.yaml, document 1", 0, "", "must be a mapping"),
        ("objects[1]", 1, "apiVersion", "required value"),
        ("objects[1]", 1, "metadata.name", "required value"),
        ("objects[2]", 2, "metadata.name", "required value")]


def test_a_duplicate_names_the_first_by_its_origin():
    _items, problems = parse([cm("a"), cm("a")], ["src[0] /x.yaml, document 1", "src[0] /x.yaml, document 2"])
    assert [(p.object, p.path, p.message) for p in problems] == [
        ("v1 ConfigMap n/a", "metadata.name", "duplicate of src[0] /x.yaml, document 1")]


def test_server_fields_and_status_are_dropped_and_string_data_is_folded():
    obj = cm("a", status={"x": 1})
    obj["metadata"].update(resourceVersion="5", uid="u", managedFields=[], creationTimestamp="t", generation=2)
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "v"}}
    items, problems = parse([obj, secret])
    assert problems == []
    assert items[0].desired == cm("a") and obj["status"] == {"x": 1}   # the input is not changed
    assert items[1].desired["data"] == {"k": base64.b64encode(b"v").decode()}
    _items, problems = parse([{**secret, "stringData": {"k": 5}}])
    assert [(p.path, p.message) for p in problems] == [("stringData.k", "must be a string")]


def test_origin_falls_back_to_objects_index():
    assert origin(None, 3) == "objects[3]" and origin([None], 0) == "objects[0]" and origin(["f"], 0) == "f"


def test_the_callers_objects_are_left_as_given():
    metadata = {"name": "s", "namespace": "n", "uid": "u", "managedFields": [{"manager": "m"}]}
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "data": {"a": "YQ=="},
              "stringData": {"b": "b"}, "status": {"x": 1}}
    given = [secret, cm("c", data={"k": "v"}, status={"phase": "x"})]
    before = copy.deepcopy(given)
    items, problems = parse(given)
    assert problems == [] and given == before                      # parse copies what it changes
    folded = next(i for i in items if i.kind == "Secret").desired
    assert folded["data"] == {"a": "YQ==", "b": "Yg=="} and "stringData" not in folded and "uid" not in folded["metadata"]
