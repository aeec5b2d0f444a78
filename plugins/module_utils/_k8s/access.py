# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rights no dry run proves, asked with SelfSubjectAccessReviews before the first write. PRIVATE.

A dry run is authorized as its write is (patch, and create when it would create), so only these are asked: create
and patch for objects whose dry run waits for a Namespace or CRD of this run, delete for what prune or state=absent
removes, and the apply set's lock (its renewal, and its create when the lock's namespace is written first). A no-op
run asks nothing. A missing right stops the run before it changed anything.
"""

from __future__ import annotations

import typing as t

from .applyset import lease_name
from .context import Context
from .model import Problem, PruneCandidate, Target

Attributes = tuple[str, str, str, str, str]   # verb, group, plural, namespace, name


def needed(items: t.Sequence[Target], deletes: t.Sequence[PruneCandidate], lock: tuple[str, str, bool] | None
           ) -> list[Attributes]:
    """The reviews to ask; ``lock`` is (apply set name, its namespace, whether this run creates that namespace) when
    the run will take the lock."""
    wanted: set[Attributes] = set()
    for item in items:
        resource = item.resource
        if resource is None or not item.deferred:
            continue
        namespace = (item.namespace or "") if resource.namespaced else ""
        # The apply-set parent is asked for by name: an account may be allowed only its own parents.
        name = item.name if item.is_parent else ""
        wanted.update((("create", resource.group, resource.plural, namespace, ""),
                       ("patch", resource.group, resource.plural, namespace, name)))
    for candidate in deletes:
        resource = candidate.resource
        namespace = (candidate.namespace or "") if resource.namespaced else ""
        wanted.add(("delete", resource.group, resource.plural, namespace, ""))
    if lock is not None:
        # A renewal refused halfway through would stop the run there; reading and creating the lock fail before
        # the first write, and a refused release is reported.
        name, home, creates_home = lock
        wanted.add(("update", "coordination.k8s.io", "leases", home, lease_name(name)))
        if creates_home:
            wanted.add(("create", "coordination.k8s.io", "leases", home, ""))
    return sorted(wanted)


def check(ctx: Context, wanted: t.Sequence[Attributes], answers: dict[Attributes, bool]) -> list[Problem]:
    """Ask what ``answers`` (kept across the two plans of a run) does not hold yet; a problem per refused right."""
    asked = [w for w in wanted if w not in answers]
    answers.update(zip(asked, ctx.parallel(lambda w: _allowed(ctx, w), asked)))
    problems = []
    for (verb, group, plural, namespace, name) in wanted:
        if not answers[(verb, group, plural, namespace, name)]:
            what = (f"{plural}.{group}" if group else plural) + (f" {name}" if name else "")
            scope = f"in namespace {namespace}" if namespace else "at cluster scope"
            problems.append(Problem(object="access", path="", message=f"this user cannot {verb} {what} {scope}"))
    return problems


def _allowed(ctx: Context, attributes: Attributes) -> bool:
    verb, group, plural, namespace, name = attributes
    wanted = {"verb": verb, "group": group, "resource": plural, "namespace": namespace}
    if name:
        wanted["name"] = name
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
              "spec": {"resourceAttributes": wanted}}
    answer = ctx.connection.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                                    body=review, counts_as_write=False)
    return bool((answer.get("status") or {}).get("allowed"))
