# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The API server's refusals as problems at the fields they name; failed webhook calls stop the stage."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError, webhook_failure
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Desired
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.server_errors import (
    WebhookUnavailable,
    fatal,
    namespace_missing,
    problems_of,
)

ITEM = Desired(2, {}, "apps/v1", "Deployment", "web", "ns")


def status(code: int, message: str, **details) -> KubeError:
    return KubeError(message, code, {"kind": "Status", "code": code, "message": message, "details": details})


def test_causes_with_fields_become_problems_at_those_fields():
    refused = status(422, "Deployment.apps \"web\" is invalid", causes=[
        {"field": "spec.replicas", "message": "must be greater than or equal to 0"},
        {"field": "spec.selector", "message": "Required value"}])
    assert [(p.path, p.message) for p in problems_of(ITEM, refused)] == [
        ("spec.replicas", "must be greater than or equal to 0"), ("spec.selector", "Required value")]


def test_paths_are_found_in_strict_decoding_and_apply_messages():
    strict = status(400, 'strict decoding error: unknown field "spec.replicaz", unknown field "spec.x"')
    assert [p.path for p in problems_of(ITEM, strict)] == ["spec.replicaz", "spec.x"]
    typed = status(500, "failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): "
                        ".spec.replicaz: field not declared in schema")
    assert [(p.path, p.message) for p in problems_of(ITEM, typed)] == [("spec.replicaz",
                                                                        "field not declared in schema")]
    plain = status(403, "exceeded quota: five")
    assert [(p.object, p.index, p.path, p.message) for p in problems_of(ITEM, plain)] == [
        ("apps/v1 Deployment ns/web", 2, "", "exceeded quota: five")]


def test_a_failed_webhook_call_is_fatal_and_named():
    hung = status(500, 'Internal error occurred: failed calling webhook "hang.example.io": failed to call webhook: '
                       'Post "https://127.0.0.1:1/?timeout=3s": context deadline exceeded')
    assert webhook_failure(hung.body) == "hang.example.io"
    stop = fatal(ITEM, hung)
    assert isinstance(stop, WebhookUnavailable) and stop.webhook == "hang.example.io" and stop.item is ITEM
    denied = status(400, 'admission webhook "deny.example.io" denied the request: no')
    assert fatal(ITEM, denied) is None and webhook_failure(denied.body) is None


def test_a_missing_namespace_is_told_from_a_missing_object():
    assert namespace_missing(status(404, 'namespaces "x" not found', kind="namespaces", name="x"))
    assert not namespace_missing(status(404, 'configmaps "x" not found', kind="configmaps", name="x"))
