# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Node-prerequisite objects against the real API server: server-side dry run, the role twice, bad input."""

from __future__ import annotations

import copy
import json
import textwrap

from test_hyperconverged_role import recap_changed
from test_k8s_apply import apply, server_writes
from test_render_playbook import run_playbook

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render, with_namespaces

WORKER = {"node-role.kubernetes.io/worker": ""}


def spec(version: str = "4.18", prefix: str = "p") -> dict:
    return {
        "platform": "openshift", "version": version, "hco_namespace": f"{prefix}-cnv",
        "nodes": [{"name": f"w{i}", "memory": "64Gi", "labels": dict(WORKER)} for i in range(3)],
        "swap": {"overcommit_percent": 150, "wasp": {"namespace": f"{prefix}-wasp"}},
        "networking": {"bridges": [{"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100, "max": 200}],
                                    "policy_name": f"{prefix}-br1",
                                    "networks": [{"name": "vlan100-net", "namespace": f"{prefix}-vms", "vlan": 100}]}],
                       "migration_network": {"nic": "eno3", "range": "10.200.5.0/24"}},
        "sriov": {"operator_namespace": f"{prefix}-sriov",
                  "policies": [{"name": "vm-vfs", "resourceName": "vm_sriov", "nodeSelector": dict(WORKER),
                                "numVfs": 8, "nicSelector": {"vendor": "8086", "pfNames": ["ens803f0"]}}],
                  "networks": [{"name": "sriov-vm", "resourceName": "vm_sriov", "networkNamespace": f"{prefix}-vms",
                                "vlan": 10}]},
        "storage": {"provisioner": {"storage_pools": [{"name": "local", "path": "/var/hpvolumes",
                                                       "storage_class": f"{prefix}-hostpath"}]}},
        "olm": {"subscriptions": [{"name": "kubevirt-hyperconverged", "namespace": f"{prefix}-cnv",
                                   "source": "redhat-operators", "source_namespace": "openshift-marketplace"}]},
    }


def test_every_object_passes_a_server_side_dry_run(control_plane):
    objects = with_namespaces(render(spec(prefix="dry"))["objects"])
    # SecurityContextConstraints is an OpenShift API the test server does not serve (schema checked offline).
    objects = [o for o in objects if o["kind"] != "SecurityContextConstraints"]
    namespaces = [o for o in objects if o["kind"] == "Namespace"]
    apply(control_plane, namespaces, apply_set="dry-namespaces")
    mark = control_plane.audit_offset()
    result = apply(control_plane, objects, apply_set="dry", check_mode=True)
    assert server_writes(control_plane, mark) == []
    validated = {(o["kind"], o["name"]): o["validated_by"] for o in result["objects"] if o["action"] == "created"}
    assert len(validated) == len(objects) - len(namespaces)
    assert set(validated.values()) == {"dry-run"}
    kinds = {kind for kind, _msg in validated}
    assert {"MachineConfig", "KubeletConfig", "DaemonSet", "PrometheusRule", "NodeNetworkConfigurationPolicy",
            "NetworkAttachmentDefinition", "SriovNetworkNodePolicy", "SriovNetwork", "HostPathProvisioner",
            "StorageClass", "Subscription", "OperatorGroup", "ClusterRole"} <= kinds


def playbook(tmp_path, control_plane, value: dict):
    path = tmp_path / "prereqs.yml"
    path.write_text(textwrap.dedent(f"""\
        - hosts: localhost
          connection: local
          gather_facts: false
          vars:
            prerequisites_spec: {json.dumps(value)}
            prerequisites_kubeconfig: {control_plane.kubeconfig}
          roles:
            - virtinfra.hyperconverged.prerequisites
        """))
    return path


def test_role_twice_then_bad_input_changes_nothing(tmp_path, control_plane):
    value = spec(version="4.21", prefix="role")   # 4.21: no wasp objects, no KubeletConfig
    book = playbook(tmp_path, control_plane, value)
    first = run_playbook(book)
    assert first.returncode == 0, first.stdout + first.stderr
    mark = control_plane.audit_offset()
    second = run_playbook(book)
    assert second.returncode == 0 and recap_changed(second.stdout) == 0, second.stdout
    assert server_writes(control_plane, mark) == []

    bad = copy.deepcopy(value)
    bad["storage"] = {"provisioners": [{"path_config": {"path": "/a"}}, {"path_config": {"path": "/b"}}]}
    bad["swap"] = {"overcommit_percent": 150, "nodes": [{"name": "w0", "memory": "64Gi", "labels": dict(WORKER),
                                                         "disk_free": "1Gi"}]}
    bad["networking"]["migration_network"]["range"] = "10.0.0.0/8"
    bad["networking"]["node_networks"] = ["10.1.0.0/16"]
    bad["sriov"]["policies"][0]["nicSelector"]["vendor"] = "abcd"
    mark = control_plane.audit_offset()
    failed = run_playbook(playbook(tmp_path, control_plane, bad))
    assert failed.returncode != 0
    for field in ("storage.provisioners", "swap.nodes[0].disk_free", "networking.migration_network.range",
                  "sriov.policies[0].nicSelector.vendor"):
        assert field in failed.stdout, field
    assert server_writes(control_plane, mark) == []


def set_available_reason(control_plane, policy: str, reason: str) -> None:
    status = {"status": {"conditions": [{"type": "Available", "status": "Unknown", "reason": reason,
                                         "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
    control_plane.kubectl_run("patch", "nncp", policy, "--subresource=status", "--type=merge", "-p",
                              json.dumps(status))


def nncp(control_plane, policy: str) -> dict:
    return json.loads(control_plane.kubectl_run("get", "nncp", policy, "-o", "json").stdout)


def test_nmstate_update_rules_on_the_cluster(tmp_path, control_plane):  # NN-15, NN-16 through the role
    bridge = {"name": "brupd", "ports": ["eno7"], "policy_name": "upd-brupd"}
    first = run_playbook(playbook(tmp_path, control_plane, {"networking": {"bridges": [bridge]}}))
    assert first.returncode == 0, first.stdout + first.stderr
    created = nncp(control_plane, "upd-brupd")["metadata"]["uid"]

    # NN-15: while nmstate reports the policy progressing, a change is refused and nothing is written.
    set_available_reason(control_plane, "upd-brupd", "ConfigurationProgressing")
    mark = control_plane.audit_offset()
    refused = run_playbook(playbook(tmp_path, control_plane, {"networking": {"bridges": [dict(bridge, mtu=9000)]}}))
    assert refused.returncode != 0
    assert "networking.bridges[0]" in refused.stdout and "still in progress" in refused.stdout
    assert server_writes(control_plane, mark) == []

    # NN-16: once settled, a changed capture deletes the policy and creates it again (nmstate refuses the update).
    set_available_reason(control_plane, "upd-brupd", "SuccessfullyConfigured")
    recreated = run_playbook(playbook(tmp_path, control_plane, {"networking": {"bridges": [
        dict(bridge, carries_node_ip=True)]}}))
    assert recreated.returncode == 0, recreated.stdout + recreated.stderr
    after = nncp(control_plane, "upd-brupd")
    assert after["metadata"]["uid"] != created
    assert "base-iface" in after["spec"]["capture"]
    set_available_reason(control_plane, "upd-brupd", "SuccessfullyConfigured")
    mark = control_plane.audit_offset()
    again = run_playbook(playbook(tmp_path, control_plane, {"networking": {"bridges": [
        dict(bridge, carries_node_ip=True)]}}))
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert server_writes(control_plane, mark) == []
