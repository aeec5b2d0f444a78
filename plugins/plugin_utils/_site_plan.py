# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site's plan, computed once: the node prerequisites, the HyperConverged they complete, the preset's expansion
and the operands, each as the node_prereqs module, the hco_preset filter and the hco_render module would return it
for the site's inputs. Every problem on the way is named by the user's variable (_site_paths), so a bad inventory
is told everything in one run, before any host or the cluster is contacted. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import copy
import dataclasses
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.merge import merge
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.names import COLLECTION
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import pruned_messages
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render as render_operands
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render as render_prereqs
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._prereqs_result import prereqs_result
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._preset_expansion import expand_preset
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import render_result
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_paths import in_user_words, section, sections_of

# Every part of the plan depends on these: with one of them refused, planning would only repeat the refusal.
EVERYWHERE = frozenset({"site_platform", "site_platform_version", "site_hco_namespace", "site_release"})
# Who manages the operands the site writes itself (standalone mode, and auto until the cluster says HCO runs).
MANAGER = COLLECTION


@dataclasses.dataclass(frozen=True)
class Plan:
    """What the site's later stages read - ``prereqs`` (site_prereqs, node_prereqs' result for the site's state),
    ``hyperconverged`` (site_hyperconverged: the settings' HyperConverged with the prerequisites' patch),
    ``expanded`` (site_expanded, the hco_preset filter's result) and ``render`` (site_render, hco_render's result for
    the expansion, the site's nodes and its mode) - or, where it cannot be made, the problems in the user's words."""

    problems: tuple[str, ...] = ()
    prereqs: dict[str, t.Any] | None = None
    hyperconverged: dict[str, t.Any] | None = None
    expanded: dict[str, t.Any] | None = None
    render: dict[str, t.Any] | None = None
    warnings: tuple[str, ...] = ()   # the prerequisites' and the render's, as those modules would warn


def site_plan(values: t.Mapping[str, t.Any], hyperconverged: dict[str, t.Any], prereqs_spec: dict[str, t.Any],
              removal_spec: dict[str, t.Any], nodes: t.Sequence[t.Mapping[str, t.Any]],
              refused: t.Collection[str] = ()) -> Plan:
    """The plan for the effective settings ``values``. A section fed by a setting in ``refused`` (planned with its
    default instead) is left out of the problems: they would be knock-on effects of that refusal."""
    if EVERYWHERE & set(refused):
        return Plan()
    found: list[tuple[str, str]] = []
    warnings: list[str] = []
    prereqs = _prereqs(prereqs_spec, removal_spec, values["state"], found, warnings)
    merged = expanded = render = None
    if prereqs is not None:
        merged = merge(hyperconverged, prereqs["hyperconverged"])
        expanded = _expanded(values, merged, found)
    if expanded is not None:
        render = _render(values, expanded["hyperconverged"], nodes, found, warnings)
    skipped = sections_of(refused)
    problems = in_user_words([(path, message) for path, message in found if section(path) not in skipped], nodes)
    if problems or render is None:
        return Plan(problems=tuple(problems))
    return Plan(prereqs=prereqs, hyperconverged=merged, expanded=expanded, render=render, warnings=tuple(warnings))


def _prereqs(spec: dict[str, t.Any], removal_spec: dict[str, t.Any], state: str, found: list[tuple[str, str]],
             warnings: list[str]) -> dict[str, t.Any] | None:
    """The prerequisites as node_prereqs (create_namespaces) computes them for the site's state. The spec is
    checked as a configuration in either state: a removal plans what a configuration would have made."""
    try:
        rendered = render_prereqs(copy.deepcopy(spec))
        if state == "absent":
            spec, rendered = removal_spec, render_prereqs(copy.deepcopy(removal_spec), "absent")
    except PrerequisiteError as exc:
        found += [(e.path, e.message) for e in exc.errors]
        return None
    warnings += rendered["warnings"]
    return prereqs_result(rendered, spec, state, create_namespaces=True)


def _expanded(values: t.Mapping[str, t.Any], merged: dict[str, t.Any],
              found: list[tuple[str, str]]) -> dict[str, t.Any] | None:
    """As the hco_preset filter expands site_preset (for the cluster without its nodes, as the site called it)."""
    try:
        return expand_preset(merged, values["preset"], release=values["release"],
                             cluster={"platform": values["platform"], "namespace": values["hco_namespace"]})
    except RenderError as exc:
        found += [(e.path, e.message) for e in exc.errors]
        return None


def _render(values: t.Mapping[str, t.Any], hyperconverged: dict[str, t.Any], nodes: t.Sequence[t.Mapping[str, t.Any]],
            found: list[tuple[str, str]], warnings: list[str]) -> dict[str, t.Any] | None:
    """As hco_render renders the expansion with site_strict: an unknown field is a problem with strict, a warning
    without, as kubectl prints the server's."""
    try:
        rendered = render_operands(hyperconverged=copy.deepcopy(hyperconverged), release=values["release"],
                                   cluster=_cluster(values, nodes))
    except RenderError as exc:
        found += [(e.path, e.message) for e in exc.errors]
        return None
    pruned = pruned_messages(rendered.release, rendered.pruned)
    if values["strict"]:
        found += [(field, message.split(": ", 1)[1]) for field, message in zip(rendered.pruned, pruned)]
    result = render_result(rendered, MANAGER if values["mode"] != "hco" else None)
    warnings += list(result["hco_warnings"]) + pruned
    return result


def _cluster(values: t.Mapping[str, t.Any], nodes: t.Sequence[t.Mapping[str, t.Any]]) -> dict[str, t.Any]:
    return {"platform": values["platform"], "namespace": values["hco_namespace"], "nodes": copy.deepcopy(list(nodes)),
            "base_domain": ""}


def operands_of(values: t.Mapping[str, t.Any], hyperconverged: dict[str, t.Any],
                nodes: t.Sequence[t.Mapping[str, t.Any]]) -> list[dict[str, t.Any]] | None:
    """The operands HCO builds from a HyperConverged the cluster holds, for the site's cluster and nodes (None where
    the engine refuses it: a stored HyperConverged HCO's webhook admitted, so not the user's problem to name)."""
    try:
        return list(render_operands(hyperconverged=copy.deepcopy(hyperconverged), release=values["release"],
                                    cluster=_cluster(values, nodes)).operands)
    except RenderError:
        return None
