# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which path a cluster call takes. ActionBase's own parts (the connection, the module execution) are stand-ins
recording what they were asked; both real paths run through ansible-playbook in
tests/integration/test_in_process.py."""

from __future__ import annotations

import sys
import types
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import Outcome
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._cluster_action import ClusterCallAction


class Recorded(ClusterCallAction):
    ARGUMENT_SPEC: t.ClassVar[dict[str, t.Any]] = {"name": {"type": "str"}, "token": {"type": "str", "no_log": True}}

    def __init__(self, transport: str, async_val: int = 0) -> None:   # no ActionBase.__init__: no real task
        self.executed: list[dict[str, t.Any]] = []
        self.removed: list[str] = []
        self._connection = types.SimpleNamespace(transport=transport, _shell=types.SimpleNamespace(tmpdir="/tmp/x"))
        self._task = types.SimpleNamespace(async_val=async_val, args={}, action="virtinfra.hyperconverged.x",
                                           delegate_to=None)
        self._play_context = types.SimpleNamespace(become=False)
        self._templar = types.SimpleNamespace(template=lambda value: value)

    def _execute_module(self, **kwargs: t.Any) -> dict[str, t.Any]:
        self.executed.append(kwargs)
        return {"changed": False, "from": "module"}

    def _remove_tmp_path(self, tmp_path: str, force: bool = False) -> None:
        self.removed.append(tmp_path)

    def _compute_environment_string(self, raw_environment_out: dict[str, t.Any] | None = None) -> str:
        return ""


def here(params: dict[str, t.Any]) -> Outcome:
    return Outcome({"from": "worker", "name": params["name"]})


TASK_VARS = {"ansible_python_interpreter": sys.executable}


def test_a_local_connection_runs_the_call_here():
    action = Recorded("local")
    assert action.call(TASK_VARS, {"name": "a"}, here)["from"] == "worker"
    assert not action.executed


def test_another_connection_runs_the_module_with_the_arguments_as_given():
    action = Recorded("ssh")
    assert action.call(TASK_VARS, {"name": "a", "token": "t0ken"}, here)["from"] == "module"
    assert action.executed == [{"module_args": {"name": "a", "token": "t0ken"}, "task_vars": TASK_VARS,
                                "wrap_async": 0}]
    assert action.removed == ["/tmp/x"]


def test_async_runs_the_module_and_leaves_its_directory_to_the_async_wrapper():
    action = Recorded("local", async_val=30)
    action.call(TASK_VARS, {"name": "a"}, here)
    assert action.executed[0]["wrap_async"] == 30 and action.removed == []


def test_arguments_the_module_would_refuse_never_reach_it():
    action = Recorded("ssh")
    refused = action.call(TASK_VARS, {"name": "a", "nmae": "b", "token": "t0ken"}, here)
    assert refused["failed"] and "nmae" in refused["msg"] and "t0ken" not in repr(refused)
    assert not action.executed
