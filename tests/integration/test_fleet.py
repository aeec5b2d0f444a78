# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fleet of four clusters - each a real API server with its controllers and kwok's nodes, each another example
topology, platform and HCO release - configured by one site run from the fleet inventory (a folder per cluster), then
as AWX runs a sliced job: ansible-runner given each slice's inventory as AWX builds it (ansible/awx 24.6.1,
awx/main/models/inventory.py, Inventory.get_script_data: every n-th host sorted by name, groups filtered to them).
One cluster is made to fail mid-run: a ValidatingAdmissionPolicy refuses real writes of its KubeVirt (not dry runs,
so the site's dry run cannot see it coming), as a failing webhook would; a fifth cluster cannot be reached.

Node names carry their cluster's name (a host is one machine in one cluster). The hosts are limited out (molecule
covers the host roles): the runs are limited to the clusters and localhost, as in test_site.py."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import stat
import sys
import typing as t

import pytest
import yaml
from conftest import _running_control_plane
from harness.runner_job import run_job
from test_k8s_apply import server_writes
from test_render_playbook import COLLECTIONS, ROOT, run_playbook
from test_topologies import TOPOLOGIES
from test_topologies_apply import nodes_of

# Cluster name: (topology, the release it runs; None keeps the topology's).
FLEET = {"pools": ("dedicated-pools.yml", "1.20"), "kkp": ("kkp.yml", "1.15"),
         "sno": ("single-node-openshift.yml", None), "arbiter": ("two-node-arbiter.yml", None)}
FROZEN = "pools"
POLICY = [
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
     "metadata": {"name": "kubevirt-change-freeze"},
     "spec": {"failurePolicy": "Fail",
              "matchConstraints": {"resourceRules": [{"apiGroups": ["kubevirt.io"], "apiVersions": ["*"],
                                                      "operations": ["CREATE", "UPDATE"],
                                                      "resources": ["kubevirts"]}]},
              "validations": [{"expression": "request.dryRun == true",
                               "message": "KubeVirt is frozen for the change window"}]}},
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
     "metadata": {"name": "kubevirt-change-freeze"},
     "spec": {"policyName": "kubevirt-change-freeze", "validationActions": ["Deny"]}},
]


def cluster_nodes(name: str, topology: str) -> list[dict]:
    """The topology's machines as Nodes of this cluster, named NAME-HOST."""
    nodes = nodes_of(TOPOLOGIES / topology)
    for node in nodes:
        node["metadata"]["name"] = f"{name}-{node['metadata']['name']}"
        node["metadata"]["labels"]["kubernetes.io/hostname"] = node["metadata"]["name"]
        for key in ("machineID", "systemUUID", "bootID"):
            node["status"]["nodeInfo"][key] = node["metadata"]["name"]
    return nodes


@pytest.fixture(scope="module")
def planes(tmp_path_factory):
    with contextlib.ExitStack() as stack:
        yield {name: stack.enter_context(_running_control_plane(tmp_path_factory, controllers=True,
                                                                nodes=cluster_nodes(name, topology)))
               for name, (topology, _release) in FLEET.items()}


def write_fleet(root: pathlib.Path, planes: dict | None) -> pathlib.Path:
    """The fleet inventory: fleet.yml, a folder per cluster with its topology's settings (cluster.yml), its nodes
    and their facts (nodes.yml) and its kubeconfig (without ``planes``, none: render mode), and one setting for the
    whole fleet."""
    root.mkdir(parents=True)
    (root / "fleet.yml").write_text("plugin: virtinfra.hyperconverged.fleet\n")
    (root / "group_vars").mkdir()
    (root / "group_vars" / "kubevirt_clusters.yml").write_text("site_drift: revert\n")
    for name, (topology, release) in FLEET.items():
        folder = root / "clusters" / name
        folder.mkdir(parents=True)
        inventory = yaml.safe_load((TOPOLOGIES / topology).read_text())["all"]
        settings = dict(inventory["vars"])
        if release:
            settings["site_release"] = release
        (folder / "cluster.yml").write_text(yaml.safe_dump(settings))
        if planes:
            (folder / "kubeconfig").write_text(planes[name].kubeconfig.read_text())
        # The facts as `kubectl get node -o yaml` gives them (memory as the kubelet reports it).
        hosts = {node["metadata"]["name"]: {"node_labels": node["metadata"]["labels"],
                                            "node_memory": node["status"]["capacity"]["memory"],
                                            "node_taints": node["spec"].get("taints") or []}
                 for node in cluster_nodes(name, topology)}
        (folder / "nodes.yml").write_text(yaml.safe_dump({"hosts": hosts}))
    return root / "fleet.yml"


