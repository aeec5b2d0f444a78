# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller side of virtinfra.hyperconverged.cluster_info (documentation in plugins/modules).

On a local connection the call runs in this worker (plugin_utils/_in_process.py says when and why); otherwise,
and with become, async or another interpreter, the module runs as any module does.
"""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import run_info
from ansible_collections.virtinfra.hyperconverged.plugins.modules import cluster_info as module
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._cluster_action import ClusterCallAction


class ActionModule(ClusterCallAction):
    ARGUMENT_SPEC = module.ARGUMENT_SPEC
    REQUIRED_ONE_OF = module.REQUIRED_ONE_OF

    def perform(self, task_vars: dict[str, t.Any]) -> dict[str, t.Any]:
        return self.call(task_vars, dict(self._task.args), run_info)
