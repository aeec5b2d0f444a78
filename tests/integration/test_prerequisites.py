# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Node-prerequisite objects against the real API server: server-side dry run, the role twice, bad input."""

from __future__ import annotations

import copy
import json
import pathlib
import textwrap

import pytest
from test_hyperconverged_role import recap_changed
from test_k8s_apply import apply, server_writes
from test_render_playbook import run_playbook

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render, with_namespaces

WORKER = {"node-role.kubernetes.io/worker": ""}


@pytest.fixture(scope="module")
def control_plane(empty_control_plane):
    """A server of this file's own: the role's apply set here has its parent in default, the site's in the
    HyperConverged's namespace. The cluster-scoped objects both write would be another apply set's members on a
    shared server, and k8s_apply refuses to take those over silently."""
    return empty_control_plane


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


def playbook(tmp_path, control_plane, value: dict, state: str = "present"):
    path = tmp_path / "prereqs.yml"
    path.write_text(textwrap.dedent(f"""\
        - hosts: localhost
          connection: local
          gather_facts: false
          vars:
            prerequisites_spec: {json.dumps(value)}
            prerequisites_kubeconfig: {control_plane.kubeconfig}
            prerequisites_state: {state}
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

    # NN-16: once settled, a changed capture is refused as nmstate's webhook refuses it, and nothing is written...
    set_available_reason(control_plane, "upd-brupd", "SuccessfullyConfigured")
    mark = control_plane.audit_offset()
    capture = run_playbook(playbook(tmp_path, control_plane, {"networking": {"bridges": [
        dict(bridge, carries_node_ip=True)]}}))
    assert capture.returncode != 0 and "which nmstate's webhook refuses on update" in capture.stdout
    assert server_writes(control_plane, mark) == []
    # ...unless asked to delete the policy and create it again.
    recapture = {"networking": {"recreate_changed_capture": True, "bridges": [dict(bridge, carries_node_ip=True)]}}
    recreated = run_playbook(playbook(tmp_path, control_plane, recapture))
    assert recreated.returncode == 0, recreated.stdout + recreated.stderr
    after = nncp(control_plane, "upd-brupd")
    assert after["metadata"]["uid"] != created
    assert "base-iface" in after["spec"]["capture"]
    set_available_reason(control_plane, "upd-brupd", "SuccessfullyConfigured")
    mark = control_plane.audit_offset()
    again = run_playbook(playbook(tmp_path, control_plane, recapture))
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert server_writes(control_plane, mark) == []


def exists(control_plane, kind: str, name: str, namespace: str | None = None) -> bool:
    where = ["-n", namespace] if namespace else []
    found = control_plane.kubectl_run("get", kind, name, *where, "--ignore-not-found", "-o", "name").stdout
    return bool(found.strip())


def test_create_rerun_with_live_sriov_policies_then_absent_removes_only_what_it_created(tmp_path, control_plane):
    bridge_nad = {"cniVersion": "0.3.1", "name": "ext", "type": "bridge", "bridge": "br-ext", "vlan": 20,
                  "ipam": {"type": "whereabouts", "range": "10.30.0.0/24", "exclude": ["10.30.0.0/28"]}}
    value = {
        "platform": "openshift", "nodes": [{"name": f"w{i}", "labels": dict(WORKER)} for i in range(3)],
        "sriov": {"operator_namespace": "abs-sriov",
                  "policies": [{"name": "vm-vfs", "resourceName": "vm_sriov", "nodeSelector": dict(WORKER),
                                "numVfs": 8, "nicSelector": {"vendor": "8086", "pfNames": ["ens803f0#0-7"]}}],
                  "networks": [{"name": "sriov-vm", "resourceName": "vm_sriov", "networkNamespace": "abs-vms"}]},
        "storage": {"provisioner": {"storage_pools": [{"name": "local", "path": "/var/hpvolumes",
                                                       "storage_class": "abs-hostpath"}]}},
        "networking": {"nads": [{"name": "ext", "namespace": "abs-vms", "config": bridge_nad,
                                 "resource_name": "bridge.network.kubevirt.io/br-ext"},
                                {"name": "legacy-net", "namespace": "abs-vms", "state": "absent"}]},
    }
    # What a person made beforehand: a policy on another PF, and a NAD the spec names as absent.
    control_plane.kubectl_run("create", "namespace", "abs-sriov")
    control_plane.kubectl_run("create", "namespace", "abs-vms")
    person_policy = {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy",
                     "metadata": {"name": "person-vfs", "namespace": "abs-sriov"},
                     "spec": {"resourceName": "person", "nodeSelector": dict(WORKER), "numVfs": 4,
                              "nicSelector": {"pfNames": ["ens803f1"]}}}
    person_nad = {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
                  "metadata": {"name": "legacy-net", "namespace": "abs-vms"},
                  "spec": {"config": json.dumps({"cniVersion": "0.3.1", "type": "macvlan", "master": "eno9"})}}
    for obj in (person_policy, person_nad):
        control_plane.kubectl_run("create", "-f", "-", input=json.dumps(obj))

    created = run_playbook(playbook(tmp_path, control_plane, value))
    assert created.returncode == 0, created.stdout + created.stderr
    assert "NetworkAttachmentDefinition abs-vms/legacy-net was not created by apply set" in created.stderr
    ours = [("sriovnetworknodepolicy", "vm-vfs", "abs-sriov"), ("sriovnetwork", "sriov-vm", "abs-sriov"),
            ("hostpathprovisioner", "hostpath-provisioner", None), ("storageclass", "abs-hostpath", None),
            ("network-attachment-definitions.k8s.cni.cncf.io", "ext", "abs-vms")]
    theirs = [("sriovnetworknodepolicy", "person-vfs", "abs-sriov"),
              ("network-attachment-definitions.k8s.cni.cncf.io", "legacy-net", "abs-vms")]
    assert all(exists(control_plane, *ref) for ref in ours + theirs)

    # The role reads the live policies (ours and the person's) and passes them on: no overlap, no write.
    mark = control_plane.audit_offset()
    rerun = run_playbook(playbook(tmp_path, control_plane, value))
    assert rerun.returncode == 0 and recap_changed(rerun.stdout) == 0, rerun.stdout
    assert server_writes(control_plane, mark) == []
    reads = {(e.get("objectRef") or {}).get("resource") for e in control_plane.audit_events(mark, "admin")}
    assert "sriovnetworknodepolicies" in reads

    removed = run_playbook(playbook(tmp_path, control_plane, value, state="absent"))
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert [ref for ref in ours if exists(control_plane, *ref)] == []
    assert all(exists(control_plane, *ref) for ref in theirs)
    assert exists(control_plane, "namespace", "abs-vms") and exists(control_plane, "namespace", "abs-sriov")
    mark = control_plane.audit_offset()
    gone = run_playbook(playbook(tmp_path, control_plane, value, state="absent"))
    assert gone.returncode == 0 and recap_changed(gone.stdout) == 0, gone.stdout
    assert server_writes(control_plane, mark) == []


def test_absent_refuses_a_bridge_still_configured_on_the_nodes(tmp_path, control_plane):
    value = {"networking": {"bridges": [{"name": "brabs", "ports": ["eno8"], "policy_name": "abs-brabs"}]}}
    mark = control_plane.audit_offset()
    refused = run_playbook(playbook(tmp_path, control_plane, value, state="absent"))
    assert refused.returncode != 0
    assert "policy abs-brabs still configures brabs" in refused.stdout
    assert server_writes(control_plane, mark) == []


def converge_playbook(tmp_path, control_plane, value: dict, cluster_info: dict | None) -> pathlib.Path:
    """The role's converge entry point, as a caller that read the cluster itself calls it."""
    path = tmp_path / "converge.yml"
    passed = f"prerequisites_cluster_info: {json.dumps(cluster_info)}" if cluster_info is not None else ""
    path.write_text(textwrap.dedent(f"""\
        - hosts: localhost
          connection: local
          gather_facts: false
          tasks:
            - ansible.builtin.include_role:
                name: virtinfra.hyperconverged.prerequisites
                tasks_from: converge
              vars:
                prerequisites_spec: {json.dumps(value)}
                prerequisites_kubeconfig: {control_plane.kubeconfig}
                {passed}
        """))
    return path


def test_converge_needs_the_read_only_where_it_uses_it_and_names_the_option(tmp_path, control_plane):
    nad = {"cniVersion": "0.3.1", "name": "cv", "type": "bridge", "bridge": "br-cv"}
    value = {"networking": {"nads": [{"name": "cv", "namespace": "cv-vms", "config": nad}]},
             "sriov": {"operator_namespace": "cv-sriov",
                       "policies": [{"name": "cv-vfs", "resourceName": "cv_sriov", "nodeSelector": dict(WORKER),
                                     "numVfs": 2, "nicSelector": {"pfNames": ["ens9f0"]}}]}}
    mark = control_plane.audit_offset()
    # No prerequisites_cluster_info at all: the option is named, not the role's internal variable.
    unread = run_playbook(converge_playbook(tmp_path, control_plane, value, None))
    assert unread.returncode != 0
    assert ("cluster_info: the spec has networking and sriov, so it is computed against the cluster's live "
            "NodeNetworkConfigurationPolicy, SriovNetworkNodePolicy, SriovNetworkNodeState objects, and no read of them "
            "was given (prerequisites_cluster_info in the prerequisites role") in unread.stdout, unread.stdout
    assert "prerequisites_cluster' is undefined" not in unread.stdout
    # A read that lists the policies but not the node states: refused, not taken for a cluster without any.
    partial: dict[str, dict[str, list[dict]]] = {
        "objects": {"nmstate.io/v1/NodeNetworkConfigurationPolicy": [],
                    "sriovnetwork.openshift.io/v1/SriovNetworkNodePolicy": []}}
    short = run_playbook(converge_playbook(tmp_path, control_plane, value, partial))
    assert short.returncode != 0
    assert ("lack sriovnetwork.openshift.io/v1/SriovNetworkNodeState (the spec has sriov; prerequisites_cluster_info "
            "in the prerequisites role)") in short.stdout, short.stdout
    assert server_writes(control_plane, mark) == []
    # Without live reads it needs no read (older ansible-core evaluates every task var: none may insist on one).
    unneeded = run_playbook(converge_playbook(tmp_path, control_plane, value, None),
                            "-e", '{"prerequisites_read_live_policies": false}')
    assert unneeded.returncode == 0, unneeded.stdout + unneeded.stderr
    assert exists(control_plane, "sriovnetworknodepolicy", "cv-vfs", "cv-sriov")
    assert exists(control_plane, "network-attachment-definitions.k8s.cni.cncf.io", "cv", "cv-vms")
    # The read the filter names is enough: the live policies (ours) go in, and nothing changes.
    whole = {"objects": {**partial["objects"], "sriovnetwork.openshift.io/v1/SriovNetworkNodeState": []}}
    whole["objects"]["sriovnetwork.openshift.io/v1/SriovNetworkNodePolicy"] = [json.loads(control_plane.kubectl_run(
        "get", "sriovnetworknodepolicy", "cv-vfs", "-n", "cv-sriov", "-o", "json").stdout)]
    mark = control_plane.audit_offset()
    again = run_playbook(converge_playbook(tmp_path, control_plane, value, whole))
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout + again.stderr
    assert server_writes(control_plane, mark) == []
    removed = run_playbook(converge_playbook(tmp_path, control_plane, value, whole), "-e", "prerequisites_state=absent")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not exists(control_plane, "sriovnetworknodepolicy", "cv-vfs", "cv-sriov")
    assert not exists(control_plane, "network-attachment-definitions.k8s.cni.cncf.io", "cv", "cv-vms")
