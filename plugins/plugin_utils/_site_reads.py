# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the site's one read of the cluster asks for, from its plan: the kinds whose being served decides what it
writes (every kind a configuration writes, and the hyperconverged role's), the live objects the prerequisites are
checked against, and, by ownership mode, the kinds that must be served before anything is written. Computed with
the plan, so that neither the read's task nor the refusal's loads a filter: to find one, Ansible loads every filter
file of the collection in each task's worker. PRIVATE; no Ansible imports."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.cluster_reads import cluster_reads
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.providers import install_lines, kinds_of
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_plan import Plan


def site_reads(state: str, prereqs_spec: t.Mapping[str, t.Any], plan: Plan) -> dict[str, t.Any]:
    """``kinds`` and ``read`` as cluster_info takes them, and ``needs``: for each mode (``hco``, ``standalone``) the
    ``apiVersion/kind`` keys of cluster_info's ``served`` that what the site writes in that mode needs, each with the
    line that says what to install for it (none for a removal). ``prereqs_spec`` is the spec of the site's state
    (its removal spec for a removal); ``plan`` is the site's plan, made without a problem."""
    prereqs, expanded, render = plan.prereqs, plan.expanded, plan.render
    if prereqs is None or expanded is None or render is None:
        raise ValueError("a plan with problems has no reads")
    present = state == "present"
    written = list(prereqs["objects"]) + [expanded["hyperconverged"]] + list(render["operands"]) + list(
        expanded.get("objects") or [])
    kinds = ([{"apiVersion": version, "kind": kind} for version, kind in kinds_of(written)] if present else []) + \
        cluster_reads("hyperconverged")["kinds"]
    by_mode = {"hco": list(prereqs["objects"]) + [expanded["hyperconverged"]],
               "standalone": list(prereqs["objects"]) + list(render["operands"])}
    needs = {mode: install_lines(objects) if present else {} for mode, objects in by_mode.items()}
    return {"kinds": kinds, "read": cluster_reads("prerequisites", prereqs_spec)["read"], "needs": needs}
