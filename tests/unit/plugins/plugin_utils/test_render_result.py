# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""hco_render's result for one render, as the module and the site's plan build it."""

from __future__ import annotations

import copy
import pathlib

import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import MANAGED_BY, render_result

HYPERCONVERGED = yaml.safe_load((pathlib.Path(__file__).resolve().parents[4] / "examples" / "hyperconverged.yml")
                                .read_text())


def managers(result):
    return {o["kind"]: (o.get("metadata") or {}).get("labels", {}).get(MANAGED_BY) for o in result["operands"]}


def test_standalone_operands_name_their_manager_where_hco_would_name_itself():
    as_hco = managers(render_result(render(copy.deepcopy(HYPERCONVERGED)), None))
    standalone = managers(render_result(render(copy.deepcopy(HYPERCONVERGED)), "virtinfra.hyperconverged"))
    labelled = {kind for kind, manager in as_hco.items() if manager is not None}
    assert labelled and as_hco["KubeVirt"] is not None
    # Standalone mode leaves out the Deployment HCO deploys with objects the engine does not render (companions.py).
    left_out = {"Deployment"}
    assert {kind for kind, manager in standalone.items() if manager == "virtinfra.hyperconverged"} == \
        labelled - left_out
    # An operand HCO leaves unlabelled gets no label either.
    assert {kind for kind, manager in standalone.items() if manager is None} == set(as_hco) - labelled - left_out


def test_the_result_says_what_was_rendered():
    rendered = render(copy.deepcopy(HYPERCONVERGED))
    result = render_result(rendered, None)
    assert result["release"] == rendered.release and result["hco_warnings"] == rendered.warnings
    assert result["msg"] == f"rendered {len(rendered.operands)} objects for HCO release {rendered.release}"
