# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.node_prereqs (documentation in plugins/modules)."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.live import with_live
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._prereqs_result import prereqs_result
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain


class ActionModule(ControllerAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {
        "spec": {"type": "dict", "required": True},
        "create_namespaces": {"type": "bool", "default": False},
        "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
        "cluster_info": {"type": "dict"},
    }

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        spec = plain(args["spec"])
        try:
            if args["cluster_info"] is not None:
                spec = with_live(spec, plain(args["cluster_info"]))
            rendered = render(spec, args["state"])
        except PrerequisiteError as exc:
            # The warnings matter on failure too (a policy that would not be used, a reboot to come).
            failed: dict[str, t.Any] = {"failed": True, "msg": str(exc), "errors": [e.as_dict() for e in exc.errors]}
            if exc.warnings:
                failed["warnings"] = list(exc.warnings)
            return failed
        return prereqs_result(rendered, spec, args["state"], args["create_namespaces"])
