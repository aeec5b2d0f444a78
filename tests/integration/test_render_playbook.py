# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The render playbook and the filter through real ansible-playbook runs (no cluster)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
import yaml
from harness import children

ROOT = pathlib.Path(__file__).resolve().parents[2]
COLLECTIONS = ROOT / ".cache" / "collections"


def run_playbook(playbook: pathlib.Path, *extra: str, cwd: pathlib.Path | None = None,
                 env_extra: dict[str, str] | None = None, interpreter: str | None = None,
                 environ: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    # tests/matrix/run.py adds the dependencies' collections: its venvs hold ansible-core without the ansible package.
    collections = os.pathsep.join(filter(None, [str(COLLECTIONS), os.environ.get("VIRTINFRA_TEST_DEPENDENCIES", "")]))
    env = dict(os.environ if environ is None else environ, ANSIBLE_COLLECTIONS_PATH=collections, ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_INVENTORY_UNPARSED_WARNING="False", **(env_extra or {}))
    command = [str(pathlib.Path(sys.executable).with_name("ansible-playbook")), "-i", "localhost,",
               "-e", f"ansible_python_interpreter={interpreter or sys.executable}", str(playbook), *extra]
    return children.run(command, env=env, timeout=300, cwd=cwd)


def test_render_playbook_writes_one_file_per_object(tmp_path):
    result = run_playbook(ROOT / "playbooks" / "render.yml", "-e", f"render_output_dir={tmp_path}")
    assert result.returncode == 0, result.stdout + result.stderr
    files = sorted(tmp_path.glob("*.yaml"))
    kinds = [yaml.safe_load(f.read_text())["kind"] for f in files]
    assert kinds[:4] == ["KubeVirt", "CDI", "NetworkAddonsConfig", "SSP"]
    kubevirt = yaml.safe_load(files[0].read_text())
    assert kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] == 150
    assert kubevirt["spec"]["configuration"]["migrations"]["network"] == "migration-net"
    # A second run writes nothing new.
    again = run_playbook(ROOT / "playbooks" / "render.yml", "-e", f"render_output_dir={tmp_path}")
    assert "changed=0" in again.stdout, again.stdout


