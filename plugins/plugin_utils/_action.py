# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Base of the controller-side actions: argument validation, no connection, check mode. PRIVATE."""

from __future__ import annotations

import typing as t

from ansible.plugins.action import ActionBase


class ControllerAction(ActionBase):
    """Subclasses set ARGUMENT_SPEC and implement compute(args) returning the result fields."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {}
    _task_vars: dict[str, t.Any] | None = None

    def run(self, tmp: t.Any = None, task_vars: dict[str, t.Any] | None = None) -> dict[str, t.Any]:
        result = super().run(tmp, task_vars)
        del tmp
        self._task_vars = task_vars
        _validation, args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)
        result.update(changed=False)
        result.update(self.compute(args))
        return result

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        raise NotImplementedError
