# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""k8s_apply and cluster_info on a local connection run in Ansible's worker (plugin_utils/_in_process.py) when the
task's interpreter is the controller's; with another interpreter, as module processes. Both paths, through
ansible-playbook, give the same results and failures, see the task's environment: keyword, and the worker path
starts no module process."""

from __future__ import annotations

import difflib
import json
import os
import pathlib
import re
import sys
import tempfile
import textwrap

from interpreters import other_interpreter
from test_render_playbook import run_playbook

PLAY = """\
- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    kubeconfig: "{kubeconfig}"
    namespace: "{namespace}"
    objects:
      - {{apiVersion: v1, kind: Namespace, metadata: {{name: "{{{{ namespace }}}}"}}}}
      - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: settings, namespace: "{{{{ namespace }}}}"}},
         data: {{mode: fast}}}}
      - {{apiVersion: v1, kind: Secret, metadata: {{name: creds, namespace: "{{{{ namespace }}}}"}},
         stringData: {{password: in-process-very-secret}}}}
  tasks:
    - name: Check mode with diff, before anything exists
      virtinfra.hyperconverged.k8s_apply:
        kubeconfig: "{{{{ kubeconfig }}}}"
        objects: "{{{{ objects }}}}"
        apply_set: "{{{{ namespace }}}}"
        concurrency: "4"   # as a survey answer: a string the argument check converts
      check_mode: true
      diff: true
      register: checked

    - name: Apply
      virtinfra.hyperconverged.k8s_apply:
        kubeconfig: "{{{{ kubeconfig }}}}"
        objects: "{{{{ objects }}}}"
        apply_set: "{{{{ namespace }}}}"
      register: applied

    - name: Again (a no-op)
      virtinfra.hyperconverged.k8s_apply:
        kubeconfig: "{{{{ kubeconfig }}}}"
        objects: "{{{{ objects }}}}"
        apply_set: "{{{{ namespace }}}}"
        report: all
      register: again

    - name: An invalid object (nothing written)
      virtinfra.hyperconverged.k8s_apply:
        kubeconfig: "{{{{ kubeconfig }}}}"
        objects:
          - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: Not_Valid, namespace: "{{{{ namespace }}}}"}}}}
      register: invalid
      ignore_errors: true

    - name: A misspelt option
      virtinfra.hyperconverged.k8s_apply:
        kubeconfig: "{{{{ kubeconfig }}}}"
        objects: "{{{{ objects }}}}"
        aply_set: paths
      register: misspelt
      ignore_errors: true

    - name: Neither objects nor src
      virtinfra.hyperconverged.k8s_apply:
        kubeconfig: "{{{{ kubeconfig }}}}"
      register: empty
      ignore_errors: true

    - name: Read the cluster
      virtinfra.hyperconverged.cluster_info:
        kubeconfig: "{{{{ kubeconfig }}}}"
        kinds: [{{apiVersion: v1, kind: ConfigMap}}, {{apiVersion: example.com/v1, kind: Missing}}]
      register: info

    - name: Keep the results
      ansible.builtin.copy:
        content: "{{{{ dict(checked=checked, applied=applied, again=again, invalid=invalid, misspelt=misspelt,
                           empty=empty, info=info) | to_json }}}}"
        dest: "{results}"
        mode: "0600"
"""

# What differs between two runs for reasons other than the path: the server's own values, timing, the module
# path's own keys (Ansible adds them to what a module process returns).
_VOLATILE = re.compile(r'"(uid|resourceVersion|creationTimestamp|time|seconds)": ("[^"]*"|[0-9.]+)')
_APPLY_SET_ID = re.compile(r"applyset-[A-Za-z0-9_-]+-v1")   # a hash of the apply set's name
_MODULE_ONLY = ("_ansible_no_log", "ansible_facts", "deprecations", "warnings")
# A new server answers the first list of a just-installed CRD's kind with 429 (retried): the first run's request
# counts can differ by the server's state, not by the path.
_SERVER_STATE = ("requests",)


def _normalised(path: pathlib.Path, namespace: str) -> dict:
    text = _APPLY_SET_ID.sub("ID", path.read_text().replace(namespace, "NS"))
    results = json.loads(_VOLATILE.sub(r'"\1": "-"', text))
    for result in results.values():
        for key in _MODULE_ONLY:
            if not result.get(key):
                result.pop(key, None)
        for key in _SERVER_STATE:
            result.pop(key, None)
    return results


def test_the_worker_and_the_module_process_give_the_same_results(tmp_path, control_plane):
    runs = {}
    for path in ("in-process", "module"):
        namespace = f"paths-{path}"
        playbook = tmp_path / f"{path}.yml"
        playbook.write_text(textwrap.dedent(PLAY.format(kubeconfig=control_plane.kubeconfig, namespace=namespace,
                                                        results=tmp_path / f"{path}.json")))
        interpreter = str(other_interpreter(tmp_path / "venv")) if path == "module" else None
        # Every result carries its arguments (as before ansible-core 2.21): none may show a Secret's value.
        run = run_playbook(playbook, "-vvv", interpreter=interpreter, env_extra={"ANSIBLE_INJECT_INVOCATION": "true"})
        assert run.returncode == 0, run.stdout[-4000:]
        assert ("AnsiballZ_k8s_apply.py" in run.stdout) == (path == "module")
        assert ("AnsiballZ_cluster_info.py" in run.stdout) == (path == "module")
        assert "in-process-very-secret" not in run.stdout + run.stderr
        runs[path] = _normalised(tmp_path / f"{path}.json", namespace)
        runs[path]["again"]["requests"] = json.loads((tmp_path / f"{path}.json").read_text())["again"]["requests"]
    worker, module = runs["in-process"], runs["module"]
    assert worker["checked"]["changed"] and worker["applied"]["changed"] and not worker["again"]["changed"]
    assert worker["invalid"]["failed"] and "Not_Valid" in worker["invalid"]["msg"]
    assert worker["misspelt"]["msg"].startswith("Unsupported parameters for (virtinfra.hyperconverged.k8s_apply)")
    assert "aply_set" in worker["misspelt"]["msg"]
    assert worker["empty"]["msg"] == "one of the following is required: objects, src"
    assert worker["info"]["served"]
    assert worker["again"]["requests"]["writes"] == module["again"]["requests"]["writes"] == 0
    for name in worker:
        ours, theirs = (json.dumps(r[name], indent=1, sort_keys=True).splitlines() for r in (worker, module))
        assert ours == theirs, "\n".join(difflib.unified_diff(ours, theirs, "in-process", "module", lineterm=""))


PLAY_ENVIRONMENT = """\
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Credentials from the task's environment only
      virtinfra.hyperconverged.cluster_info:
        kinds: [{apiVersion: v1, kind: ConfigMap}]
      environment:
        K8S_AUTH_KUBECONFIG: "%s"
        K8S_AUTH_CONTEXT: admin
      register: with_environment

    - name: Apply and wait (the wait runs here after the call) with the same environment only
      virtinfra.hyperconverged.k8s_apply:
        objects:
          - {apiVersion: v1, kind: ConfigMap, metadata: {name: waited-on, namespace: default}, data: {mode: fast}}
        wait_for:
          - {apiVersion: v1, kind: ConfigMap, name: waited-on, namespace: default, jsonpath: "{.data.mode}",
             success: [fast]}
      environment:
        K8S_AUTH_KUBECONFIG: "%s"
        K8S_AUTH_CONTEXT: admin
      register: waited

    - name: The next task does not inherit it
      virtinfra.hyperconverged.cluster_info:
        kinds: [{apiVersion: v1, kind: ConfigMap}]
      register: without
      ignore_errors: true

    - name: Show
      ansible.builtin.debug:
        msg: "with {{ with_environment.requests.total }} requests, waited {{ waited.waited | length }};
              without - {{ without.msg }}"
