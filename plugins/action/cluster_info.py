# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller side of virtinfra.hyperconverged.cluster_info (documentation in plugins/modules).

On a local connection the call runs in this worker (plugin_utils/_in_process.py says when and why); otherwise,
and with become, async or another interpreter, the module runs as any module does.
"""

from __future__ import annotations

import typing as t

from ansible.plugins.action import ActionBase
from ansible.utils.vars import merge_hash

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import run_info
from ansible_collections.virtinfra.hyperconverged.plugins.modules.cluster_info import ARGUMENT_SPEC, REQUIRED_ONE_OF
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _argument_check, _in_process


class ActionModule(ActionBase):
    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp: t.Any = None, task_vars: dict[str, t.Any] | None = None) -> dict[str, t.Any]:
        result = super().run(tmp, task_vars)
        del tmp
        task_vars = task_vars or {}
        if _in_process.eligible(self, task_vars):
            return merge_hash(result, _in_process.run(self, task_vars, dict(self._task.args), ARGUMENT_SPEC,
                                                      REQUIRED_ONE_OF, run_info))
        refused = _argument_check.refusal(self._task.action, _argument_check.checked(
            _argument_check.without_fallbacks(ARGUMENT_SPEC), REQUIRED_ONE_OF, self._task.args))
        if refused is not None:
            return merge_hash(result, refused)
        wrap_async = self._task.async_val
        result = merge_hash(result, self._execute_module(task_vars=task_vars, wrap_async=wrap_async))
        if not wrap_async:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result
