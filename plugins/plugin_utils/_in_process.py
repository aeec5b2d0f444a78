# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""When a cluster module's call runs in the controller's worker instead of a module process, and how. PRIVATE.

On a local connection the module would run on this machine anyway. Run here, in the worker Ansible forks for this
task (and discards after it), the call skips a Python start-up and the imports AnsiballZ compiles from source each
time: most of a no-op call. The worker already has the client imported (the action plugin
imports it, and Ansible loads action plugins before it forks).

It runs here only when the module would have run on the same interpreter, as the same user, now:
- the connection is local and nothing is delegated elsewhere;
- no become (the module would run as another user) and no async (the module would outlive the task);
- the task's interpreter is unset, auto, or this one (another interpreter may carry other packages);
- the client's own imports work here.
Otherwise the module runs as before. Carried over from the module path: the task's environment (K8S_AUTH_*,
KUBECONFIG, proxies, what an exec credential program sees) in os.environ for the call; the module's argument check
(AnsibleModule's validator: types, aliases, environment fallbacks, no_log); check and diff modes; no_log values masked
in the result, invocation included; warnings.
"""

from __future__ import annotations

import contextlib
import os
import sys
import typing as t

from ansible import constants as C
from ansible.plugins.action import ActionBase

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KUBERNETES_IMPORT_ERROR
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import Outcome
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _argument_check, _masking

_AUTO = ("auto", "auto_legacy", "auto_silent", "auto_legacy_silent")


def eligible(action: ActionBase, task_vars: t.Mapping[str, t.Any]) -> bool:
    """Whether this task's module would run here, on this interpreter, as this user (see the module docstring)."""
    if action._connection.transport != "local" or action._task.async_val or action._play_context.become:
        return False
    if KUBERNETES_IMPORT_ERROR is not None:
        return False   # the module reports what is missing, or finds it on its own interpreter
    return _same_environment(_interpreter(action, task_vars))


def _interpreter(action: ActionBase, task_vars: t.Mapping[str, t.Any]) -> str:
    """The interpreter the module would get, from where Ansible reads it: the delegated host's variables for a
    delegated task, then ansible_python_interpreter, ANSIBLE_PYTHON_INTERPRETER, ansible.cfg (ansible-core
    plugins/action/__init__.py, ActionBase._configure_module; executor/module_common.py, _get_shebang)."""
    use_vars = task_vars
    if action._task.delegate_to:
        use_vars = (task_vars.get("ansible_delegated_vars") or {}).get(action._task.delegate_to) or {}
    configured = C.config.get_config_value("INTERPRETER_PYTHON", variables=use_vars)
    return str(action._templar.template(configured) or "auto").strip()


def _same_environment(interpreter: str) -> bool:
    # Discovery (auto) on a local connection finds a Python of this machine: the call needs only what
    # ansible-core itself needs (PyYAML); an exec credential also needs the kubernetes package here.
    return interpreter in _AUTO or _environment(interpreter) == _environment(sys.executable)


def _remove_library_temp_files() -> None:
    """The files the kubernetes library wrote for an exec or auth-provider user (an exec plugin's client key among
    them). It removes them at exit, through atexit (kubernetes-client/python, v37.0.2,
    kubernetes/config/kube_config.py, _create_temp_file_with_content), and a module process exits normally. Ansible's
    worker is a multiprocessing fork, which before Python 3.13 ends with os._exit and no atexit function
    (python/cpython gh-83856), so they are removed here."""
    kube_config = sys.modules.get("kubernetes.config.kube_config")
    cleanup = getattr(kube_config, "_cleanup_temp_files", None)
    if callable(cleanup):
        cleanup()


def _invocation_injected(task_vars: t.Mapping[str, t.Any]) -> bool:
    """Whether a module's result carries its arguments: ansible-core 2.21 made it the INJECT_INVOCATION setting (off
    unless set); earlier releases always add them (ansible-core module_utils/basic.py, AnsibleModule._return_formatted)."""
    if "INJECT_INVOCATION" not in C.config.get_configuration_definitions():
        return True
    return bool(C.config.get_config_value("INJECT_INVOCATION", variables=task_vars))


def _environment(interpreter: str) -> tuple[str, str | None]:
    """An interpreter's binary and virtual environment: venv/bin/python and venv/bin/python3.13 are the same one;
    /usr/bin/python3 and a venv made from it are not (other packages)."""
    path = os.path.abspath(os.path.expanduser(interpreter))
    root = os.path.dirname(os.path.dirname(path))
    return os.path.realpath(path), (root if os.path.exists(os.path.join(root, "pyvenv.cfg")) else None)


@contextlib.contextmanager
def task_environment(action: ActionBase) -> t.Iterator[None]:
    """The task's environment: keyword in os.environ, as the module process would have had it."""
    wanted: dict[str, t.Any] = {}
    action._compute_environment_string(raw_environment_out=wanted)
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update({name: str(value) for name, value in wanted.items()})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run(action: ActionBase, task_vars: t.Mapping[str, t.Any], args: dict[str, t.Any],
        argument_spec: dict[str, t.Any], required_one_of: list[t.Any],
        call: t.Callable[[dict[str, t.Any]], Outcome]) -> dict[str, t.Any]:
    """The module's call here: checked as AnsibleModule checks it, run, masked as AnsibleModule masks its result."""
    with task_environment(action):
        checked = _argument_check.checked(argument_spec, required_one_of, args)
        refused = _argument_check.refusal(action._task.action, checked)
        if refused is not None:
            return refused
        params = checked.validated_parameters
        try:
            outcome = call(params)
        finally:
            _remove_library_temp_files()
    hidden = set(checked._no_log_values) | set(outcome.no_log_values)
    result = dict(outcome.result)
    if _invocation_injected(task_vars):
        result["invocation"] = {"module_args": params}
    if outcome.failed:
        result["failed"] = True
    result.setdefault("changed", False)
    if outcome.warnings:
        result["warnings"] = list(outcome.warnings)
    return _masking.masked(result, hidden)
