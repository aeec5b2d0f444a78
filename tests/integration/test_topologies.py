# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The topologies people run (examples/topologies): each rendered by the site and checked, rerun changed=0; the
compact 3-node OpenShift cluster also converged against the real API server."""

from __future__ import annotations

import pathlib
import re
import sys

import pytest
import yaml
from test_hyperconverged_role import recap_changed
from test_k8s_apply import server_writes
from test_render_playbook import ROOT, run_playbook

TOPOLOGIES = ROOT / "examples" / "topologies"


def render(inventory: str, out: pathlib.Path):
    return run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(TOPOLOGIES / inventory),
                        "-e", f"site_render_dir={out}")


def objects_in(out: pathlib.Path) -> dict[tuple[str, str], dict]:
    found = {}
    for path in out.glob("*.yaml"):
        if path.name == "kustomization.yaml":   # the tree's index for kubectl kustomize (test_gitops_tree.py)
            continue
        obj = yaml.safe_load(path.read_text())
        found[(obj["kind"], obj["metadata"]["name"])] = obj
    return found


def swap_nodes(stdout: str) -> list[str]:
    line = next(line for line in stdout.splitlines() if '"swap plan:' in line)
    return re.findall(r"([\w-]+): \d+ MiB", line.split(";", 1)[1])


def test_compact_openshift_runs_vms_on_its_masters(tmp_path):
    result = render("compact-openshift.yml", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    objects = objects_in(tmp_path)
    machine_config = objects[("MachineConfig", "90-master-swap")]
    assert machine_config["metadata"]["labels"]["machineconfiguration.openshift.io/role"] == "master"
    assert ("MachineConfig", "90-worker-swap") not in objects  # the worker pool is empty in a compact cluster
    assert objects[("KubeletConfig", "master-swap")]["spec"]["machineConfigPoolSelector"]["matchLabels"] == {
        "pools.operator.machineconfiguration.openshift.io/master": ""}
    assert swap_nodes(result.stdout) == ["master0", "master1", "master2"]
    policy = objects[("SriovNetworkNodePolicy", "vm-vfs")]
    assert policy["spec"]["nodeSelector"] == {"node-role.kubernetes.io/worker": ""}
    assert ("NodeNetworkConfigurationPolicy", "br1-policy") in objects
    assert ("HostPathProvisioner", "hostpath-provisioner") in objects
    hyperconverged = objects[("HyperConverged", "kubevirt-hyperconverged")]
    assert hyperconverged["spec"]["higherWorkloadDensity"]["memoryOvercommitPercentage"] == 150
    # Reboots of control-plane nodes are said, not refused; by swap and by SR-IOV.
    assert "swap: control-plane node(s) master0, master1, master2 run VMs" in result.stdout
    assert "sriov: control-plane node(s) master0, master1, master2 run VMs" in result.stdout
    again = render("compact-openshift.yml", tmp_path)
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout


def test_single_node_openshift(tmp_path):
    result = render("single-node-openshift.yml", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    objects = objects_in(tmp_path)
    assert ("MachineConfig", "90-master-swap") in objects and swap_nodes(result.stdout) == ["sno"]
    assert "sno run VMs" in result.stdout


def test_two_control_planes_and_an_arbiter(tmp_path):
    result = render("two-node-arbiter.yml", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert swap_nodes(result.stdout) == ["master0", "master1"]  # not the tainted arbiter
    assert "arbiter0" not in result.stdout.split('"warnings:')[1].split("\n")[0]


def test_dedicated_pools_keep_vms_on_their_pool(tmp_path):
    result = render("dedicated-pools.yml", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert swap_nodes(result.stdout) == ["vm1", "vm2", "vm3"]
    objects = objects_in(tmp_path)
    kubevirt = objects[("KubeVirt", "kubevirt-kubevirt-hyperconverged")]
    assert kubevirt["spec"]["workloads"]["nodePlacement"]["nodeSelector"] == {"kubevirt.io/vm-pool": "true"}
    assert kubevirt["spec"]["infra"]["nodePlacement"]["nodeSelector"] == {"node-role.kubernetes.io/infra": ""}
    bridge = objects[("NodeNetworkConfigurationPolicy", "br1-policy")]
    assert bridge["spec"]["nodeSelector"] == {"kubevirt.io/vm-pool": "true"}
    assert "run VMs" not in result.stdout  # the tainted control plane is not selected


def test_kkp_custom_role_labels(tmp_path):
    result = render("kkp.yml", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert swap_nodes(result.stdout) == ["kv-a", "kv-b"]
    kubevirt = objects_in(tmp_path)[("KubeVirt", "kubevirt-kubevirt-hyperconverged")]
    assert kubevirt["spec"]["workloads"]["nodePlacement"]["nodeSelector"] == {"kkp.k8c.io/role": "kubevirt"}


@pytest.mark.parametrize("taint_key", ["node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"])
def test_a_tainted_control_plane_selected_for_vms_is_refused_and_nothing_written(tmp_path, taint_key):
    inventory = yaml.safe_load((TOPOLOGIES / "compact-openshift.yml").read_text())
    inventory["all"]["children"]["kubevirt_nodes"]["vars"]["node_taints"] = [{"key": taint_key,
                                                                              "effect": "NoSchedule"}]
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump(inventory))
    out = tmp_path / "out"
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(path), "-e", f"site_render_dir={out}")
    assert result.returncode != 0
    assert f"master0, which is tainted {taint_key}:NoSchedule: VMs do not run there" in result.stdout
    assert not out.exists()


def test_compact_openshift_converges_against_the_api_server(empty_control_plane):
    plane = empty_control_plane

    def site(*extra: str):
        return run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(TOPOLOGIES / "compact-openshift.yml"),
                            "-i", "localhost,", "--limit", "localhost",
                            "-e", f"ansible_python_interpreter={sys.executable}",
                            "-e", f"site_kubeconfig={plane.kubeconfig}", *extra)

    first = site()
    assert first.returncode == 0, first.stdout + first.stderr
    assert "apply mode (hco): " in first.stdout and "0 prerequisite and 0" not in first.stdout
    live = plane.kubectl_run("get", "machineconfig", "90-master-swap", "-o", "yaml").stdout
    assert "machineconfiguration.openshift.io/role: master" in live
    mark = plane.audit_offset()
    again = site()
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert server_writes(plane, mark) == []
    # The summary names the operands HCO builds; with no HCO here to build them, none was changed outside HCO.
    assert re.search(r"operands \(built by HCO\): .*KubeVirt kubevirt-kubevirt-hyperconverged", again.stdout)
    assert "operands changed outside HCO, read before any write (HCO reverts them): 0" in again.stdout, again.stdout[-3000:]


def test_a_missing_operator_is_named_before_anything_is_written(control_plane):
    """Standalone mode on OpenShift writes SecurityContextConstraints (and the MachineConfig kinds are there): the
    test server does not serve SCCs, as a cluster without that operator would not. Nothing may be written."""
    mark = control_plane.audit_offset()
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(TOPOLOGIES / "compact-openshift.yml"),
                          "-i", "localhost,", "--limit", "localhost",
                          "-e", f"ansible_python_interpreter={sys.executable}",
                          "-e", f"site_kubeconfig={control_plane.kubeconfig}", "-e", "site_mode=standalone")
    assert result.returncode != 0
    assert "nothing was written: the cluster does not serve every kind this run (standalone mode) writes" in result.stdout
    assert "SecurityContextConstraints (security.openshift.io/v1): install OpenShift (SecurityContextConstraints)" \
        in result.stdout
    assert server_writes(control_plane, mark) == []


def test_openshift_vm_workers_get_swap_through_a_custom_pool(tmp_path):
    result = render("openshift-vm-pool.yml", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    objects = objects_in(tmp_path)
    pool = objects[("MachineConfigPool", "worker-vm")]
    assert pool["spec"]["nodeSelector"] == {"matchLabels": {"node-role.kubernetes.io/worker-vm": ""}}
    machine_config = objects[("MachineConfig", "90-worker-vm-swap")]
    assert machine_config["metadata"]["labels"] == {"machineconfiguration.openshift.io/role": "worker-vm"}
    selector = objects[("KubeletConfig", "worker-vm-swap")]["spec"]["machineConfigPoolSelector"]["matchLabels"]
    assert selector.items() <= pool["metadata"]["labels"].items()
    assert ("MachineConfig", "90-worker-swap") not in objects  # infra1 and infra2 get no swap
    assert swap_nodes(result.stdout) == ["vm1", "vm2"]
    assert "get swap too" not in result.stdout


def test_a_custom_pool_on_a_cluster_without_the_machine_config_operator_writes_nothing(control_plane):
    """The test API server serves MachineConfig and KubeletConfig but not MachineConfigPool, as a cluster without
    the Machine Config Operator would not: the run names what is missing and writes nothing."""
    mark = control_plane.audit_offset()
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(TOPOLOGIES / "openshift-vm-pool.yml"),
                          "-i", "localhost,", "--limit", "localhost",
                          "-e", f"ansible_python_interpreter={sys.executable}",
                          "-e", f"site_kubeconfig={control_plane.kubeconfig}")
    assert result.returncode != 0
    assert "MachineConfigPool (machineconfiguration.openshift.io/v1)" in result.stdout
    assert server_writes(control_plane, mark) == []


def test_a_node_provider_in_the_inventory_reaches_the_sriov_checks(tmp_path):
    # Nodes that are OpenStack VMs: their NICs are VFs the cloud attached; a pfNames policy is warned about.
    inventory = yaml.safe_load((TOPOLOGIES / "compact-openshift.yml").read_text())
    inventory["all"]["children"]["kubevirt_nodes"]["vars"]["node_provider"] = "openstack:///a1b2"
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump(inventory))
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(path), "-e", f"site_render_dir={tmp_path / 'out'}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "are virtual machines (provider): their NICs are VFs the cloud attached" in result.stdout + result.stderr
    plain = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(TOPOLOGIES / "compact-openshift.yml"),
                         "-e", f"site_render_dir={tmp_path / 'plain'}")
    assert "virtual machines (provider)" not in plain.stdout + plain.stderr