def test_refusal_lists_every_error_and_filter_agrees(tmp_path):
    playbook = tmp_path / "play.yml"
    playbook.write_text(textwrap.dedent("""
        - hosts: localhost
          gather_facts: false
          vars:
            hc:
              apiVersion: hco.kubevirt.io/v1beta1
              kind: HyperConverged
              metadata: {name: kubevirt-hyperconverged, namespace: kubevirt-hyperconverged}
              spec:
                tuningPolicy: fast
                certConfig: {ca: {duration: 1m}}
          tasks:
            - name: Refused input
              virtinfra.hyperconverged.hco_render:
                hyperconverged: "{{ hc }}"
              register: refused
              ignore_errors: true
            - name: Check
              ansible.builtin.assert:
                that:
                  - refused is failed
                  - refused.operands is not defined
                  - "'spec.tuningPolicy' in (refused.errors | map(attribute='path'))"
                  - "'spec.certConfig.ca.duration' in (refused.errors | map(attribute='path'))"
            - name: The filter renders the same objects as the action
              virtinfra.hyperconverged.hco_render:
                hyperconverged: "{{ hc | combine({'spec': {}}) }}"
                release: "1.14"
              register: rendered
            - name: Compare
              ansible.builtin.assert:
                that:
                  - "rendered.operands == (hc | combine({'spec': {}}) | virtinfra.hyperconverged.hco_operands(release='1.14'))"
                  - rendered.release == '1.14'
        """))
    result = run_playbook(playbook)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_site_render_mode_is_the_main_job(tmp_path):
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", f"site_render_dir={tmp_path}")
    assert result.returncode == 0, result.stdout + result.stderr
    names = sorted(p.name for p in tmp_path.glob("*.yaml"))
    assert "kubevirt-kubevirt-hyperconverged-kubevirt-kubevirt-hyperconverged.yaml" in names
    assert "nodenetworkconfigurationpolicy-cluster-br1-policy.yaml" in names
    assert "sriovnetworknodepolicy-sriov-network-operator-vm-vfs.yaml" in names
    kubevirt = yaml.safe_load((tmp_path / "kubevirt-kubevirt-hyperconverged-kubevirt-kubevirt-hyperconverged.yaml")
                              .read_text())
    assert kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] == 150
    assert kubevirt["spec"]["configuration"]["migrations"]["network"] == "migration-net"
    assert f"render mode: {len(names)} manifests in {tmp_path}, {len(names)} written, 0 removed" in result.stdout
    # Render mode contacts no host, and says nothing about a host pattern or an IOMMU it cannot know.
    assert "Could not match supplied host pattern" not in result.stdout + result.stderr
    assert "IOMMU" not in result.stdout
    assert "DEPRECATION" not in result.stdout + result.stderr  # e.g. facts read as top-level variables (2.20+)
    assert ("operands: KubeVirt kubevirt-kubevirt-hyperconverged in kubevirt-hyperconverged, "
            "CDI cdi-kubevirt-hyperconverged (cluster-scoped), NetworkAddonsConfig cluster (cluster-scoped)"
            in result.stdout)
    assert "worker3: 65536 MiB" in result.stdout  # 128Gi at 150 %
    # The example's one warning (its bridge on some nodes only): once where it was found, once in the summary.
    bridge = "bridge br1 exists only on the nodes its node_selector matches"
    summary = re.search(r'"warnings: (.*)",', result.stdout)
    assert summary, result.stdout
    warned = summary.group(1)
    assert warned.count(bridge) == 1 and (result.stdout + result.stderr).count(bridge) == 2, warned
    assert "infra1" not in result.stdout.split("PLAY RECAP")[1]  # no host is contacted in render mode
    # A rerun writes nothing; a file someone else put in the directory is never touched.
    foreign = tmp_path / "configmap-cluster-mine.yaml"
    foreign.write_text("# kept by its owner\n")
    again = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", f"site_render_dir={tmp_path}")
    assert again.returncode == 0 and "changed=0" in again.stdout, again.stdout
    assert f"render mode: {len(names)} manifests in {tmp_path}, 0 written, 0 removed" in again.stdout
    # Check mode says what it would do and writes nothing.
    check = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", f"site_render_dir={tmp_path}",
                         "-e", "site_mode=hco", "--check")
    assert check.returncode == 0, check.stdout
    # hco mode writes the HyperConverged in place of the operands (the HCO-built objects go), and the kustomization
    # that lists them.
    assert re.search(r"manifests in \S+, 2 would be written, [1-9]\d* would be removed", check.stdout), check.stdout
    assert sorted(p.name for p in tmp_path.glob("*.yaml")) == sorted([*names, foreign.name])
    # hco mode renders the HyperConverged instead of the operands: only files this collection wrote are removed.
    hco = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", f"site_render_dir={tmp_path}",
                       "-e", "site_mode=hco")
    assert hco.returncode == 0, hco.stdout
    after = sorted(p.name for p in tmp_path.glob("*.yaml"))
    assert "kubevirt-kubevirt-hyperconverged-kubevirt-kubevirt-hyperconverged.yaml" not in after
    assert "hyperconverged-kubevirt-hyperconverged-kubevirt-hyperconverged.yaml" in after
    assert "nodenetworkconfigurationpolicy-cluster-br1-policy.yaml" in after
    assert foreign.read_text() == "# kept by its owner\n"
    index = json.loads((tmp_path / ".virtinfra-rendered.json").read_text())
    assert sorted(index["files"]) == sorted(set(after) - {foreign.name})


def test_render_mode_never_overwrites_a_file_it_did_not_write(tmp_path):
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    taken = tmp_path / "namespace-cluster-kubevirt-hyperconverged.yaml"
    taken.write_text("# a hand-made namespace\n")
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", f"site_render_dir={tmp_path}")
    assert result.returncode != 0
    assert "was not written by this collection" in result.stdout and str(taken) in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == [taken.name]  # nothing written, no index
    assert taken.read_text() == "# a hand-made namespace\n"


def test_render_mode_defaults_to_rendered_in_the_working_directory(tmp_path):
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    env_cwd = tmp_path / "job"
    env_cwd.mkdir()
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", "site_render_dir=",
                          cwd=env_cwd)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"manifests in {env_cwd / 'rendered'}, " in result.stdout
    assert len(list((env_cwd / "rendered").glob("*.yaml"))) > 10


