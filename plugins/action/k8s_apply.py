# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller side of virtinfra.hyperconverged.k8s_apply (documentation in plugins/modules).

On a local connection (``delegate_to: localhost``, an execution environment) a relative ``src`` path is looked up
the way Ansible looks up files for ``copy`` or ``kubernetes.core.k8s``: the role's ``files/``, then the playbook's
``files/`` and directory; and ``wait_for`` runs here, after the module, so that what it waits for is printed while it
waits (a module prints nothing until it ends). There too the call itself runs in this worker
(plugin_utils/_in_process.py says when and why). Every other connection, and become, async or another
interpreter, goes to the module unchanged.
"""

from __future__ import annotations

import contextlib
import os
import typing as t

from ansible.errors import AnsibleError
from ansible.module_utils.common.validation import check_type_list
from ansible.utils.display import Display

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.discovery import Discovery
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import connect
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import run_apply, wait_specs
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.waits import WaitFailed, wait_saying
from ansible_collections.virtinfra.hyperconverged.plugins.modules import k8s_apply as module
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _in_process
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._cluster_action import ClusterCallAction

display = Display()


class ActionModule(ClusterCallAction):
    ARGUMENT_SPEC = module.ARGUMENT_SPEC
    REQUIRED_ONE_OF = module.REQUIRED_ONE_OF

    def perform(self, task_vars: dict[str, t.Any]) -> dict[str, t.Any]:
        module_args = dict(self._task.args)
        local = self._connection.transport == "local"
        if module_args.get("src") is not None and local:
            module_args["src"] = self._found(module_args["src"])
        wrap_async = self._task.async_val
        waits_here = (local and not wrap_async and not self._task.check_mode and module_args.get("wait_for")
                      and module_args.get("wait", True) not in (False, "false", "no"))
        if waits_here:
            module_args["wait_for"] = []
        check_mode, diff = bool(self._task.check_mode), bool(self._task.diff)
        result = self.call(task_vars, module_args, lambda params: run_apply(params, check_mode, diff))
        if waits_here and not result.get("failed"):
            result.update(self._wait())
        return result

    def _wait(self) -> dict[str, t.Any]:
        """The module's wait_for, here on the controller, saying what it waits for (and at least every 30 s)."""
        try:
            with _in_process.task_environment(self):
                _validation, args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)
                connection = connect(args)
                waited = wait_saying(connection, Discovery(connection), wait_specs(args["wait_for"]),
                                     float(args["wait_timeout"]),
                                     lambda line: display.display(f"[k8s_apply] {line}"))
        except (WaitFailed, KubeError) as exc:
            return {"failed": True, "msg": f"the objects were written; then {exc}", "waited": []}
        return {"waited": waited}

    def _found(self, src: t.Any) -> t.Any:
        try:
            paths = check_type_list(src)
        except TypeError:
            return src   # the module's argument check reports it
        found = []
        for path in paths:
            if isinstance(path, str) and path.strip() and not os.path.isabs(os.path.expanduser(path)):
                # Not found: left relative, for the module to report with every other problem.
                with contextlib.suppress(AnsibleError):
                    path = self._find_needle("files", path)
            found.append(path)
        return found
