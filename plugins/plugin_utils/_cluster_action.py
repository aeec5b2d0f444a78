# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a cluster module's call runs: in Ansible's worker where _in_process allows it, otherwise as the module, its
arguments checked on the controller first (_argument_check). PRIVATE."""

from __future__ import annotations

import typing as t

from ansible.plugins.action import ActionBase
from ansible.utils.vars import merge_hash

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import without_fallbacks
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import Outcome
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _argument_check, _in_process


class ClusterCallAction(ActionBase):
    """Subclasses set ARGUMENT_SPEC and REQUIRED_ONE_OF (the module's) and implement perform(), which calls call()."""

    _supports_check_mode = True
    _supports_async = True
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {}
    REQUIRED_ONE_OF: t.ClassVar[list[t.Any]] = []

    def run(self, tmp: t.Any = None, task_vars: dict[str, t.Any] | None = None) -> dict[str, t.Any]:
        result = super().run(tmp, task_vars)
        del tmp
        return merge_hash(result, self.perform(task_vars or {}))

    def perform(self, task_vars: dict[str, t.Any]) -> dict[str, t.Any]:
        raise NotImplementedError

    def call(self, task_vars: dict[str, t.Any], module_args: dict[str, t.Any],
             here: t.Callable[[dict[str, t.Any]], Outcome]) -> dict[str, t.Any]:
        """The call's result: ``here`` (given the checked parameters) in this worker, or the module's."""
        if _in_process.eligible(self, task_vars):
            return _in_process.run(self, task_vars, module_args, self.ARGUMENT_SPEC, self.REQUIRED_ONE_OF, here)
        refused = _argument_check.refusal(self._task.action, _argument_check.checked(
            without_fallbacks(self.ARGUMENT_SPEC), self.REQUIRED_ONE_OF, module_args))
        if refused is not None:
            return refused
        wrap_async = self._task.async_val
        result = self._execute_module(module_args=module_args, task_vars=task_vars, wrap_async=wrap_async)
        if not wrap_async:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result
