# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""When a cluster call runs in Ansible's worker, and what it carries over from the module path. The action is a
stand-in with the attributes ActionBase gives a plugin (connection, task, play context, templar); both paths run
through ansible-playbook in tests/integration/test_in_process.py."""

from __future__ import annotations

import os
import sys
import types
import typing as t

import pytest
from ansible.module_utils.basic import env_fallback

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import Outcome
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _in_process


def action(transport: str = "local", async_val: int = 0, become: bool = False, delegate_to: str | None = None,
           environment: dict[str, t.Any] | None = None, args: dict[str, t.Any] | None = None) -> t.Any:
    def compute(raw_environment_out: dict[str, t.Any]) -> str:
        raw_environment_out.update(environment or {})
        return ""
    return types.SimpleNamespace(
        _connection=types.SimpleNamespace(transport=transport),
        _task=types.SimpleNamespace(async_val=async_val, args=args or {}, action="virtinfra.hyperconverged.x",
                                    delegate_to=delegate_to),
        _play_context=types.SimpleNamespace(become=become),
        _templar=types.SimpleNamespace(template=lambda value: value.replace("{{ here }}", sys.executable)),
        _compute_environment_string=compute)


def venv(root, binary: str = "python") -> str:
    (root / "bin").mkdir(parents=True)
    (root / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "bin" / binary).symlink_to(os.path.realpath(sys.executable))
    return str(root / "bin" / binary)


@pytest.mark.parametrize(("changes", "expected"), [
    ({}, True),
    ({"transport": "ssh"}, False),                   # the module runs on that host
    ({"transport": "ansible.netcommon.network_cli"}, False),
    ({"async_val": 60}, False),                      # the module outlives the task
    ({"become": True}, False),                       # the module runs as another user
])
def test_only_a_local_connection_without_become_or_async_runs_here(changes, expected):
    assert _in_process.eligible(action(**changes), {}) is expected


@pytest.mark.parametrize(("interpreter", "expected"), [
    ("auto", True), ("auto_silent", True), ("auto_legacy", True),
    ("{{ here }}", True),                            # templated, as ansible_playbook_python is for localhost
    (sys.executable, True),
    ("/usr/bin/env python3", False),
])
def test_the_interpreter_must_be_this_one(interpreter, expected):
    assert _in_process.eligible(action(), {"ansible_python_interpreter": interpreter}) is expected


def test_the_interpreter_comes_from_where_ansible_reads_it(monkeypatch):
    monkeypatch.delenv("ANSIBLE_PYTHON_INTERPRETER", raising=False)
    assert _in_process.eligible(action(), {}) is True                        # unset: auto
    monkeypatch.setenv("ANSIBLE_PYTHON_INTERPRETER", "/opt/other/bin/python3")
    assert _in_process.eligible(action(), {}) is False                       # the environment's setting
    assert _in_process.eligible(action(), {"ansible_python_interpreter": sys.executable}) is True   # the variable wins
    # Delegated to localhost from a play on a remote host: localhost's variables, not the host's.
    delegated = {"ansible_python_interpreter": "/usr/bin/python3",
                 "ansible_delegated_vars": {"localhost": {"ansible_python_interpreter": sys.executable}}}
    assert _in_process.eligible(action(delegate_to="localhost"), delegated) is True
    assert _in_process.eligible(action(), delegated) is False


def test_another_virtual_environment_on_the_same_binary_is_another_interpreter(tmp_path):
    here = venv(tmp_path / "a")
    assert _in_process._environment(here) == _in_process._environment(str(tmp_path / "a" / "bin" / "python"))
    assert _in_process._environment(here) != _in_process._environment(venv(tmp_path / "b"))
    assert _in_process._environment(here) != _in_process._environment(os.path.realpath(sys.executable))
    # Two names of one environment's binary are the same interpreter.
    (tmp_path / "a" / "bin" / "python3").symlink_to("python")
    assert _in_process._environment(here) == _in_process._environment(str(tmp_path / "a" / "bin" / "python3"))


def test_the_task_environment_is_set_for_the_call_and_removed_after(monkeypatch):
    monkeypatch.setenv("VIRTINFRA_TEST_KEPT", "before")
    monkeypatch.delenv("VIRTINFRA_TEST_NEW", raising=False)
    wanted = {"VIRTINFRA_TEST_KEPT": "task", "VIRTINFRA_TEST_NEW": 8}
    with _in_process.task_environment(action(environment=wanted)):
        assert (os.environ["VIRTINFRA_TEST_KEPT"], os.environ["VIRTINFRA_TEST_NEW"]) == ("task", "8")
    assert os.environ["VIRTINFRA_TEST_KEPT"] == "before" and "VIRTINFRA_TEST_NEW" not in os.environ


SPEC = {"name": {"type": "str", "required": True}, "token": {"type": "str", "no_log": True},
        "count": {"type": "int", "default": 1},
        "from_environment": {"type": "str", "fallback": (env_fallback, ["VIRTINFRA_TEST_FB"])}}


def test_the_arguments_are_checked_with_fallbacks_from_the_task_environment_and_no_log_values_masked(monkeypatch):
    monkeypatch.delenv("VIRTINFRA_TEST_FB", raising=False)
    seen = {}

    def call(params: dict[str, t.Any]) -> Outcome:
        seen.update(params)
        return Outcome({"echo": f"{params['token']} and {params['from_environment']}", "object": "hidden-value"},
                       warnings=("about hidden-value",), no_log_values=frozenset({"hidden-value"}))

    result = _in_process.run(action(environment={"VIRTINFRA_TEST_FB": "from-task"}),
                             {"ansible_inject_invocation": False},
                             {"name": "x", "token": "s3cret-token", "count": "3"}, SPEC, [], call)
    assert seen == {"name": "x", "token": "s3cret-token", "count": 3, "from_environment": "from-task"}
    assert "s3cret-token" not in repr(result) and "hidden-value" not in repr(result)
    assert result["echo"].endswith(" and from-task") and result["changed"] is False
    assert result["warnings"] and "failed" not in result


def test_argument_errors_are_the_modules_messages(monkeypatch):
    monkeypatch.delenv("VIRTINFRA_TEST_FB", raising=False)

    def never(params: dict[str, t.Any]) -> Outcome:
        raise AssertionError("not called")

    unknown = _in_process.run(action(), {}, {"name": "x", "nmae": "y"}, SPEC, [], never)
    assert unknown["failed"] and unknown["msg"].startswith("Unsupported parameters for (virtinfra.hyperconverged.x) "
                                                           "module: nmae.")
    missing = _in_process.run(action(), {}, {}, SPEC, [], never)
    assert missing == {"failed": True, "changed": False, "msg": "missing required arguments: name"}
    neither = _in_process.run(action(), {}, {"name": "x"}, SPEC, [("token", "from_environment")], never)
    assert neither["msg"] == "one of the following is required: token, from_environment"


def test_a_failed_outcome_is_a_failed_result():
    result = _in_process.run(action(), {}, {"name": "x"}, SPEC, [], lambda p: Outcome({"msg": "no"}, failed=True))
    assert result["failed"] is True and result["msg"] == "no"


def test_the_kubernetes_librarys_temporary_files_go_with_the_call():
    # A module process removes them at exit (atexit); the worker ends with os._exit, so the call removes them.
    kube_config = pytest.importorskip("kubernetes.config.kube_config")
    written = []

    def call(params: dict[str, t.Any]) -> Outcome:
        written.append(kube_config._create_temp_file_with_content(b"-----BEGIN PRIVATE KEY-----"))
        assert os.path.exists(written[0])
        raise RuntimeError("the call failed after the library wrote its files")

    with pytest.raises(RuntimeError):
        _in_process.run(action(), {}, {"name": "x"}, SPEC, [], call)
    assert written and not os.path.exists(written[0])
