# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site's one validation pass over the composed plan: the node prerequisites and the HyperConverged are computed
as the later tasks compute them, and every problem they find is named by the user's variable (_site_paths), so a
bad inventory is told everything in one run, before any host or the cluster is contacted. PRIVATE; no Ansible
imports.
"""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import pruned_messages
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render as render_operands
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render as render_prereqs
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_compose import merge
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_paths import in_user_words, section, sections_of

# Every part of the plan depends on these: with one of them refused, planning would only repeat the refusal.
EVERYWHERE = frozenset({"site_platform", "site_platform_version", "site_hco_namespace", "site_release"})


def plan_problems(values: t.Mapping[str, t.Any], hyperconverged: dict[str, t.Any], prereqs_spec: dict[str, t.Any],
                  nodes: t.Sequence[t.Mapping[str, t.Any]], refused: t.Collection[str] = ()) -> list[str]:
    """Every problem of the prerequisites and of the HyperConverged they complete, in the user's words. A section
    fed by a setting in ``refused`` (planned with its default instead) is left out: its problems would be knock-on
    effects of that refusal."""
    if EVERYWHERE & set(refused):
        return []
    found: list[tuple[str, str]] = []
    patch: dict[str, t.Any] = {}
    try:
        patch = render_prereqs(prereqs_spec)["hyperconverged"]
    except PrerequisiteError as exc:
        found += [(e.path, e.message) for e in exc.errors]
    cluster = {"platform": values["platform"], "namespace": values["hco_namespace"], "nodes": list(nodes)}
    try:
        rendered = render_operands(merge(hyperconverged, patch), release=values["release"], cluster=cluster)
    except RenderError as exc:
        found += [(e.path, e.message) for e in exc.errors]
    else:
        if values["strict"]:   # as hco_render refuses them with strict (site_strict)
            found += [(field, message.split(": ", 1)[1])
                      for field, message in zip(rendered.pruned, pruned_messages(rendered.release, rendered.pruned))]
    skipped = sections_of(refused)
    return in_user_words([(path, message) for path, message in found if section(path) not in skipped], nodes)
