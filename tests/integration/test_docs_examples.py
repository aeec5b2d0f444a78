# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every YAML example in the guides and every module's EXAMPLES runs as a user would paste it.

Guides: a YAML block that is a playbook runs as it stands; a block whose first line is a comment naming a file
(``# collections/requirements.yml``) is that file of an AWX project, written into one job directory with the
example inventory as ``inventory/``, and the project's playbooks then run from there. Module EXAMPLES are task lists:
they run in a play with the variables they refer to (a rendered HyperConverged, a node list), the ones that talk to
a cluster against the real test API server, in check mode (their writes and waits are what test_k8s_apply covers).
"""

from __future__ import annotations

import ast
import os
import pathlib
import re
import shutil
import subprocess
import sys
import typing as t

import pytest
import yaml
from harness import children
from harness.control_plane import ControlPlane

ROOT = pathlib.Path(__file__).resolve().parents[2]
GUIDES = ROOT / "docs" / "docsite" / "rst"
COLLECTIONS = ROOT / ".cache" / "collections"
BLOCK = re.compile(r"^\.\. code-block:: (yaml|yaml\+jinja)\n\n((?:(?:   .*)?\n)+)", re.MULTILINE)


def yaml_blocks(path: pathlib.Path) -> list[str]:
    return [re.sub(r"^   ", "", body, flags=re.MULTILINE).strip() + "\n"
            for _language, body in BLOCK.findall(path.read_text(encoding="utf-8"))]


def module_examples(path: pathlib.Path) -> str:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "EXAMPLES":
            return t.cast(str, ast.literal_eval(node.value))
    raise AssertionError(f"{path.name} has no EXAMPLES")


def run(*argv: str, cwd: pathlib.Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("K8S_AUTH_")}
    env.update(ANSIBLE_COLLECTIONS_PATH=str(COLLECTIONS), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False", **(env_extra or {}))
    result = children.run([str(pathlib.Path(sys.executable).with_name("ansible-playbook")), *argv], cwd=cwd,
                          env=env, timeout=300)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-3000:]
    assert "DEPRECATION" not in result.stdout + result.stderr
    return result


def _is_playbook(data: t.Any) -> bool:
    return isinstance(data, list) and bool(data) and all(isinstance(p, dict) and
                                                         ("hosts" in p or "ansible.builtin.import_playbook" in p)
                                                         for p in data)


GUIDE_FILES = sorted(GUIDES.glob("*.rst"))


def test_the_guides_that_describe_spec_sections_have_examples():
    with_examples = {p.name for p in GUIDE_FILES if yaml_blocks(p)}
    described = {"guide_networking.rst", "guide_sriov.rst", "guide_storage.rst", "guide_olm.rst",
                 "guide_memory_overcommit.rst", "guide_hyperconverged.rst", "guide_awx.rst"}
    assert described <= with_examples, described - with_examples


def inventory_sources(path: pathlib.Path) -> list[str]:
    """The guide's blocks that are a nodes inventory source (``# NAME.nodes.yml``): they need a cluster, and
    test_nodes_from_the_cluster.py lists its Nodes with them."""
    return [text for text in yaml_blocks(path) if re.match(r"# [\w.-]*\.nodes\.ya?ml\b", text)]


@pytest.mark.parametrize("guide", [p for p in GUIDE_FILES if len(yaml_blocks(p)) > len(inventory_sources(p))],
                         ids=lambda p: p.stem)
def test_every_yaml_example_of_a_guide_runs(guide: pathlib.Path, tmp_path: pathlib.Path):
    project = tmp_path / "project"
    project.mkdir()
    playbooks: list[pathlib.Path] = []
    for number, text in enumerate(yaml_blocks(guide)):
        if text in inventory_sources(guide):
            continue
        data = yaml.safe_load(text)
        named = re.match(r"# ([\w./-]+\.ya?ml)\b", text)
        if named:
            target = project / named.group(1)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            if _is_playbook(data):
                playbooks.append(target)
        else:
            assert _is_playbook(data), f"{guide.name}, YAML block {number}: neither a playbook nor a named file"
            target = project / f"example-{number}.yml"
            target.write_text(text, encoding="utf-8")
            playbooks.append(target)
    requirements = project / "collections" / "requirements.yml"
    if requirements.exists():  # an AWX project: its collections match what galaxy.yml declares and ships
        galaxy = yaml.safe_load((ROOT / "galaxy.yml").read_text())
        wanted = {c["name"]: c.get("version") for c in yaml.safe_load(requirements.read_text())["collections"]}
        assert {k: v for k, v in wanted.items() if k != "virtinfra.hyperconverged"} == galaxy["dependencies"]
        assert "virtinfra.hyperconverged" in wanted
    if not (project / "inventory").exists():   # a guide may give its own (the fleet guide's fleet inventory)
        shutil.copytree(ROOT / "examples" / "inventory", project / "inventory")
    assert playbooks, guide.name
    for playbook in playbooks:
        result = run("-i", "inventory", "-e", f"ansible_python_interpreter={sys.executable}",
                     "-e", f"site_render_dir={tmp_path / 'rendered'}", str(playbook), cwd=project)
        assert "failed=0" in result.stdout


# What each module's EXAMPLES refer to, as tasks that run before them, and whether they need a cluster.
HYPERCONVERGED = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
                  "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
                  "spec": {}}
RENDER = {"name": "Render the operands the examples use", "register": "rendered",
          "virtinfra.hyperconverged.hco_render": {"hyperconverged": HYPERCONVERGED}}
CONTEXT: dict[str, dict[str, t.Any]] = {
    "cluster_info": {"cluster": True},
    "hco_render": {"vars": {"hyperconverged": HYPERCONVERGED}},
    "k8s_apply": {"cluster": True, "before": [RENDER, {
        "name": "Write the manifests the src example applies", "check_mode": False,
        "virtinfra.hyperconverged.write_manifests": {"dest": "{{ playbook_dir }}/manifests",
                                                     "objects": "{{ rendered.operands }}"}}]},
    "node_prereqs": {"vars": {"cluster_nodes": [
        {"name": "worker1", "memory": "256Gi", "labels": {"node-role.kubernetes.io/worker": ""}}]}},
    "operators": {"cluster": True, "vars": {"mirror_dir": "{{ playbook_dir }}/mirror"}, "before": [
        {"name": "The mirror's folders", "check_mode": False, "loop": ["kubevirt/v1.9.0", "cdi/v1.66.0"],
         "ansible.builtin.file": {"path": "{{ mirror_dir }}/{{ item }}", "state": "directory", "mode": "0755"}},
        {"name": "Write a mirror in the documented layout (a Namespace and the operator Deployment per file)",
         "check_mode": False, "loop": [["kubevirt", "v1.9.0", "kubevirt-operator.yaml", "virt-operator"],
                                       ["cdi", "v1.66.0", "cdi-operator.yaml", "cdi-operator"]],
         "ansible.builtin.copy": {"dest": "{{ mirror_dir }}/{{ item[0] }}/{{ item[1] }}/{{ item[2] }}", "content": (
             "{{ [{'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': item[0]}},"
             " {'apiVersion': 'apps/v1', 'kind': 'Deployment',"
             "  'metadata': {'name': item[3], 'namespace': item[0]},"
             "  'spec': {'selector': {'matchLabels': {'name': item[3]}}, 'template': {"
             "   'metadata': {'labels': {'name': item[3]}},"
             "   'spec': {'containers': [{'name': item[3], 'image': 'quay.io/x/' ~ item[3] ~ ':' ~ item[1]}]}}}}]"
             " | to_nice_yaml(explicit_start=false) }}")}},
        {"name": "Their checksums", "loop": ["kubevirt/v1.9.0/kubevirt-operator.yaml", "cdi/v1.66.0/cdi-operator.yaml"],
         "ansible.builtin.stat": {"path": "{{ mirror_dir }}/{{ item }}", "checksum_algorithm": "sha256"},
         "register": "mirror_files"},
        {"name": "Keyed <operator>/<file>", "ansible.builtin.set_fact": {"mirror_checksums": (
            "{{ dict(mirror_files.results | map(attribute='item') | map('regex_replace', '/v[^/]+/', '/')"
            " | zip(mirror_files.results | map(attribute='stat.checksum') | map('regex_replace', '^', 'sha256:'))) }}")}},
    ]},
    "preflight_info": {},
    "site_settings": {"inventory": True},
    "site_fleet": {},
    "vm_validate": {"before": [RENDER], "files": {"vm.yml": {
        "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm1", "namespace": "vms"},
        "spec": {"runStrategy": "Always", "template": {"spec": {"domain": {
            "devices": {}, "memory": {"guest": "2Gi"}}}}}}}},
    "write_manifests": {"before": [RENDER]},
}
MODULES = sorted(p.stem for p in (ROOT / "plugins" / "modules").glob("*.py") if p.stem != "__init__")


def test_every_module_has_a_context_for_its_examples():
    assert sorted(CONTEXT) == MODULES


@pytest.mark.parametrize("module", MODULES)
def test_every_module_example_runs(module: str, tmp_path: pathlib.Path, request: pytest.FixtureRequest):
    context = CONTEXT[module]
    tasks = yaml.safe_load(module_examples(ROOT / "plugins" / "modules" / f"{module}.py"))
    play = {"name": f"The EXAMPLES of {module}", "hosts": "localhost", "connection": "local", "gather_facts": False,
            "vars": context.get("vars", {}), "tasks": context.get("before", []) + tasks}
    (tmp_path / "playbook.yml").write_text(yaml.safe_dump([play], sort_keys=False), encoding="utf-8")
    for name, content in context.get("files", {}).items():
        (tmp_path / name).write_text(yaml.safe_dump(content), encoding="utf-8")
    inventory = str(ROOT / "examples" / "inventory" / "hosts.yml") if context.get("inventory") else "localhost,"
    argv = ["-i", inventory, "-e", f"ansible_python_interpreter={sys.executable}", "playbook.yml"]
    env_extra = None
    if context.get("cluster"):
        # A server of this file's own: the examples apply the operands under apply sets of their own, which on a
        # shared server would meet the site's (k8s_apply refuses another set's members, even in check mode).
        plane: ControlPlane = request.getfixturevalue("empty_control_plane")
        env_extra = {"K8S_AUTH_KUBECONFIG": str(plane.kubeconfig)}
        argv.append("--check")
    result = run(*argv, cwd=tmp_path, env_extra=env_extra)
    assert "failed=0" in result.stdout


# Files a user of the installed collection does not have: the design notes and the reference material of the
# project's source tree.
NOT_SHIPPED = re.compile(r"\.\./shared|hco-mapping\.md|node-prereqs\.md|hco-seed-release\.md|apply-architecture\.md"
                         r"|test-harness\.md|conventions\.md")


@pytest.mark.parametrize("document", [*GUIDE_FILES, *sorted((ROOT / "plugins" / "modules").glob("*.py"))],
                         ids=lambda p: p.name)
def test_no_doc_refers_to_a_file_users_do_not_have(document: pathlib.Path):
    text = document.read_text(encoding="utf-8")
    if document.suffix == ".py":
        text = "".join(ast.literal_eval(node.value) for node in ast.parse(text).body
                       if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in
                       ("DOCUMENTATION", "EXAMPLES", "RETURN"))
    assert NOT_SHIPPED.findall(text) == []
    # Paths of the collection named in the docs exist in it.
    named = set(re.findall(r"``((?:examples|extensions|playbooks|roles|meta|docs)/[\w./-]+)``", text))
    assert {path for path in named if not (ROOT / path).exists()} == set()
