# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""k8s_apply's src: manifest files and directories, through ansible-playbook against a real kube-apiserver."""

from __future__ import annotations

import base64
import json
import pathlib
import textwrap

from test_k8s_apply import server_writes
from test_render_playbook import run_playbook

SECRET_VALUE = "src-secret-never-shown"


def manifests(directory: pathlib.Path, namespace: str) -> None:
    directory.mkdir()
    (directory / "00-namespace.yaml").write_text(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n")
    (directory / "10-config.yaml").write_text(textwrap.dedent(f"""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {{name: first, namespace: {namespace}}}
        data: {{answer: "42"}}
        ---
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: ConfigMap
            metadata: {{name: second, namespace: {namespace}}}
          - apiVersion: v1
            kind: Secret
            metadata: {{name: token, namespace: {namespace}}}
            stringData: {{token: {SECRET_VALUE}}}
        """))
    (directory / "20-more.json").write_text(json.dumps([
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"third-{i}", "namespace": namespace}}
        for i in range(3)]))
    (directory / "README.md").write_text("# not applied\n")


def playbook(path: pathlib.Path, control_plane, src: list[str], objects: list[dict] | None = None) -> pathlib.Path:
    task = {"virtinfra.hyperconverged.k8s_apply": {"kubeconfig": str(control_plane.kubeconfig), "src": src,
                                                   "apply_set": "from-files", "apply_set_namespace": "default",
                                                   "prune": True, **({"objects": objects} if objects else {})},
            "name": "Apply the manifests", "register": "applied"}
    path.write_text(json.dumps([{"hosts": "localhost", "connection": "local", "gather_facts": False,
                                 "tasks": [task, {"name": "Show", "ansible.builtin.debug": {"var": "applied"}}]}]))
    return path


def live_names(control_plane, namespace: str) -> set[str]:
    listed = json.loads(control_plane.kubectl_run("get", "configmaps,secrets", "-n", namespace, "-o", "json").stdout)
    return {i["metadata"]["name"] for i in listed["items"] if i["metadata"]["name"] != "kube-root-ca.crt"}


def test_a_directory_applies_then_settles_and_its_secret_is_never_shown(tmp_path, control_plane):
    namespace = "src-dir"
    manifests(tmp_path / "manifests", namespace)
    book = playbook(tmp_path / "play.yml", control_plane, [str(tmp_path / "manifests")])

    first = run_playbook(book, "--diff", "-v")
    assert first.returncode == 0, first.stdout + first.stderr
    assert live_names(control_plane, namespace) == {"first", "second", "token", "third-0", "third-1", "third-2"}
    mark = control_plane.audit_offset()
    second = run_playbook(book, "--diff", "-v")
    assert second.returncode == 0 and "changed=0" in second.stdout, second.stdout
    assert server_writes(control_plane, mark) == []
    for output in (first.stdout + first.stderr, second.stdout + second.stderr):
        assert SECRET_VALUE not in output
        assert base64.b64encode(SECRET_VALUE.encode()).decode() not in output

    # A file removed from the directory is pruned with the apply set; the rest stays as it is.
    (tmp_path / "manifests" / "20-more.json").unlink()
    third = run_playbook(book)
    assert third.returncode == 0, third.stdout + third.stderr
    assert live_names(control_plane, namespace) == {"first", "second", "token"}


def test_every_problem_in_every_file_is_reported_and_nothing_is_written(tmp_path, control_plane):
    namespace = "src-bad"
    directory = tmp_path / "manifests"
    manifests(directory, namespace)
    (directory / "30-typo.yaml").write_text(textwrap.dedent(f"""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {{name: fine, namespace: {namespace}}}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {{namespace: {namespace}}}
        """))
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n   namespace: y\n")
    mark = control_plane.audit_offset()

    failed = run_playbook(playbook(tmp_path / "play.yml", control_plane,
                                   [str(directory), str(broken), str(tmp_path / "missing")],
                                   objects=[{"apiVersion": "v1", "kind": "ConfigMap"}]))

    assert failed.returncode != 0
    output = failed.stdout
    assert f"src[0] {directory / '30-typo.yaml'}, document 2" in output and "metadata.name" in output
    assert f"src[1] {broken}" in output and "is not valid YAML" in output and "line 5" in output
    assert f"src[2] {tmp_path / 'missing'}" in output and "no such file or directory" in output
    assert "objects[0]" in output   # the objects option is checked in the same run
    assert server_writes(control_plane, mark) == []
    assert "NotFound" in control_plane.kubectl_run("get", "namespace", namespace, check=False).stderr


def test_objects_or_src_is_required(tmp_path, control_plane):
    book = tmp_path / "play.yml"
    book.write_text(json.dumps([{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        {"virtinfra.hyperconverged.k8s_apply": {"kubeconfig": str(control_plane.kubeconfig)}}]}]))
    failed = run_playbook(book)
    assert failed.returncode != 0 and "one of the following is required: objects, src" in failed.stdout


def test_a_relative_src_is_found_where_ansible_finds_files_never_in_the_working_directory(tmp_path, control_plane):
    namespace = "src-relative"
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    role_files = project / "roles" / "shipped" / "files" / "role-manifests"
    role_files.mkdir(parents=True)
    (role_files / "all.yaml").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "from-role", "namespace": namespace}}]}))
    (project / "manifests").mkdir()
    (project / "manifests" / "cm.yaml").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "from-playbook-dir", "namespace": namespace}}))
    # The directory ansible-playbook runs in has a "manifests" too: it must never be what a relative path means.
    (elsewhere / "manifests").mkdir(parents=True)
    (elsewhere / "manifests" / "cm.yaml").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "decoy", "namespace": namespace}}))

    def apply(src: str, apply_set: str) -> dict:
        return {"name": f"Apply {src}", "virtinfra.hyperconverged.k8s_apply": {"src": [src], "apply_set": apply_set}}

    # The credentials come from module_defaults, which reach the module through the action plugin.
    defaults = {"group/virtinfra.hyperconverged.cluster": {"kubeconfig": str(control_plane.kubeconfig)}}

    (project / "roles" / "shipped" / "tasks").mkdir()
    (project / "roles" / "shipped" / "tasks" / "main.yml").write_text(json.dumps([apply("role-manifests", "role")]))
    book = project / "play.yml"
    book.write_text(json.dumps([{"hosts": "localhost", "connection": "local", "gather_facts": False,
                                 "module_defaults": defaults, "roles": ["shipped"],
                                 "tasks": [apply("manifests", "playbook-dir")]}]))

    applied = run_playbook(book, cwd=elsewhere)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert live_names(control_plane, namespace) == {"from-role", "from-playbook-dir"}

    # Not found where Ansible looks: an error naming the path, and nothing written.
    book.write_text(json.dumps([{"hosts": "localhost", "connection": "local", "gather_facts": False,
                                 "module_defaults": defaults, "tasks": [apply("manifests-missing", "missing")]}]))
    (elsewhere / "manifests-missing").mkdir()
    (elsewhere / "manifests-missing" / "cm.yaml").write_text((elsewhere / "manifests" / "cm.yaml").read_text())
    mark = control_plane.audit_offset()
    failed = run_playbook(book, cwd=elsewhere)
    assert failed.returncode != 0
    assert "src[0] manifests-missing" in failed.stdout and "is a relative path that was not found" in failed.stdout
    assert server_writes(control_plane, mark) == []
    assert "decoy" not in live_names(control_plane, namespace)
