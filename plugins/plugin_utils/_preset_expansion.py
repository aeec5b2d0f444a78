# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A preset's expansion of a HyperConverged, as the hco_preset filter returns it and the site's plan keeps it.
PRIVATE; no Ansible imports (the filter imports this module when it is called: it loads the engine)."""

from __future__ import annotations

import copy
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._presets.presets import expand


def expand_preset(hyperconverged: dict[str, t.Any], preset: str, *, release: str, cluster: t.Mapping[str, t.Any],
                  local_storage: bool = False, monitor_namespace: str | None = None,
                  monitor_account: str | None = None) -> dict[str, t.Any]:
    """``{hyperconverged, objects, report, vm_defaults}``: the HyperConverged with ``preset`` applied where HCO does
    not already set the value (so the engine renders it first, for ``cluster``), the preset's extra objects and what
    went where. Without a preset, the HyperConverged as it is, with no objects and an empty report. The engine's
    RenderError passes through."""
    if not preset:
        return {"hyperconverged": hyperconverged, "objects": [], "report": {}, "vm_defaults": {}}
    operands = render(hyperconverged=copy.deepcopy(hyperconverged), release=release, cluster=cluster).operands
    return expand(preset, copy.deepcopy(hyperconverged), rendered={o["kind"]: o for o in operands},
                  local_storage=local_storage, monitor_namespace=monitor_namespace, monitor_account=monitor_account)
