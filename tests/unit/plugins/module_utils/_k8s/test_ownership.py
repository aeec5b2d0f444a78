# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Who owns an existing object: members, shared Namespaces and CRDs, adoption only on request."""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.applyset import PART_OF_LABEL, ApplySet
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Target
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.ownership import (
    conflicts,
    is_member,
    managers,
    never_applied,
    refusal,
    verdict,
)

SET = ApplySet("site", "kubevirt")
OURS = "virtinfra.hyperconverged"


def live(labels: dict | None = None, *entries: dict) -> dict:
    return {"metadata": {"name": "x", "labels": labels or {}, "managedFields": list(entries)}}


def entry(manager: str, operation: str = "Apply", labels: tuple[str, ...] = (), subresource: str = "") -> dict:
    fields: dict[str, t.Any] = {"f:metadata": {"f:labels": {f"f:{label}": {} for label in labels}}} if labels else {"f:data": {}}
    return {"manager": manager, "operation": operation, "fieldsV1": fields,
            **({"subresource": subresource} if subresource else {})}


MEMBER = live({PART_OF_LABEL: SET.id}, entry(OURS, labels=(PART_OF_LABEL,)))


def item(kind: str = "ConfigMap", api_version: str = "v1", current: dict | None = None) -> Target:
    return Target(4, {}, api_version, kind, "x", None if kind == "Namespace" else "kubevirt", live=current)


def test_a_member_carries_the_label_and_our_field_manager_applied_it():
    assert is_member(MEMBER, SET, OURS)
    copied = live({PART_OF_LABEL: SET.id}, entry("kubectl-create", "Update", labels=(PART_OF_LABEL,)))
    assert not is_member(copied, SET, OURS)                       # a copy of our manifest is not ours
    assert not is_member(live({PART_OF_LABEL: "applyset-other-v1"}, entry(OURS, labels=(PART_OF_LABEL,))), SET, OURS)
    assert not is_member(MEMBER, None, OURS)


@pytest.mark.parametrize(("kind", "api_version", "current", "adopt", "expected"), [
    ("ConfigMap", "v1", None, False, "member"),                     # absent: created as a member
    ("ConfigMap", "v1", MEMBER, False, "member"),
    ("ConfigMap", "v1", live({}, entry("kubectl-create", "Update")), False, "refused"),
    ("ConfigMap", "v1", live({}, entry("kubectl-create", "Update")), True, "adopt"),
    ("Namespace", "v1", live({}, entry("kubectl-create", "Update")), False, "shared"),
    ("Namespace", "v1", live({}, entry("kubectl-create", "Update")), True, "shared"),   # never adopted
    ("CustomResourceDefinition", "apiextensions.k8s.io/v1", live(), False, "shared"),
    ("Namespace", "example.com/v1", live(), False, "refused"),      # a custom kind named Namespace holds nothing
])
def test_the_verdict_for_an_existing_object(kind, api_version, current, adopt, expected):
    assert verdict(item(kind, api_version, current), SET, OURS, adopt) == expected


def test_without_an_apply_set_nothing_is_a_question_of_membership():
    assert verdict(item(current=live({}, entry("someone"))), None, OURS, False) == "member"


def test_the_refusal_names_the_object_its_managers_and_the_way_out():
    found = item(current=live({PART_OF_LABEL: "applyset-other-v1"}, entry("kubectl-create", "Update"),
                              entry("operator", "Apply"), entry("kubelet", "Update", subresource="status")))
    problem = refusal(found, SET)
    assert problem.object == "v1 ConfigMap kubevirt/x" and problem.index == 4
    assert "a member of another apply set (applyset-other-v1)" in problem.message
    assert "managed by kubectl-create (Update), operator (Apply)" in problem.message
    assert "adopt: true" in problem.message and "site_adopt: true" in problem.message
    assert managers(live()) == [] and "no field manager recorded" in refusal(item(current=live()), SET).message


def test_an_object_never_applied_by_us_names_each_conflicting_field():
    assert never_applied(live({}, entry("kubectl-create", "Update")), OURS)
    assert not never_applied(live({}, entry(OURS)), OURS)
    causes = [{"reason": "FieldManagerConflict", "message": 'conflict with "kubectl-create" using v1', "field": ".data.k"},
              {"reason": "FieldValueInvalid", "message": "other", "field": ".x"}]
    [problem] = conflicts(item(), causes, OURS)
    assert problem.path == "data.k" and problem.message.startswith('conflict with "kubectl-create" using v1: ')
    assert "adopt: true" in problem.message
