# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.node_prereqs (documentation in plugins/modules)."""

from __future__ import annotations

import typing as t

from ansible.plugins.action import ActionBase

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render, with_namespaces
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render import plain

ARGUMENT_SPEC: dict[str, t.Any] = {"spec": {"type": "dict", "required": True},
                                   "create_namespaces": {"type": "bool", "default": False}}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: t.Any = None, task_vars: t.Optional[dict[str, t.Any]] = None) -> dict[str, t.Any]:
        result = super().run(tmp, task_vars)
        del tmp
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        try:
            rendered = render(plain(args["spec"]))
        except PrerequisiteError as exc:
            result.update(failed=True, msg=str(exc), errors=[e.as_dict() for e in exc.errors])
            return result
        sections = rendered["sections"]
        result.update(
            changed=False,
            objects=with_namespaces(rendered["objects"]) if args["create_namespaces"] else rendered["objects"],
            hyperconverged=rendered["hyperconverged"],
            swap=_without_objects(sections.get("swap")),
            generated_nads=(sections.get("sriov") or {}).get("generated_nads", []),
            storage_directories=(sections.get("storage") or {}).get("directories", []),
            msg=f"computed {len(rendered['objects'])} objects",
        )
        if rendered["warnings"]:
            result["warnings"] = list(rendered["warnings"])
        return result


def _without_objects(section: t.Optional[dict[str, t.Any]]) -> dict[str, t.Any]:
    return {k: v for k, v in (section or {}).items() if k not in ("objects", "warnings")}