def test_site_refuses_bad_settings_by_name_and_writes_nothing(tmp_path):
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    out = tmp_path / "out"
    # As an AWX survey sends them: every answer a string; a typo in a name; YAML's 1.20 read as a number.
    answers = {"site_render_dir": str(out), "site_overcommit_percent": "lots", "site_overcomit_percent": "200",
               "site_release": 1.2, "site_vm_vlans": "100-5000", "site_swap_activate": "perhaps",
               "site_action": "rendr"}
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", json.dumps(answers))
    assert result.returncode != 0
    report = json.loads(result.stdout[result.stdout.index("{", result.stdout.index("fatal: [localhost]")):]
                        .split("\n", 1)[0])
    named = sorted(error.split(":", 1)[0] for error in report["errors"])
    assert named == sorted(set(answers) - {"site_render_dir"})  # one error per mistake, each named
    assert "did you mean site_overcommit_percent?" in result.stdout and "quote it" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    assert not out.exists()


def test_a_name_with_a_trailing_newline_is_refused_by_its_variable_before_any_file(tmp_path):
    # "vlan100-net\n" (a YAML block scalar's clip keeps the newline) passed a name pattern written ^...$ read with
    # re.match, and a render wrote a file and a NAD named with it. Kubernetes' name rules match the whole text.
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    out = tmp_path / "out"
    networks = {"site_render_dir": str(out),
                "site_vm_networks": [{"name": "vlan100-net\n", "namespace": "vms", "vlan": 100},
                                     {"name": "vlan200-net", "namespace": "vms\n", "vlan": 200}]}
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", json.dumps(networks))
    assert result.returncode != 0
    assert "site_vm_networks[0].name" in result.stdout and "site_vm_networks[1].namespace" in result.stdout, \
        result.stdout
    assert not out.exists()


def test_site_refuses_a_typo_in_the_hyperconverged_spec_before_anything(tmp_path):
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    out = tmp_path / "out"
    spec = {"site_render_dir": str(out), "site_hyperconverged_spec": {"liveMigrationConfg": {"bandwidthPerMigration": "1Gi"}}}
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", json.dumps(spec))
    assert result.returncode != 0
    assert "spec.liveMigrationConfg: unknown field (the API server would drop it) (did you mean liveMigrationConfig?)" \
        in result.stdout
    assert not out.exists()
    # site_strict: false drops it with a warning, as the API server would.
    relaxed = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory),
                           "-e", json.dumps({**spec, "site_strict": "false"}))
    assert relaxed.returncode == 0, relaxed.stdout
    assert "[WARNING]: spec.liveMigrationConfg: unknown field" in relaxed.stdout + relaxed.stderr


def test_a_bad_inventory_gets_every_problem_in_one_run_named_by_the_users_variables(tmp_path):
    inventory = tmp_path / "inventory"
    shutil.copytree(ROOT / "examples" / "inventory", inventory)
    hosts = yaml.safe_load((inventory / "hosts.yml").read_text())
    workers = hosts["all"]["children"]["kubevirt_nodes"]["children"]["workload_nodes"]
    del workers["vars"]["node_memory"]                                  # the group's memory is gone ...
    workers["hosts"]["worker1"]["node_memory"] = "256Gi"
    workers["hosts"]["worker3"] = {"ansible_host": "192.0.2.23", "node_memroy": "128Gi"}   # ... and a host's typo
    (inventory / "hosts.yml").write_text(yaml.safe_dump(hosts))
    settings = yaml.safe_load((inventory / "group_vars" / "all.yml").read_text())
    settings.update({"site_render_dir": str(tmp_path / "out"), "site_infra_node_selector": {"-bad/infra": "true"},
                     "site_vm_networks": [{"namespce": "vms", "vlan": "100"}],
                     "site_hpp_pools": [{"name": "local", "path": "/var/hpvolumes", "storage_clas": "x"}]})
    (inventory / "group_vars" / "all.yml").write_text(yaml.safe_dump(settings))
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory / "hosts.yml"))
    assert result.returncode != 0
    report = json.loads(result.stdout[result.stdout.index("{", result.stdout.index("fatal: [localhost]")):]
                        .split("\n", 1)[0])
    named = [error.split(": ", 1)[0] for error in report["errors"]]
    assert named == [
        "site_infra_node_selector",
        "hostvars[worker2].node_memory",
        "hostvars[worker3].node_memroy",
        "hostvars[worker3].node_memory",
        "site_vm_networks[0].namespce",
        "site_vm_networks[0].name",
        "site_vm_networks[0].namespace",
        "site_vm_networks[0].vlan",
        "site_hpp_pools[0].storage_clas",
    ], report["errors"]
    assert "did you mean node_memory?" in report["errors"][2]
    assert "got text '100'" in report["errors"][7]
    assert not (tmp_path / "out").exists()


