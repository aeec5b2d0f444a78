# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.vm_validate (documentation in plugins/modules)."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._presets.vm_hardware import validate
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain


class ActionModule(ControllerAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {
        "vm": {"type": "dict", "required": True},
        "kubevirt": {"type": "dict", "required": True},
        "architecture": {"type": "str"},
    }

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        problems = validate(plain(args["vm"]), plain(args["kubevirt"]), args.get("architecture"))
        errors = [{"path": path, "message": message} for path, message in problems]
        if errors:
            return {"failed": True, "errors": errors, "msg": f"{len(errors)} problem(s): " + "; ".join(
                f"{e['path']}: {e['message']}" for e in errors)}
        return {"errors": [], "msg": "the VM hardware is valid for this cluster"}
