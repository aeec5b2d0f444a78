# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A cluster module's argument check, on the controller, before anything runs. PRIVATE.

AnsibleModule fails a call whose arguments do not pass before the module's own code runs, so before the module can
mark the objects' Secret values as no_log; ansible-core before 2.21 then returns every argument in the result's
invocation, Secret data included (printed at -vvv, kept by register). The action plugins therefore check the arguments
first, with AnsibleModule's validator and its messages, and a call that fails the check never reaches the module.
"""

from __future__ import annotations

import typing as t

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator, ValidationResult
from ansible.module_utils.errors import UnsupportedError


def checked(argument_spec: dict[str, t.Any], required_one_of: list[t.Any], args: t.Mapping[str, t.Any]
            ) -> ValidationResult:
    return ArgumentSpecValidator(argument_spec, required_one_of=required_one_of).validate(dict(args))


def refusal(action_name: str, result: ValidationResult) -> dict[str, t.Any] | None:
    """The failed result AnsibleModule would give (ansible-core module_utils/basic.py, AnsibleModule.__init__), without
    the arguments; None when the arguments pass."""
    if not result.error_messages:
        return None
    message = str(result.errors.msg)
    if isinstance(result.errors[0], UnsupportedError):
        message = f"Unsupported parameters for ({action_name}) module: {message}"
    return {"failed": True, "changed": False, "msg": message}