def test_site_blank_survey_answers_mean_defaults(tmp_path):
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    blanks = {"site_render_dir": str(tmp_path), "site_sriov_nic": "", "site_vm_bridge_nic": " ", "site_vm_networks": "",
              "site_overcommit_percent": "", "site_preset": "", "site_mode": "", "site_action": ""}
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", json.dumps(blanks))
    assert result.returncode == 0, result.stdout + result.stderr
    kinds = {yaml.safe_load(p.read_text())["kind"] for p in tmp_path.glob("*.yaml")}
    assert not kinds & {"SriovNetworkNodePolicy", "SriovNetwork", "NodeNetworkConfigurationPolicy"}
    assert "networkattachmentdefinition-kubevirt-hyperconverged-migration-net.yaml" in [
        p.name for p in tmp_path.glob("*.yaml")]  # the migration NIC is still set in the inventory
    kubevirt = yaml.safe_load((tmp_path / "kubevirt-kubevirt-hyperconverged-kubevirt-kubevirt-hyperconverged.yaml")
                              .read_text())
    assert kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] == 100  # HCO's default
    assert "render mode:" in result.stdout and "no credential is set" in result.stdout


@pytest.mark.parametrize(("release", "openshift", "namespace"), [
    ("1.20", "4.19", "kubevirt-hyperconverged"),  # HCO 1.16+ deploys wasp-agent itself, whatever the OpenShift
    ("1.20", "4.21", "kubevirt-hyperconverged"),
    ("1.14", "4.20", "wasp"),  # HCO 1.14 does not: the manual procedure's agent, in its own namespace
])
def test_standalone_on_openshift_plans_exactly_one_wasp_agent(tmp_path, release, openshift, namespace):
    inventory = ROOT / "examples" / "inventory" / "hosts.yml"
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", f"site_render_dir={tmp_path}",
                          "-e", "site_platform=openshift", "-e", f"site_platform_version={openshift}",
                          "-e", f"site_release={release}", "-e", "site_mode=standalone")
    assert result.returncode == 0, result.stdout + result.stderr
    objects = [yaml.safe_load(p.read_text()) for p in tmp_path.glob("*.yaml")]
    agents = [o["metadata"]["namespace"] for o in objects if o["kind"] == "DaemonSet"
              and o["metadata"]["name"] == "wasp-agent"]
    assert agents == [namespace]
    assert [o["metadata"]["name"] for o in objects if o["kind"] == "SecurityContextConstraints"].count("wasp") == 1


def test_vm_validate_and_node_prereqs_report_paths_through_ansible(tmp_path):
    playbook = tmp_path / "checks.yml"
    playbook.write_text(textwrap.dedent("""\
        - hosts: localhost
          connection: local
          gather_facts: false
          tasks:
            - name: Render the KubeVirt CR
              virtinfra.hyperconverged.hco_render:
                hyperconverged: {apiVersion: hco.kubevirt.io/v1beta1, kind: HyperConverged,
                                 metadata: {name: kubevirt-hyperconverged, namespace: kubevirt-hyperconverged}}
              register: rendered
            - name: A VM with two problems
              virtinfra.hyperconverged.vm_validate:
                kubevirt: "{{ rendered.operands | selectattr('kind', 'equalto', 'KubeVirt') | first }}"
                vm:
                  kind: VirtualMachineInstance
                  spec: {domain: {cpu: {model: Opteron_G1}, memory: {guest: 512Mi, hugepages: {pageSize: 1Gi}}}}
              ignore_errors: true
              register: vm
            - name: Bad prerequisites
              virtinfra.hyperconverged.node_prereqs:
                spec: {storage: {provisioners: [{path_config: {path: /a}}, {path_config: {path: /b}}]}}
              ignore_errors: true
              register: prereqs
            - name: Show
              ansible.builtin.debug:
                msg: "PATHS={{ (vm.errors + prereqs.errors) | map(attribute='path') | join(',') }}"
        """))
    result = run_playbook(playbook)
    assert result.returncode == 0, result.stdout
    assert "PATHS=spec.domain.cpu.model,spec.domain.memory.hugepages.pageSize,storage.provisioners" in result.stdout
