# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.hco_render (documentation in plugins/modules/hco_render.py)."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import pruned_messages, render
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import ARGUMENT_SPEC, render_kwargs, render_result


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = ARGUMENT_SPEC

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        try:
            rendered = render(**render_kwargs(args))
        except RenderError as exc:
            return {"failed": True, "msg": str(exc), "errors": [e.as_dict() for e in exc.errors],
                    "hco_warnings": exc.warnings}
        result = render_result(rendered, args.get("managed_by"))
        # As kubectl prints the server's unknown-field warnings: a typo never passes silently; strict refuses it.
        pruned = pruned_messages(rendered.release, rendered.pruned)
        if pruned and args["strict"]:
            return {"failed": True, "pruned_fields": rendered.pruned,
                    "errors": [{"path": f, "message": m.split(": ", 1)[1], "stage": "schema"}
                               for f, m in zip(rendered.pruned, pruned)],
                    "msg": f"{len(pruned)} unknown field(s) in the HyperConverged (strict): " + "; ".join(pruned)}
        if rendered.warnings or pruned:
            result["warnings"] = list(rendered.warnings) + pruned
        return result
