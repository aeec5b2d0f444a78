# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Custom resources against their CRD's schema before any dry run."""

from __future__ import annotations

from k8s_fakes import FakeAPI, context

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Target
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.validate import may_be_custom, validate

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.x.io"},
       "spec": {"group": "x.io", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Cluster",
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": {
                        "size": {"type": "integer"}}}}}}}]}}


def test_built_in_groups_are_never_custom():
    assert not may_be_custom("apps/v1") and not may_be_custom("v1") and not may_be_custom("rbac.authorization.k8s.io/v1")
    assert may_be_custom("kubevirt.io/v1")


def test_a_custom_resource_is_checked_against_the_live_crd_once_per_call():
    api = FakeAPI({"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.x.io": CRD})
    widget = Target(3, {"apiVersion": "x.io/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": "big"}},
                    "x.io/v1", "Widget", "w", resource=object())  # type: ignore[arg-type]
    cache: list = []
    problems, checked = validate(context(api), [widget], lambda _i: False, cache)
    assert [(p.index, p.path) for p in problems] == [(3, "spec.size")] and checked == {3}
    validate(context(api), [widget], lambda _i: False, cache)
    assert api.sent("GET") == ["/apis/apiextensions.k8s.io/v1/customresourcedefinitions"]


def test_a_settled_object_is_not_validated_again():
    api = FakeAPI()
    widget = Target(0, {"apiVersion": "x.io/v1", "kind": "Widget", "metadata": {"name": "w"}}, "x.io/v1", "Widget",
                    "w")
    assert validate(context(api), [widget], lambda _i: True, []) == ([], frozenset()) and api.calls == []
