# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""hostpath-provisioner (vectors HP of node-prereqs-examples.md)."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import storage
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError


def errors_of(spec):
    with pytest.raises(PrerequisiteError) as failure:
        storage.plan(spec)
    return [(e.path, e.message) for e in failure.value.errors]


@pytest.mark.parametrize("provisioner, expected", [
    ({"path_config": {"path": "/var/hpvolumes"}, "storage_pools": [{"name": "a", "path": "/a"}]},
     ("provisioner", "pathConfig and storage pools cannot be both set")),                         # HP-01
    ({}, ("provisioner", "either pathConfig or storage pools must be set")),                      # HP-02
    ({"path_config": {"path": ""}}, ("provisioner.path_config.path", "pathconfig path must be set")),  # HP-03
    ({"storage_pools": [{"name": "local", "path": "/a"}, {"name": "local", "path": "/b"}]},
     ("provisioner.storage_pools[1].name", "storagePool.name local duplicates storage_pools[0]")),  # HP-04
    ({"storage_pools": [{"name": "a", "path": "/var/hpvolumes"}, {"name": "b", "path": "/var/hpvolumes"}]},
     ("provisioner.storage_pools[1].path", "storagePool.path /var/hpvolumes duplicates storage_pools[0]")),  # HP-05
    ({"storage_pools": [{"name": "a" * 51, "path": "/a"}]},
     ("provisioner.storage_pools[0].name", "storagePool.name cannot be longer than 50 bytes")),     # HP-06
    ({"storage_pools": [{"name": "a", "path": "/" + "a" * 255}]},
     ("provisioner.storage_pools[0].path", "storagePool.path cannot be longer than 255 bytes")),    # HP-07
])
def test_webhook_rules(provisioner, expected):
    assert expected in errors_of({"provisioner": provisioner})


def test_two_provisioners_are_refused():  # HP-11
    assert ("provisioners", "there should be a single hostpath provisioner, 2 given") in errors_of(
        {"provisioners": [{"path_config": {"path": "/a"}}, {"path_config": {"path": "/b"}}]})


def test_pool_storage_class_and_placement():  # HP-09, placement from the HyperConverged workloads
    hyperconverged = {"spec": {"workloads": {"nodePlacement": {"nodeSelector": {"node-role.kubernetes.io/worker": ""},
                                                               "tolerations": [{"key": "vm", "operator": "Exists"}]}}}}
    result = storage.plan({"provisioner": {"storage_pools": [{"name": "local", "path": "/var/hpvolumes",
                                                              "storage_class": "hostpath-csi"}]},
                           "hyperconverged": hyperconverged})
    cr, storage_class = result["objects"]
    assert cr["spec"]["storagePools"] == [{"name": "local", "path": "/var/hpvolumes"}]
    assert cr["spec"]["workload"] == hyperconverged["spec"]["workloads"]["nodePlacement"]
    assert storage_class == {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                             "metadata": {"name": "hostpath-csi"}, "provisioner": "kubevirt.io.hostpath-provisioner",
                             "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer",
                             "parameters": {"storagePool": "local"}}
    assert result["directories"] == ["/var/hpvolumes"]


def test_legacy_path_config_class_has_no_pool_parameter_and_immediate_warns():  # HP-10, HP-12
    result = storage.plan({"provisioner": {"path_config": {"path": "/var/hpvolumes"},
                                           "volume_binding_mode": "Immediate"}})
    assert "parameters" not in result["objects"][1]
    assert any("deprecated" in w for w in result["warnings"])


def test_volumes_live_under_the_csi_subdirectory():  # HP-08
    result = storage.plan({"provisioner": {"storage_pools": [{"name": "local", "path": "/var/hpvolumes"}]}})
    assert result["volume_roots"] == [{"pool": "local", "path": "/var/hpvolumes", "volumes": "/var/hpvolumes/csi",
                                       "snapshots": "/var/hpvolumes/csi/snapshots"}]
    legacy = storage.plan({"provisioner": {"path_config": {"path": "/var/hpvolumes/"}}})
    assert legacy["volume_roots"][0]["pool"] == "legacy" and legacy["volume_roots"][0]["volumes"] == \
        "/var/hpvolumes/csi"


def test_pvc_template_pool_gets_one_claim_per_node():  # HP-13
    template = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}},
                "storageClassName": "local-block"}
    nodes = [{"name": f"w{i}", "labels": {"node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": f"w{i}"}}
             for i in range(3)] + [
        {"name": "cp1", "labels": {"node-role.kubernetes.io/control-plane": ""}}]
    result = storage.plan({"nodes": nodes, "provisioner": {"storage_pools": [
        {"name": "pvc", "path": "/var/hpp-pvc", "pvc_template": template},
        {"name": "local", "path": "/var/hpvolumes"}]}})
    assert result["pool_claims"] == [
        {"pool": "pvc", "node": f"w{i}", "name": f"hpp-pool-pvc-w{i}", "storage": "5Gi", "mount": "/var/hpp-pvc"}
        for i in range(3)]
    assert result["directories"] == ["/var/hpvolumes"]  # the PVC is mounted at the pool path; no host directory
    assert result["objects"][0]["spec"]["storagePools"][0]["pvcTemplate"] == template
    placed = storage.plan({"nodes": nodes, "hyperconverged": {"spec": {"workloads": {"nodePlacement": {
        "nodeSelector": {"kubernetes.io/hostname": "w1"}}}}},
        "provisioner": {"storage_pools": [{"name": "pvc", "path": "/p", "pvc_template": template}]}})
    assert [c["node"] for c in placed["pool_claims"]] == ["w1"]