def fleet_run(inventory: pathlib.Path, limit: str = "kubevirt_clusters,localhost", *extra: str):
    return run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "--limit", limit, "--forks", "8",
                        *extra)


def fleet_summary(stdout: str) -> list[str]:
    block = stdout.split("TASK [Each cluster's outcome", 1)[1]
    return json.loads("{" + block.split("{", 1)[1].rsplit("PLAY RECAP", 1)[0].strip())["msg"]


def recap(stdout: str) -> dict[str, tuple[int, int]]:
    """(changed, failed) by host, from the play recap."""
    return {host: (int(changed), int(failed)) for host, changed, failed in
            re.findall(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)", stdout, re.M)}


def awx_slice(exported: dict, number: int, count: int) -> dict:
    """The inventory script data AWX gives slice NUMBER of COUNT (get_script_data with hostvars)."""
    hostvars = exported["_meta"]["hostvars"]
    every = sorted({*hostvars, *(h for g in exported.values() if isinstance(g, dict) for h in g.get("hosts", []))})
    chosen = set(every[number - 1::count])
    data: dict = {"_meta": {"hostvars": {host: hostvars.get(host, {}) for host in sorted(chosen)}}}
    for group, entry in exported.items():
        if group == "_meta":
            continue
        kept = {key: value for key, value in entry.items() if key != "hosts"}
        hosts = [host for host in entry.get("hosts", []) if host in chosen]
        if hosts:
            kept["hosts"] = hosts
        if kept:   # a group with neither hosts, children nor variables is left out, as AWX leaves it out
            data[group] = kept
    return data


def exported_inventory(inventory: pathlib.Path) -> dict:
    """What AWX stores of the inventory source: ansible-inventory --list --export, as its inventory import runs it."""
    done = run_playbook_tool("ansible-inventory", "-i", str(inventory), "--list", "--export")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def run_playbook_tool(tool: str, *args: str):
    from harness import children
    return children.run([str(pathlib.Path(sys.executable).with_name(tool)), *args],
                        env={**os.environ, "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}, timeout=120)


def test_sliced_jobs_configure_whole_clusters_and_agree_with_one_unsliced_run(planes, tmp_path):
    inventory = write_fleet(tmp_path / "fleet", planes)
    exported = exported_inventory(inventory)
    marks = {name: plane.audit_offset() for name, plane in planes.items()}
    # The job template limits the job to the clusters (the host roles are molecule's), as AWX passes a limit.
    configured: dict[str, list[str]] = {}
    for number in (1, 2):
        data = tmp_path / f"slice{number}"
        (data / "inventory").mkdir(parents=True)
        # AWX gives a job its inventory as a script that prints the slice's data.
        (data / "slice.json").write_text(json.dumps(awx_slice(exported, number, 2)))
        script = data / "inventory" / "hosts"
        script.write_text(f"#!{sys.executable}\nimport sys\n"
                          f"print(open({str(data / 'slice.json')!r}).read() if '--list' in sys.argv else '{{}}')\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        job = run_job(private_data_dir=str(data), project_dir=str(ROOT / "playbooks"), playbook="site.yml",
                      limit="kubevirt_clusters,localhost", forks=8,
                      envvars={"ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS), "ANSIBLE_NOCOLOR": "1"},
                      extravars={"ansible_python_interpreter": sys.executable})
        stdout = job.stdout
        assert job.status == "successful", stdout[-6000:]
        lines = fleet_summary(stdout)
        said = {line.split(":", 1)[0]: line.split(":", 1)[1] for line in lines[1:]}
        done = [name for name in FLEET if said[name].startswith(" apply mode")]
        absent = [name for name in FLEET if said[name].startswith(" not in this run")]
        assert sorted(done + absent) == sorted(FLEET), lines
        # Nodes whose cluster is in the other slice are named, not planned from part of their cluster.
        stray = [name for name in absent if any(f"{name}-" in said.get("nodes not prepared", "") for name in absent)]
        assert stray == absent, lines
        configured[f"slice{number}"] = done
    # Every cluster in exactly one slice, configured there whole (planned from its live Nodes).
    assert sorted(configured["slice1"] + configured["slice2"]) == sorted(FLEET), configured
    for name, plane in planes.items():
        assert server_writes(plane, marks[name]), f"{name} was not configured by any slice"
    # The unsliced run agrees: nothing left to change, no write anywhere.
    marks = {name: plane.audit_offset() for name, plane in planes.items()}
    whole = fleet_run(inventory)
    assert whole.returncode == 0, whole.stdout[-6000:]
    assert all(changed == 0 for host, (changed, _failed) in recap(whole.stdout).items() if host in FLEET), \
        whole.stdout[-4000:]
    for name, plane in planes.items():
        assert server_writes(plane, marks[name]) == [], name
    lines = fleet_summary(whole.stdout)
    assert lines[0] == f"fleet: {len(FLEET)} cluster(s): {len(FLEET)} done", lines
    assert re.search(r"^kkp: apply mode \(standalone\).*release profile: 1\.15 ", "\n".join(lines), re.M), lines


def test_one_run_configures_the_fleet_while_one_cluster_fails_mid_run_and_one_cannot_be_reached(planes, tmp_path):
    inventory = write_fleet(tmp_path / "fleet", planes)
    # A change for every cluster, and for the frozen one a network (a prerequisite, written first) too.
    for name in FLEET:
        cluster_file = inventory.parent / "clusters" / name / "cluster.yml"
        settings = yaml.safe_load(cluster_file.read_text())
        settings["site_overcommit_percent"] = 175
        if name == FROZEN:
            settings["site_vm_networks"] = [*settings["site_vm_networks"],
                                            {"name": "vlan101-net", "namespace": "vms", "vlan": 101}]
        cluster_file.write_text(yaml.safe_dump(settings))
    gone = inventory.parent / "clusters" / "gone"
    gone.mkdir()
    kubeconfig = json.loads(planes["kkp"].kubeconfig.read_text())
    for cluster in kubeconfig["clusters"]:
        cluster["cluster"]["server"] = "https://127.0.0.1:1"
    (gone / "kubeconfig").write_text(json.dumps(kubeconfig))
    (gone / "cluster.yml").write_text("site_platform_version: '1.33'\n")
    frozen = planes[FROZEN]
    frozen.kubectl_run("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": POLICY}))
    try:
        marks = {name: plane.audit_offset() for name, plane in planes.items()}
        run = fleet_run(inventory)
        assert run.returncode != 0
        lines = fleet_summary(run.stdout)
        said = "\n".join(lines)
        assert lines[0] == "fleet: 5 cluster(s): 3 done, 1 failed, 1 refused", lines
        assert re.search(r"^gone: refused before any write, \d problem\(s\): .*127\.0\.0\.1:1", said, re.M), said
        assert re.search(rf"^{FROZEN}: apply mode .*FAILED: .*KubeVirt is frozen.*--limit {FROZEN}", said, re.M), said
        # The others were configured as if the broken ones were not there.
        for name in FLEET:
            if name != FROZEN:
                assert server_writes(planes[name], marks[name]), name
        # The frozen cluster got what came before its KubeVirt (the new network), and its summary says so.
        written = server_writes(frozen, marks[FROZEN])
        assert any(e["objectRef"].get("name") == "vlan101-net" for e in written), written
        # Its KubeVirt write was refused by the server (the attempt is in the audit log, with the policy's answer).
        kubevirt = [e for e in written if e["objectRef"].get("resource") == "kubevirts"]
        assert kubevirt and all(e["responseStatus"]["code"] >= 400 for e in kubevirt), kubevirt
        assert re.search(r"node prerequisites: wrote [^\n]*NetworkAttachmentDefinition vms/vlan101-net",
                         run.stdout), run.stdout[-8000:]

        # Run again: the three that were configured have nothing to change.
        marks = {name: plane.audit_offset() for name, plane in planes.items()}
        again = fleet_run(inventory)
        for name in FLEET:
            if name != FROZEN:
                assert recap(again.stdout)[name] == (0, 0), again.stdout[-4000:]
                assert server_writes(planes[name], marks[name]) == [], name
    finally:
        frozen.kubectl_run("delete", "validatingadmissionpolicybinding,validatingadmissionpolicy",
                           "kubevirt-change-freeze", check=False)
    # The change window over, the frozen cluster resumes alone, as its line said.
    marks = {name: plane.audit_offset() for name, plane in planes.items()}
    resumed = fleet_run(inventory, f"{FROZEN},localhost")
    assert resumed.returncode == 0, resumed.stdout[-6000:]
    lines = fleet_summary(resumed.stdout)
    assert lines[0] == "fleet: 5 cluster(s): 1 done, 4 not in this run", lines
    assert any(e["objectRef"].get("resource") == "kubevirts" for e in server_writes(frozen, marks[FROZEN]))
    for name in FLEET:
        if name != FROZEN:
            assert server_writes(planes[name], marks[name]) == [], name


def unwrapped(value: t.Any) -> t.Any:
    return value["__ansible_unsafe"] if isinstance(value, dict) and "__ansible_unsafe" in value else value


def merged_kubeconfig(planes: dict, path: pathlib.Path) -> pathlib.Path:
    """One kubeconfig with a context per cluster, named after it (as a fleet's admin keeps them)."""
    merged: dict = {"apiVersion": "v1", "kind": "Config", "clusters": [], "users": [], "contexts": []}
    for name, plane in planes.items():
        config = json.loads(plane.kubeconfig.read_text())
        merged["clusters"].append({**config["clusters"][0], "name": name})
        user = next(user for user in config["users"] if user["name"] == "admin")
        merged["users"].append({**user, "name": f"{name}-admin"})
        merged["contexts"].append({"name": name, "context": {"cluster": name, "user": f"{name}-admin"}})
    path.write_text(json.dumps(merged))
    path.chmod(0o600)
    return path


def test_a_context_per_cluster_and_nodes_listed_from_each_cluster_make_the_same_fleet(planes, tmp_path):
    """Adding a cluster is adding a kubeconfig context; its nodes come from it through a nodes inventory source of
    its own (cluster: NAME), into its own group."""
    root = tmp_path / "inventory"
    root.mkdir()
    kubeconfig = merged_kubeconfig(planes, tmp_path / "fleet.kubeconfig")
    (root / "fleet.yml").write_text(f"plugin: virtinfra.hyperconverged.fleet\nkubeconfig: {kubeconfig}\n"
                                    "clusters_dir: ../clusters\n")
    for name, (topology, release) in FLEET.items():
        settings = dict(yaml.safe_load((TOPOLOGIES / topology).read_text())["all"]["vars"])
        if release:
            settings["site_release"] = release
        (tmp_path / "clusters" / name).mkdir(parents=True)
        (tmp_path / "clusters" / name / "cluster.yml").write_text(yaml.safe_dump(settings))
        (root / f"{name}.nodes.yml").write_text(
            f"plugin: virtinfra.hyperconverged.nodes\nkubeconfig: {kubeconfig}\ncontext: {name}\ncluster: {name}\n")
    listed = run_playbook_tool("ansible-inventory", "-i", str(root), "--list", "--export")
    assert listed.returncode == 0, listed.stderr
    inventory = json.loads(listed.stdout)
    assert sorted(inventory["kubevirt_clusters"]["hosts"]) == sorted(FLEET)
    for name, (topology, _release) in FLEET.items():
        assert sorted(inventory[f"{name}_nodes"]["hosts"]) == sorted(
            node["metadata"]["name"] for node in cluster_nodes(name, topology)), name
        host = inventory["_meta"]["hostvars"][name]
        # ansible-inventory marks strings a plugin set as unsafe in its JSON ({"__ansible_unsafe": ...}).
        assert [unwrapped(host[key]) for key in ("site_kubeconfig", "site_context")] == [str(kubeconfig), name]
    # A check run plans every cluster from its own context and the Nodes its own source listed, and writes nothing.
    marks = {name: plane.audit_offset() for name, plane in planes.items()}
    checked = fleet_run(root, "kubevirt_clusters,localhost", "--check")
    lines = fleet_summary(checked.stdout)
    assert lines[0] == f"fleet: {len(FLEET)} cluster(s): {len(FLEET)} done", lines
    assert "in kubevirt_nodes but no Node of that name" not in checked.stdout
    for name, plane in planes.items():
        assert server_writes(plane, marks[name]) == [], name
