# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A job run the way AWX runs it: ansible-runner, the Kubernetes bearer-token credential injected as environment
variables, verbosity 3. No secret byte may reach the job events AWX stores and shows."""

from __future__ import annotations

import base64
import json
import pathlib
import sys
import textwrap

from harness.runner_job import run_job
from test_k8s_apply import server_writes

ROOT = pathlib.Path(__file__).resolve().parents[2]
OLD_VALUE = "hunter1-old-secret-value"
NEW_VALUE = "hunter2-new-secret-value"


def test_a_secret_applied_in_an_awx_style_job_never_reaches_its_events(tmp_path, control_plane):
    # The Secret first exists as a person made it: client-side apply, with its last-applied annotation; the job
    # takes it over on purpose (adopt).
    manifest = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "job-creds", "namespace": "default"},
                "stringData": {"password": OLD_VALUE}}
    control_plane.kubectl_run("apply", "-f", "-", input=json.dumps(manifest))

    project = tmp_path / "project"
    project.mkdir()
    (project / "job.yml").write_text(textwrap.dedent("""\
        - hosts: localhost
          connection: local
          gather_facts: false
          tasks:
            - name: Apply a secret with the credential from the environment
              virtinfra.hyperconverged.k8s_apply:
                apply_set: job-secrets
                adopt: true
                objects:
                  - apiVersion: v1
                    kind: Secret
                    metadata: {name: job-creds, namespace: default}
                    stringData: {password: "{{ new_password }}"}
              register: applied

            - name: Show what a job template would print
              ansible.builtin.debug:
                var: applied
        """))
    ca = control_plane.workdir / "certs" / "apiserver.crt"
    # AWX's "OpenShift or Kubernetes API Bearer Token" credential type injects exactly these variables.
    envvars = {"K8S_AUTH_HOST": control_plane.server, "K8S_AUTH_API_KEY": control_plane.admin_token,
               "K8S_AUTH_VERIFY_SSL": "True", "K8S_AUTH_SSL_CA_CERT": str(ca),
               "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".cache" / "collections"), "ANSIBLE_NOCOLOR": "1"}
    (tmp_path / "runner").mkdir()
    run = run_job(private_data_dir=str(tmp_path / "runner"), project_dir=str(project), playbook="job.yml",
                  envvars=envvars, extravars={"new_password": NEW_VALUE}, verbosity=3, cmdline="--diff")
    assert run.status == "successful", run.stdout
    events = run.events

    # Everything the job leaves: events, stdout, status. ansible-runner's own "command" file records the process
    # environment the credential was injected into (AWX keeps it out of the job's output): not ours to check.
    stored = "".join(path.read_text(errors="replace") for path in (tmp_path / "runner" / "artifacts").rglob("*")
                     if path.is_file() and path.name != "command")
    shown = json.dumps(events) + stored
    assert any(e.get("event") == "runner_on_ok" and e["event_data"].get("task") == "Apply a secret with the "
               "credential from the environment" for e in events)
    for value in (OLD_VALUE, NEW_VALUE, control_plane.admin_token):
        assert value not in shown
        assert base64.b64encode(value.encode()).decode() not in shown
    live = json.loads(control_plane.kubectl_run("get", "secret", "job-creds", "-o", "json").stdout)
    assert base64.b64decode(live["data"]["password"]).decode() == NEW_VALUE


def _stats_changed(events: list[dict]) -> int:
    stats = next(e for e in events if e.get("event") == "playbook_on_stats")["event_data"]
    return sum((stats.get("changed") or {}).values())


def test_an_awx_kubernetes_credential_switches_the_site_to_apply_mode(tmp_path, empty_control_plane):
    """The site as a job template runs it: AWX's bearer-token credential in the environment, survey answers as
    strings with blank fields, verbosity 3. It must apply (not only render), say why, rerun changed=0 without
    writing, and never show the token. Its own API server: test_site.py expects the site's first apply to find
    nothing there."""
    control_plane = empty_control_plane
    ca = control_plane.workdir / "certs" / "apiserver.crt"
    envvars = {"K8S_AUTH_HOST": control_plane.server, "K8S_AUTH_API_KEY": control_plane.admin_token,
               "K8S_AUTH_VERIFY_SSL": "True", "K8S_AUTH_SSL_CA_CERT": str(ca),
               "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".cache" / "collections"), "ANSIBLE_NOCOLOR": "1"}
    survey = {"site_survey_action": "", "site_survey_render_dir": "", "site_survey_platform_version": "1.34",
              "site_survey_overcommit_percent": "150", "site_survey_sriov_num_vfs": "8",
              "site_survey_swap_encrypt": "false", "ansible_python_interpreter": sys.executable}
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    runs = []
    for attempt in ("first", "second"):
        mark = control_plane.audit_offset()
        data = tmp_path / attempt
        data.mkdir()
        run = run_job(private_data_dir=str(data), project_dir=str(ROOT / "playbooks"), playbook="site.yml",
                      inventory=[str(inventory), "localhost,"], limit="localhost", envvars=envvars,
                      extravars=survey, verbosity=3)
        events = run.events
        stored = "".join(path.read_text(errors="replace") for path in (data / "artifacts").rglob("*")
                         if path.is_file() and path.name != "command")
        assert run.status == "successful", stored[-6000:]
        shown = json.dumps(events) + stored
        assert control_plane.admin_token not in shown
        assert "apply mode (standalone): " in shown
        assert "a credential is set: K8S_AUTH_HOST and K8S_AUTH_API_KEY" in shown
        assert "render mode" not in shown.replace("render mode (", "")
        runs.append((events, server_writes(control_plane, mark)))
    second_events, second_writes = runs[1]
    assert _stats_changed(second_events) == 0
    assert second_writes == []