def test_pvc_template_rules():
    problems = errors_of({"provisioner": {"storage_pools": [
        {"name": "a", "path": "/a", "pvc_template": {"storageClassName": "hostpath-csi-a"}}]}})
    assert {p for p, _m in problems} == {"provisioner.storage_pools[0].pvc_template.resources.requests.storage",
                                         "provisioner.storage_pools[0].pvc_template.accessModes",
                                         "provisioner.storage_pools[0].pvc_template.storageClassName"}
    # A deliberate difference: the operator admits it; the message names the later failure, the API server's.
    [modes] = [m for p, m in problems if p.endswith("accessModes")]
    assert "the operator admits the pool" in modes and "at least 1 access mode is required" in modes
    defaulted = storage.plan({"provisioner": {"storage_pools": [{"name": "a", "path": "/a", "pvc_template": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}}}]}})
    assert any("cluster's default StorageClass" in w for w in defaulted["warnings"])


# The operator's FNV-1a (hash/fnv New32a) on three published test vectors, and its shortening rule.
@pytest.mark.parametrize("text, digest", [("", "811c9dc5"), ("a", "e40c292c"), ("foobar", "bf9cf968")])
def test_fnv1a_32_matches_gos_hash_fnv(text, digest):
    assert storage.fnv1a_32(text) == digest


def test_long_per_node_claim_names_are_shortened_with_the_operators_hash():
    template = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}},
                "storageClassName": "local-block"}
    node = "worker-0.compute.example.internal"
    result = storage.plan({"nodes": [{"name": node, "labels": {"node-role.kubernetes.io/worker": ""}}],
                           "provisioner": {"storage_pools": [{"name": "p" * 50, "path": "/p", "pvc_template": template}]}})
    [claim] = result["pool_claims"]
    # The name the operator gave this pool on this node (a held-back upstream case): the base "hpp-pool" and the
    # hash of the whole name; pool and node are both dropped.
    assert claim["name"] == "hpp-pool-a08fbc8d"


def test_per_node_names_within_63_characters_are_kept_whole():
    assert storage.per_node_name("local", "w1") == "hpp-pool-local-w1"
    node = "n" * 53   # hpp-pool-a-<53> is 64 characters
    assert storage.per_node_name("a", node[:52]) == f"hpp-pool-a-{node[:52]}"
    assert storage.per_node_name("a", node) == f"hpp-pool-{storage.fnv1a_32('hpp-pool-a-' + node)}"


def test_the_operators_shortening_rule_cuts_the_base_when_the_suffix_fits():
    assert storage.name_with_max_length("x" * 60, "hpp") == f"{'x' * 50}-{storage.fnv1a_32('x' * 60)}-hpp"
    suffix_too_long = storage.name_with_max_length("hpp-pool-local", "n" * 60)
    assert suffix_too_long == f"hpp-pool-local-{storage.fnv1a_32('hpp-pool-local-' + 'n' * 60)}"


def test_the_names_the_operator_derives_are_returned():
    result = storage.plan({"provisioner": {"storage_pools": [{"name": "local", "path": "/var/hpvolumes/"}]}})
    assert result["names"] == {"daemonset": "hostpath-provisioner-csi", "legacy_daemonset": "hostpath-provisioner",
                               "pools": [{"name": "local", "storage_pool_label": "local-hpp",
                                          "mount": "local-data-dir", "csi_path": "/var/hpvolumes/csi",
                                          "snapshots_path": "/var/hpvolumes/csi/snapshots", "claims": []}]}
    legacy = storage.plan({"provisioner": {"path_config": {"path": "/var/hpp"}}})["names"]["pools"]
    assert [(p["name"], p["mount"], p["csi_path"]) for p in legacy] == [("legacy", "csi-data-dir", "/var/hpp/csi")]


def test_a_relative_pool_path_is_admitted_as_the_operator_does_but_gets_no_host_directory():
    result = storage.plan({"provisioner": {"storage_pools": [{"name": "rel", "path": "var/hpp"},
                                                             {"name": "abs", "path": "/var/hpp"}]}})
    assert result["objects"][0]["spec"]["storagePools"][0]["path"] == "var/hpp"
    assert result["directories"] == ["/var/hpp"]
    assert any("'var/hpp' is relative" in w for w in result["warnings"])


def test_an_absent_provisioner_lists_its_cr_and_classes_for_deletion():
    result = storage.plan({"provisioner": {"state": "absent", "storage_pools": [
        {"name": "local", "path": "/var/hpvolumes", "storage_class": "hostpath-csi"}]}})
    assert result["objects"] == [] and result["directories"] == []
    assert result["delete"] == [
        {"apiVersion": "hostpathprovisioner.kubevirt.io/v1beta1", "kind": "HostPathProvisioner",
         "metadata": {"name": "hostpath-provisioner"}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "hostpath-csi"}}]
    assert any("host directories (/var/hpvolumes) and the volumes in them are kept" in w for w in result["warnings"])