"""


def test_the_task_environment_reaches_the_call_in_the_worker_and_goes_with_the_task(tmp_path, control_plane):
    playbook = tmp_path / "environment.yml"
    playbook.write_text(PLAY_ENVIRONMENT % (control_plane.kubeconfig, control_plane.kubeconfig))
    home = tmp_path / "home"   # no ~/.kube/config to fall back on
    home.mkdir()
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("K8S_AUTH_") and name != "KUBECONFIG"}
    run = run_playbook(playbook, "-vvv", env_extra={"HOME": str(home)}, environ=environment)
    assert run.returncode == 0, run.stdout[-4000:]
    assert "AnsiballZ_cluster_info.py" not in run.stdout
    shown = re.search(r'"msg": "with (\d+) requests, waited (\d+); without - (.*)"', run.stdout)
    assert shown and int(shown.group(1)) > 0 and shown.group(2) == "1", run.stdout[-3000:]
    assert "kubeconfig" in shown.group(3).lower(), shown.group(3)
    control_plane.kubectl_run("delete", "configmap", "waited-on", "-n", "default")


def test_an_exec_plugins_client_key_is_not_left_behind_by_the_call_in_the_worker(tmp_path, control_plane):
    # The kubernetes library writes an exec plugin's client certificate and key to temporary files and removes them
    # at exit; a worker forked before Python 3.13 exits without running exit functions, so the call removes them
    # itself (tests/unit/plugins/plugin_utils/test_in_process.py fails without it whatever the Python; here, the
    # exec user's call in the worker, end to end).
    cert, key = control_plane.client_certificate("exec-ops", "system:masters")
    plugin = tmp_path / "credential-plugin"
    plugin.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import json
        print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                          "status": {{"clientCertificateData": {cert.decode()!r},
                                     "clientKeyData": {key.decode()!r}}}}}))
        """))
    plugin.chmod(0o700)
    config = json.loads(control_plane.kubeconfig.read_text())
    config["users"].append({"name": "exec-ops", "user": {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin), "interactiveMode": "Never"}}})
    config["contexts"].append({"name": "exec-ops", "context": {"cluster": "harness", "user": "exec-ops"}})
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps(config))
    kubeconfig.chmod(0o600)
    playbook = tmp_path / "exec.yml"
    playbook.write_text(textwrap.dedent(f"""\
        - hosts: localhost
          connection: local
          gather_facts: false
          tasks:
            - name: Apply as the exec plugin's certificate
              virtinfra.hyperconverged.k8s_apply:
                kubeconfig: {kubeconfig}
                context: exec-ops
                objects:
                  - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: by-exec-plugin, namespace: default}}}}
        """))
    mark = control_plane.audit_offset()
    # The library's temporary files go to TMPDIR: a short one, since ansible-core 2.21 puts its RPC socket there too.
    with tempfile.TemporaryDirectory(prefix="vi-exec-") as scratch:
        run = run_playbook(playbook, "-vvv", env_extra={"TMPDIR": scratch})
        left = [path for path in pathlib.Path(scratch).rglob("*")
                if path.is_file() and b"PRIVATE KEY" in path.read_bytes()]
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "AnsiballZ_k8s_apply.py" not in run.stdout
    writes = [e for e in control_plane.audit_events(mark) if e["verb"] == "patch"
              and e["objectRef"].get("name") == "by-exec-plugin" and "dryRun" not in e["requestURI"]]
    assert writes and {e["user"]["username"] for e in writes} == {"exec-ops"}
    assert left == []
    control_plane.kubectl_run("delete", "configmap", "by-exec-plugin", "-n", "default")
