# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_credentials import absolute, credential, kubeconfig_problems

KUBECONFIG = """apiVersion: v1
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
contexts: [{name: admin, context: {cluster: c, user: u}}]
current-context: admin
users: [{name: u, user: {token: hunter2-token}}]
"""


def test_a_relative_path_is_read_where_ansible_playbook_runs(tmp_path):
    assert absolute("admin.kubeconfig", str(tmp_path)) == str(tmp_path / "admin.kubeconfig")
    assert absolute("/etc/k.conf", str(tmp_path)) == "/etc/k.conf"
    assert absolute("", str(tmp_path)) == ""


def test_a_missing_file_names_where_it_was_looked_for(tmp_path):
    path = absolute("admin.kubeconfig", str(tmp_path))
    problems = kubeconfig_problems("site_admin_kubeconfig", path, "", "site_admin_context", str(tmp_path))
    assert problems == [(f"site_admin_kubeconfig: no such file (looked for {path}; a relative path is read from the "
                         f"directory ansible-playbook runs in ({tmp_path}))")]


def test_a_yaml_error_names_the_file_and_line_and_no_credential(tmp_path):
    path = tmp_path / "k"
    path.write_text(KUBECONFIG.replace("current-context: admin", "current-context: [admin"))
    problems = kubeconfig_problems("site_kubeconfig", str(path), "", "site_context", str(tmp_path))
    assert problems[0].startswith(f"site_kubeconfig: {path} is not valid YAML, line ")
    assert "hunter2" not in problems[0]


def test_contexts_are_checked(tmp_path):
    path = tmp_path / "k"
    path.write_text(KUBECONFIG)
    assert kubeconfig_problems("site_kubeconfig", str(path), "", "site_context", str(tmp_path)) == []
    assert kubeconfig_problems("site_kubeconfig", str(path), "prod", "site_context", str(tmp_path)) == [
        f"site_context: 'prod' is not a context of {path} (it has: admin)"]
    path.write_text("kind: Config\n")
    assert "is not a kubeconfig" in kubeconfig_problems("site_kubeconfig", str(path), "", "site_context", "/")[0]


def test_the_file_is_read_as_the_cluster_modules_read_it_without_running_anything(tmp_path):
    path = tmp_path / "k"
    path.write_text(KUBECONFIG.replace("{cluster: c, user: u}", "{cluster: gone, user: u}"))
    assert kubeconfig_problems("site_kubeconfig", str(path), "", "site_context", "/") == [
        f"site_kubeconfig: {path} has no cluster 'gone' (named by context admin); it has: c"]
    marker = tmp_path / "ran"
    path.write_text(KUBECONFIG.replace("{token: hunter2-token}", "{exec: {apiVersion: client.authentication.k8s.io/v1, "
                                       f"command: touch, args: [{marker}]}}}}"))
    assert kubeconfig_problems("site_kubeconfig", str(path), "", "site_context", "/") == []
    assert not marker.exists()   # an exec plugin is the modules' to run, not the check's
    path.write_text(KUBECONFIG.replace("current-context: admin", ""))
    assert kubeconfig_problems("site_kubeconfig", str(path), "", "site_context", "/") == [
        f"site_kubeconfig: {path} has no current-context; set site_context to one of: admin"]


def test_the_credential_at_hand_is_named_as_the_user_set_it():
    assert credential("/k", {}) == "site_kubeconfig"
    assert credential("", {"K8S_AUTH_KUBECONFIG": "/k"}) == "K8S_AUTH_KUBECONFIG"
    assert credential("", {"K8S_AUTH_HOST": "https://h", "K8S_AUTH_API_KEY": "t"}) == (
        "K8S_AUTH_HOST and K8S_AUTH_API_KEY")
    assert credential("", {"K8S_AUTH_HOST": "https://h"}) == ""
