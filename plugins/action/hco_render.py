# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.hco_render (documentation in plugins/modules/hco_render.py)."""

from __future__ import annotations

import typing as t

from ansible.plugins.action import ActionBase

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render import ARGUMENT_SPEC, render_kwargs


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: t.Any = None, task_vars: t.Optional[dict[str, t.Any]] = None) -> dict[str, t.Any]:
        result = super().run(tmp, task_vars)
        del tmp
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        try:
            rendered = render(**render_kwargs(args))
        except RenderError as exc:
            result.update(failed=True, msg=str(exc), errors=[e.as_dict() for e in exc.errors],
                          hco_warnings=exc.warnings)
            return result
        result.update(
            changed=False,
            operands=rendered.operands,
            hyperconverged=rendered.hyperconverged,
            hco_warnings=rendered.warnings,
            unsafe_modifications=rendered.unsafe_modifications,
            tainted=rendered.tainted,
            release=rendered.release,
            pruned_fields=rendered.pruned,
            msg=f"rendered {len(rendered.operands)} objects for HCO release {rendered.release}",
        )
        if rendered.warnings:
            result["warnings"] = list(rendered.warnings)
        return result
