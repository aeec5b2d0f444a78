# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.node_prereqs (documentation in plugins/modules)."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render, with_namespaces
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render import plain


class ActionModule(ControllerAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {
        "spec": {"type": "dict", "required": True},
        "create_namespaces": {"type": "bool", "default": False},
        "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
    }

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        try:
            rendered = render(plain(args["spec"]), args["state"])
        except PrerequisiteError as exc:
            # The warnings matter on failure too (a policy that would not be used, a reboot to come).
            failed: dict[str, t.Any] = {"failed": True, "msg": str(exc), "errors": [e.as_dict() for e in exc.errors]}
            if exc.warnings:
                failed["warnings"] = list(exc.warnings)
            return failed
        sections = rendered["sections"]
        result: dict[str, t.Any] = {
            "objects": (with_namespaces(rendered["objects"], [args["spec"].get("hco_namespace", "")])
                        if args["create_namespaces"] and args["state"] == "present" else rendered["objects"]),
            "delete_first": rendered["delete_first"],
            "delete": rendered["delete"],
            "hyperconverged": rendered["hyperconverged"],
            "swap": {k: v for k, v in (sections.get("swap") or {}).items() if k not in ("objects", "warnings")},
            "generated_nads": (sections.get("sriov") or {}).get("generated_nads", []),
            "storage_directories": (sections.get("storage") or {}).get("directories", []),
            "network_rollout": (sections.get("networking") or {}).get("rollout", []),
            "address_preview": (sections.get("networking") or {}).get("address_preview", []),
            "storage_pool_claims": (sections.get("storage") or {}).get("pool_claims", []),
            "storage_volume_roots": (sections.get("storage") or {}).get("volume_roots", []),
            "storage_names": (sections.get("storage") or {}).get("names", {}),
            "msg": f"computed {len(rendered['objects'])} objects",
        }
        if rendered["warnings"]:
            result["warnings"] = list(rendered["warnings"])
        return result
