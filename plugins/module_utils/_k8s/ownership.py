# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Who owns an existing object: the rule that decides, before any write, whether this run may make it a member.

An apply set deletes its members when they leave the input (prune). An object someone else created that happens to
have the name of an input object must therefore never become a member silently: applying it would label it, and a
later prune would delete that person's data. The rule, for an object that exists and is not a member:

- a Namespace or CustomResourceDefinition is *shared*: applied without the membership label, never pruned (a
  Namespace created by hand, or by OLM, is where most installations start); one that another apply set of ours
  created is used as it is, not applied at all (the same field manager applying it without that set's labels would
  take them away, and the two sets would undo each other on every run);
- anything else is refused, naming it and who manages its fields, unless ``adopt`` is set: then it becomes a
  member, reported as ``adopted``.

Without an apply set there is no membership, but the same care applies to fields: an object our field manager has
never applied is planned without force, so a field another manager set is reported as a conflict, not taken over,
unless ``adopt`` is set (kubectl apply --server-side does the same without --force-conflicts).

PRIVATE.
"""

from __future__ import annotations

import typing as t

from .applyset import PART_OF_LABEL, ApplySet
from .fields import main_resource_entries
from .model import CONTAINER_KINDS, Desired, Problem, Target

ADOPT_HINT = ("to take it over (it is then pruned when it leaves the input), set adopt: true (the site playbook: "
              "site_adopt: true)")


def applied_by(obj: t.Mapping[str, t.Any], field_manager: str) -> bool:
    """``field_manager`` applied the object's part-of label (a copied manifest with our labels was not)."""
    for entry in (obj.get("metadata") or {}).get("managedFields") or []:
        if entry.get("manager") != field_manager or entry.get("operation") != "Apply":
            continue
        labels = ((entry.get("fieldsV1") or {}).get("f:metadata") or {}).get("f:labels") or {}
        if f"f:{PART_OF_LABEL}" in labels:
            return True
    return False


def is_member(obj: t.Mapping[str, t.Any], applyset: ApplySet | None, field_manager: str) -> bool:
    """Created by this apply set: its part-of label, applied by our field manager."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return applyset is not None and labels.get(PART_OF_LABEL) == applyset.id and applied_by(obj, field_manager)


def other_set(obj: t.Mapping[str, t.Any], applyset: ApplySet | None, field_manager: str) -> str:
    """The id of another apply set whose member ``obj`` is (its part-of label, applied by our field manager)."""
    label = ((obj.get("metadata") or {}).get("labels") or {}).get(PART_OF_LABEL) or ""
    if applyset is None or not label or label == applyset.id or not applied_by(obj, field_manager):
        return ""
    return str(label)


def never_applied(obj: t.Mapping[str, t.Any], field_manager: str) -> bool:
    """``field_manager`` has never applied anything to the object (no managedFields entry of its own)."""
    return not any(entry.get("manager") == field_manager
                   for entry in (obj.get("metadata") or {}).get("managedFields") or [])


def conflicts(item: Desired, causes: t.Sequence[t.Mapping[str, t.Any]], field_manager: str) -> list[Problem]:
    """The fields of an object we never applied that another manager set, from a 409's FieldManagerConflict causes
    ('conflict with "kubectl-create" using v1', field '.data.k')."""
    return [item.error(str(cause.get("field") or "").lstrip("."),
                       f"{cause.get('message') or 'conflict'}: this object was never applied by {field_manager}, so "
                       "a field another manager set is not taken over; to take its fields over, set adopt: true")
            for cause in causes if cause.get("reason") == "FieldManagerConflict"]   # metav1.StatusCause.Type


def managers(obj: t.Mapping[str, t.Any]) -> list[str]:
    """'kubectl-create (Update)' for each field manager of the object's main resource."""
    found = []
    for entry in main_resource_entries(obj):
        label = f"{entry.get('manager') or 'unknown'} ({entry.get('operation') or '?'})"
        if label not in found:
            found.append(label)
    return found


Verdict = t.Literal["member", "shared", "adopt", "refused"]


def verdict(item: Target, applyset: ApplySet | None, field_manager: str, adopt: bool) -> Verdict:
    """What this run may do with the existing object of ``item`` (``member`` when there is no apply set, no live
    object, or it is one already)."""
    live = item.live
    if applyset is None or live is None or is_member(live, applyset, field_manager):
        return "member"
    if item.kind in CONTAINER_KINDS and item.api_version in ("v1", "apiextensions.k8s.io/v1"):
        return "shared"
    return "adopt" if adopt else "refused"


def refusal(item: Target, applyset: ApplySet) -> Problem:
    live = item.live or {}
    labels = (live.get("metadata") or {}).get("labels") or {}
    other = labels.get(PART_OF_LABEL)
    whose = f"a member of another apply set ({other})" if other and other != applyset.id else \
        "not a member of this apply set"
    by = ", ".join(managers(live)) or "no field manager recorded"
    return item.error("", f"already exists and is {whose}; its fields are managed by {by}. It was not adopted "
                          f"into apply set {applyset.label}: {ADOPT_HINT}")
