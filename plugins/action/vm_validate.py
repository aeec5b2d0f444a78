# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.vm_validate (documentation in plugins/modules)."""

from __future__ import annotations

import typing as t

from ansible.plugins.action import ActionBase

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._presets.vm_hardware import validate
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render import plain

ARGUMENT_SPEC: dict[str, t.Any] = {
    "vm": {"type": "dict", "required": True},
    "kubevirt": {"type": "dict", "required": True},
    "architecture": {"type": "str"},
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: t.Any = None, task_vars: t.Optional[dict[str, t.Any]] = None) -> dict[str, t.Any]:
        result = super().run(tmp, task_vars)
        del tmp
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        problems = validate(plain(args["vm"]), plain(args["kubevirt"]), args.get("architecture"))
        errors = [{"path": path, "message": message} for path, message in problems]
        result.update(changed=False, errors=errors)
        if errors:
            result.update(failed=True, msg=f"{len(errors)} problem(s): " + "; ".join(
                f"{e['path']}: {e['message']}" for e in errors))
        else:
            result["msg"] = "the VM hardware is valid for this cluster"
        return result
