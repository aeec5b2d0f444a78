# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.write_manifests (documentation in plugins/modules)."""

from __future__ import annotations

import os
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _manifest_files as manifest_files
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain


class ActionModule(ControllerAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {
        "dest": {"type": "str", "default": "rendered"},
        "objects": {"type": "list", "elements": "dict", "required": True},
        "prune": {"type": "bool", "default": True},
        "kustomization": {"type": "bool", "default": False},
        "folders": {"type": "list", "elements": "str", "default": []},
        "kustomized": {"type": "list", "elements": "str", "default": []},
    }

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        dest = str(args["dest"]).strip()
        if not dest or "{{" in dest or "{%" in dest:
            return {"failed": True, "msg": f"dest must be a directory path, got {dest!r} (a value that did not template?)"}
        directory = os.path.abspath(os.path.expanduser(dest))  # relative to where ansible-playbook runs
        plan = manifest_files.plan(directory, plain(args["objects"]), prune=args["prune"],
                                   kustomization=args["kustomization"], folders=args["folders"],
                                   kustomized=args["kustomized"])
        result: dict[str, t.Any] = {
            "dest": directory, "written": plan.write, "unchanged": plan.unchanged, "removed": plan.remove,
            "files": sorted(plan.contents), "changed": plan.changed,
        }
        if plan.errors:
            return {**result, "failed": True, "changed": False, "errors": plan.errors,
                    "msg": f"nothing written: {len(plan.errors)} problem(s): " + "; ".join(plan.errors)}
        if self._task.diff:
            result["diff"] = [self._diff(plan, name, removed=False) for name in plan.write] + [
                self._diff(plan, name, removed=True) for name in plan.remove]
        if not self._task.check_mode:
            manifest_files.apply(plan)
        result["msg"] = (f"{len(plan.contents)} manifest(s) in {directory}: {len(plan.write)} written, "
                         f"{len(plan.remove)} removed")
        return result

    @staticmethod
    def _diff(plan: manifest_files.Plan, name: str, removed: bool) -> dict[str, str]:
        path = plan.directory / name
        if name.rpartition("/")[2].startswith("secret-"):  # a Secret's data never reaches the output
            return {"before_header": str(path), "after_header": str(path), "before": "",
                    "after": "(a Secret: content not shown)\n"}
        return {"before_header": str(path), "after_header": "(removed)" if removed else str(path),
                "before": path.read_text(encoding="utf-8") if path.is_file() else "",
                "after": "" if removed else plan.contents[name]}
