# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side action for virtinfra.hyperconverged.operators (documentation in plugins/modules).

It runs on the controller, so that what it waits for is printed while it waits (a module cannot print until it
ends), with the API connection the cluster modules use.
"""

from __future__ import annotations

import typing as t

from ansible.utils.display import Display

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import (
    AUTH_ARGUMENT_SPEC,
    connect,
)
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.report import connection_used
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import bundles
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.run import Failed, run
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import ROLE_NAMES, Settings
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.steps import check_overrides
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._action import ControllerAction
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._operators_fetch import fetch
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain

display = Display()


class ActionModule(ControllerAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {
        "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
        "source": {"type": "str", "required": True, "choices": ["olm", "manifests"]},
        "platform": {"type": "str", "default": "kubernetes", "choices": ["kubernetes", "openshift"]},
        "release": {"type": "str", "default": "1.20"},
        "operators": {"type": "list", "elements": "str", "default": []},
        "objects": {"type": "list", "elements": "dict", "default": []},
        "namespace": {"type": "str", "default": "kubevirt-hyperconverged"},
        "versions": {"type": "dict", "default": {}},
        "manifests_dir": {"type": "path", "default": ""},
        "manifests_url": {"type": "str", "default": ""},
        "checksums": {"type": "dict", "default": {}},
        "approval": {"type": "str", "default": "Automatic", "choices": ["Automatic", "Manual"]},
        "csvs": {"type": "dict", "default": {}},
        "catalog_source": {"type": "str", "default": ""},
        "catalog_namespace": {"type": "str", "default": ""},
        "channel": {"type": "str", "default": "stable"},
        "placement": {"type": "dict", "default": {}},
        "adopt": {"type": "bool", "default": False},
        "wait_timeout": {"type": "int", "default": 900},
        "option_names": {"type": "dict", "default": {}},
        **AUTH_ARGUMENT_SPEC,
    }

    def compute(self, args: dict[str, t.Any]) -> dict[str, t.Any]:
        given = Settings.from_objects(plain(args["objects"]))
        if args["operators"]:   # named by the caller rather than by the kinds the objects need
            given["operators"] = tuple(args["operators"])
        keys = given["operators"]
        names = {**ROLE_NAMES, **{str(k): str(v) for k, v in plain(args["option_names"]).items()}}
        problems = check_overrides(args["versions"], names["versions"])
        if problems:
            return {"failed": True, "msg": "nothing was written: " + "; ".join(problems), "problems": problems}
        settings = Settings(
            source=args["source"], platform=args["platform"], release=args["release"],
            namespace=args["namespace"], state=args["state"], versions=plain(args["versions"]),
            manifests_dir=args["manifests_dir"] or "", manifests_url=args["manifests_url"],
            checksums=plain(args["checksums"]), approval=args["approval"], csvs=plain(args["csvs"]),
            catalog_source=args["catalog_source"], catalog_namespace=args["catalog_namespace"],
            channel=args["channel"], placement=plain(args["placement"]), adopt=args["adopt"],
            check_mode=bool(self._task.check_mode), wait_timeout=float(args["wait_timeout"]),
            names=names, **given)
        if not keys:
            return {"changed": False, "plan": [], "applied": [], "waited": [], "notes": [
                "no operator to install: the objects given are served by none this collection installs"]}
        # What the stage writes as an operator's instance, for the site to leave out of the prerequisites it applies.
        instances = [made for op in settings.chosen() if (made := bundles.instance(settings, op)) is not None]
        connection = None
        try:
            connection = connect(args)
            return {**run(connection, settings, fetch, lambda line: display.display(f"[operators] {line}")),
                    "instances": instances, "connection": connection_used(connection)}
        except Failed as exc:
            return {"failed": True, "msg": str(exc), **exc.result, "connection": connection_used(connection)}
        except KubeError as exc:
            return {"failed": True, "msg": str(exc), "status": exc.status, "connection": connection_used(connection)}
