# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubernetes.core connection options k8s_apply takes as that collection names them, through the module as a
playbook runs it: user impersonation (the API server decides as the impersonated user) and their K8S_AUTH_*
environment variables."""

from __future__ import annotations

import base64
import json
import pathlib
import tempfile
import textwrap

from test_render_playbook import run_playbook

PLAY = """\
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Apply as someone else
      virtinfra.hyperconverged.k8s_apply:
        objects:
          - {apiVersion: v1, kind: ConfigMap, metadata: {name: impersonated, namespace: default}}
        kubeconfig: "%s"
        context: admin
"""


def test_impersonation_makes_the_server_decide_as_that_user(tmp_path, control_plane):
    playbook = tmp_path / "play.yml"
    playbook.write_text(textwrap.dedent(PLAY % control_plane.kubeconfig))
    # The admin token may impersonate; the limited user may not create ConfigMaps.
    refused = run_playbook(playbook, env_extra={"K8S_AUTH_IMPERSONATE_USER": "limited",
                                                "K8S_AUTH_IMPERSONATE_GROUPS": "system:authenticated"})
    assert refused.returncode != 0
    assert "user limited cannot" in refused.stdout, refused.stdout
    events = [e for e in control_plane.audit_events() if (e.get("impersonatedUser") or {}).get("username") == "limited"]
    assert events and {g for e in events for g in e["impersonatedUser"].get("groups") or []} >= {"system:authenticated"}
    # Without it, the admin's own rights apply.
    done = run_playbook(playbook)
    assert done.returncode == 0, done.stdout
    control_plane.kubectl_run("delete", "configmap", "impersonated", "-n", "default")


def test_a_kubeconfig_with_an_embedded_client_certificate_authenticates_as_its_subject(tmp_path, control_plane):
    # The API server reads the user from the certificate's CN and the group from its O (--client-ca-file).
    cert, key = control_plane.client_certificate("cert-ops", "system:masters")
    config = json.loads(control_plane.kubeconfig.read_text())
    user = {"client-certificate-data": base64.b64encode(cert).decode(),
            "client-key-data": base64.b64encode(key).decode()}
    config["users"].append({"name": "cert-ops", "user": user})
    config["contexts"].append({"name": "cert-ops", "context": {"cluster": "harness", "user": "cert-ops"}})
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps(config))
    kubeconfig.chmod(0o600)
    playbook = tmp_path / "play.yml"
    playbook.write_text(textwrap.dedent(PLAY % kubeconfig).replace("context: admin", "context: cert-ops")
                        .replace("name: impersonated", "name: by-certificate"))
    before = sorted(p.name for p in pathlib.Path(tempfile.gettempdir()).glob("virtinfra-tls-*"))
    done = run_playbook(playbook)
    assert done.returncode == 0, done.stdout
    writes = [e for e in control_plane.audit_events() if e["verb"] == "patch"
              and e["objectRef"].get("name") == "by-certificate" and "dryRun" not in e["requestURI"]]
    assert writes and {e["user"]["username"] for e in writes} == {"cert-ops"}
    # The key was written to a private file only while it was loaded.
    assert sorted(p.name for p in pathlib.Path(tempfile.gettempdir()).glob("virtinfra-tls-*")) == before
    control_plane.kubectl_run("delete", "configmap", "by-certificate", "-n", "default")
