# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The least-privilege automation account on an empty real API server: the site converges with its token alone,
and anything outside its rules is refused by the server."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys

import pytest
from harness import children
from test_hyperconverged_role import recap_changed
from test_render_playbook import ROOT

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, ApplyFailed, Options
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection, KubeError

ACCOUNT, NAMESPACE = "virtinfra-hyperconverged", "virtinfra-automation"


@pytest.fixture(scope="module")
def account_kubeconfig(empty_control_plane, tmp_path_factory):
    plane = empty_control_plane
    # The getting-started guide's command as written, in a directory laid out as it says: the inventory copied from
    # examples/inventory and the admin kubeconfig beside it, named by a path relative to where the command runs.
    workdir = tmp_path_factory.mktemp("getting-started")
    shutil.copytree(ROOT / "examples" / "inventory", workdir / "inventory")
    shutil.copy(plane.kubeconfig, workdir / "admin.kubeconfig")
    command = ("-i", "inventory/", "virtinfra.hyperconverged.automation_account",
               "-e", "site_admin_kubeconfig=admin.kubeconfig")
    created = run_bare(command, workdir, "-e", "site_mode=standalone")
    assert created.returncode == 0, created.stdout + created.stderr
    # A path that is not there is named as searched, before anything is contacted.
    missing = run_bare(command[:-1] + ("site_admin_kubeconfig=nowhere.kubeconfig",), workdir)
    assert missing.returncode != 0
    assert (f"site_admin_kubeconfig: no such file (looked for {workdir / 'nowhere.kubeconfig'}; a relative path is "
            f"read from the directory ansible-playbook runs in ({workdir}))") in missing.stdout, missing.stdout
    token = plane.kubectl_run("create", "token", ACCOUNT, "-n", NAMESPACE, "--duration=1h").stdout.strip()
    config = json.loads(plane.kubeconfig.read_text(encoding="utf-8"))
    config["users"] = [{"name": "automation", "user": {"token": token}}]
    config["contexts"] = [{"name": "automation", "context": {"cluster": "harness", "user": "automation"}}]
    config["current-context"] = "automation"
    path = workdir / "automation.kubeconfig"   # beside the inventory, as the guide's next step puts it
    path.write_text(json.dumps(config), encoding="utf-8")
    path.chmod(0o600)
    return path


def run_bare(arguments, cwd, *extra):
    """ansible-playbook with the arguments as a user types them (the interpreter aside, which the test venv needs)."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".cache" / "collections"), ANSIBLE_NOCOLOR="1")
    command = [str(pathlib.Path(sys.executable).with_name("ansible-playbook")), *arguments,
               "-e", f"ansible_python_interpreter={sys.executable}", *extra]
    return children.run(command, env=env, cwd=cwd, timeout=300)


def cluster_role(plane):
    return json.loads(plane.kubectl_run("get", "clusterrole", ACCOUNT, "-o", "json").stdout)


def test_rules_name_each_resource_and_verb(empty_control_plane, account_kubeconfig):
    del account_kubeconfig
    rules = cluster_role(empty_control_plane)["rules"]
    assert all("*" not in "".join(r["apiGroups"] + r["resources"] + r["verbs"]) for r in rules), rules
    # Cluster-scoped objects by name; only get and list go without names.
    named = {(r["apiGroups"][0], r["resources"][0]): (tuple(r["resourceNames"]), tuple(r["verbs"]))
             for r in rules if "resourceNames" in r}
    assert named[("cdi.kubevirt.io", "cdis")] == (("cdi-kubevirt-hyperconverged",), ("create", "delete", "get", "patch"))
    assert "delete" not in named[("", "namespaces")][1]
    assert all(set(r["verbs"]) <= {"get", "list"} for r in rules if "resourceNames" not in r), rules
    assert not [r for r in rules if set(r["resources"]) & {"secrets", "configmaps"}], rules
    # Namespaced objects by a Role in their namespace.
    role = json.loads(empty_control_plane.kubectl_run("get", "role", ACCOUNT, "-n", "vms", "-o", "json").stdout)
    assert [(r["apiGroups"], r["resources"]) for r in role["rules"]] == [(["k8s.cni.cncf.io"],
                                                                          ["network-attachment-definitions"])]


def can_i(plane, kubeconfig, *question):
    token = json.loads(kubeconfig.read_text())["users"][0]["user"]["token"]
    answer = plane.kubectl_run(f"--token={token}", "auth", "can-i", *question, check=False)
    return answer.stdout.strip() == "yes"


def test_access_reviews_allow_what_the_site_writes_and_nothing_around_it(empty_control_plane, account_kubeconfig):
    plane, config = empty_control_plane, account_kubeconfig
    # SelfSubjectAccessReviews, as the API server answers them for the account's token.
    assert can_i(plane, config, "patch", "cdis.cdi.kubevirt.io/cdi-kubevirt-hyperconverged")
    assert can_i(plane, config, "create", "network-attachment-definitions.k8s.cni.cncf.io", "-n", "vms")
    assert can_i(plane, config, "patch", "namespaces/vms")
    assert not can_i(plane, config, "delete", "namespaces/kube-system")
    assert not can_i(plane, config, "delete", "namespaces/vms")
    assert not can_i(plane, config, "patch", "deployments.apps", "-n", "kube-system")
    assert not can_i(plane, config, "create", "configmaps", "-n", "default")
    assert not can_i(plane, config, "patch", "cdis.cdi.kubevirt.io/someone-elses")
    assert not can_i(plane, config, "get", "secrets", "-n", "kubevirt-hyperconverged")


def test_site_converges_with_the_account_token_alone(empty_control_plane, account_kubeconfig):
    # The guide's preview and run, from the directory it describes, the kubeconfig named relative to it (the nodes
    # are limited out: the host roles have tests of their own).
    command = ("-i", "inventory/", "-i", "localhost,", "--limit", "localhost", "virtinfra.hyperconverged.site",
               "-e", "site_kubeconfig=automation.kubeconfig", "-e", "site_mode=standalone")
    workdir = account_kubeconfig.parent
    check = run_bare((*command, "--check", "--diff"), workdir)
    assert check.returncode == 0, check.stdout + check.stderr
    first = run_bare(command, workdir)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "0 prerequisite and 0 KubeVirt" not in first.stdout
    kubevirt = empty_control_plane.kubectl_run("get", "kubevirts", "-A", "-o", "name").stdout
    assert "kubevirt" in kubevirt
    again = run_bare(command, workdir)
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout


def test_a_write_outside_the_rules_is_refused(empty_control_plane, account_kubeconfig):
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "probe", "namespace": "default"},
              "stringData": {"k": "v"}}
    with pytest.raises((ApplyFailed, KubeError)) as refused:
        Applier(Connection(kubeconfig=str(account_kubeconfig)), Options(apply_set="probe")).run([secret])
    assert "cannot" in str(refused.value) and "secrets" in str(refused.value)
    escalate = empty_control_plane.kubectl_run(
        f"--token={json.loads(account_kubeconfig.read_text())['users'][0]['user']['token']}",
        "create", "clusterrolebinding", "escalate", "--clusterrole=cluster-admin",
        f"--serviceaccount={NAMESPACE}:{ACCOUNT}", check=False)
    assert escalate.returncode != 0 and "forbidden" in escalate.stderr.lower()
    assert empty_control_plane.kubectl_run("get", "secret", "probe", "-n", "default", check=False).returncode != 0
