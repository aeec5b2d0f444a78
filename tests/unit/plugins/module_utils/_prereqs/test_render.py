# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The combined spec: all sections' problems together, and every object valid against its CRD in ../shared/crds."""

from __future__ import annotations

import copy
import typing as t

import pytest
import schema_check
import vectors

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render

WORKER = {"node-role.kubernetes.io/worker": ""}
FULL = {
    "platform": "openshift", "version": "4.18", "hco_namespace": "openshift-cnv",
    "nodes": [{"name": f"w{i}", "memory": "64Gi", "labels": dict(WORKER)} for i in range(3)],
    "swap": {"overcommit_percent": 150},
    "networking": {"bridges": [{"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100, "max": 200}],
                                "networks": [{"name": "vlan100-net", "namespace": "vms", "vlan": 100}]},
                               {"name": "brext", "ports": ["eno1"], "carries_node_ip": True},
                               {"name": "br2", "ports": ["bond0"], "vlans": [300, 301], "max_unavailable": 1,
                                "stp": {"hello_time": 2, "forward_delay": 15, "max_age": 20},
                                "networks": [{"name": "trunk-net", "namespace": "vms", "vlan": 300,
                                              "vlan_trunk": [{"id": 301}]}]}],
                   "bridge_cni_version": "1.8.0", "dns_probe_host": "dns.example.lan",
                   "policies": [{"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
                                 "metadata": {"name": "bond0-policy"},
                                 "spec": {"nodeSelector": dict(WORKER), "maxUnavailable": "25%", "desiredState": {
                                     "interfaces": [{"name": "bond0", "type": "bond", "state": "up",
                                                     "ipv4": {"enabled": False},
                                                     "link-aggregation": {"mode": "802.3ad",
                                                                          "port": ["eno5", "eno6"]}}]}}}],
                   "migration_network": {"nic": "eno3", "range": "10.200.5.0/24"}},
    "sriov": {"policies": [{"name": "vm-vfs", "resourceName": "vm_sriov", "nodeSelector": dict(WORKER),
                            "numVfs": 8, "nicSelector": {"vendor": "8086", "pfNames": ["ens803f0"]}}],
              "networks": [{"name": "sriov-vm", "resourceName": "vm_sriov", "networkNamespace": "vms", "vlan": 10}]},
    "storage": {"provisioner": {"storage_pools": [
        {"name": "local", "path": "/var/hpvolumes"},
        {"name": "pvc", "path": "/var/hpvolumes-pvc", "pvc_template": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "5Gi"}}}}]}},
    "olm": {"subscriptions": [{"name": "kubevirt-hyperconverged", "namespace": "openshift-cnv",
                               "source": "redhat-operators", "source_namespace": "openshift-marketplace"}]},
}


def test_every_object_validates_against_its_crd():
    result = render(FULL)
    checked = 0
    for obj in result["objects"]:
        errors = schema_check.check_object(obj, str(vectors.CRD_DIR))
        if errors is not None:
            checked += 1
            assert errors == [], (obj["kind"], errors)
    kinds = {o["kind"] for o in result["objects"]}
    assert {"MachineConfig", "KubeletConfig", "NodeNetworkConfigurationPolicy", "NetworkAttachmentDefinition",
            "SriovNetworkNodePolicy", "SriovNetwork", "HostPathProvisioner", "Subscription", "OperatorGroup",
            "PrometheusRule", "NMState"} <= kinds
    assert checked >= 10
    assert result["hyperconverged"] == {"spec": {"higherWorkloadDensity": {"memoryOvercommitPercentage": 150},
                                                 "liveMigrationConfig": {"network": "migration-net"}}}


def test_problems_of_every_section_are_reported_together():
    bad: dict[str, t.Any] = dict(FULL)
    bad["swap"] = {"overcommit_percent": 150, "mechanism": "wasp-agent", "swap_behavior": "LimitedSwap"}
    bad["platform"] = "kubernetes"
    bad["version"] = "1.31"
    bad["networking"] = {"migration_network": {"nic": "eno3", "range": "10.200.5.0/24"},
                         "node_networks": ["10.200.0.0/16"]}
    bad["storage"] = {"provisioners": [{"path_config": {"path": "/a"}}, {"path_config": {"path": "/b"}}]}
    bad["sriov"] = {"policies": [{"name": "p", "resourceName": "r", "nodeSelector": dict(WORKER), "numVfs": 1,
                                  "nicSelector": {"vendor": "abcd"}}]}
    bad["surprise"] = 1
    with pytest.raises(PrerequisiteError) as failure:
        render(bad)
    assert {e.path for e in failure.value.errors} == {
        "surprise", "swap.swap_behavior", "networking.migration_network.range", "storage.provisioners",
        "sriov.policies[0].nicSelector.vendor"}


def _with(change: t.Callable[[dict[str, t.Any]], None]) -> dict[str, t.Any]:
    spec = copy.deepcopy(FULL)
    change(spec)
    return spec


def _rename(container: dict[str, t.Any], old: str, new: str) -> None:
    container[new] = container.pop(old)


@pytest.mark.parametrize(("change", "where", "suggestion"), [
    (lambda s: _rename(s, "sriov", "sriovv"), "sriovv", "did you mean sriov?"),
    (lambda s: _rename(s["sriov"], "policies", "polices"), "sriov.polices", "did you mean policies?"),
    (lambda s: _rename(s["sriov"]["policies"][0], "numVfs", "numVFs"), "sriov.policies[0].numVFs",
     "did you mean numVfs?"),
    (lambda s: _rename(s["sriov"]["policies"][0]["nicSelector"], "pfNames", "pfName"),
     "sriov.policies[0].nicSelector.pfName", "did you mean pfNames?"),
    (lambda s: _rename(s["sriov"]["networks"][0], "networkNamespace", "networkNamepsace"),
     "sriov.networks[0].networkNamepsace", "did you mean networkNamespace?"),
    (lambda s: _rename(s["networking"]["bridges"][0], "vlans", "vlan"), "networking.bridges[0].vlan",
     "did you mean vlans?"),
    (lambda s: _rename(s["networking"], "migration_network", "migration_netwrok"),
     "networking.migration_netwrok", "did you mean migration_network?"),
    (lambda s: _rename(s["networking"]["migration_network"], "range", "ranges"),
     "networking.migration_network.ranges", "did you mean range?"),
    (lambda s: _rename(s["swap"], "overcommit_percent", "overcommit_percentage"), "swap.overcommit_percentage",
     "did you mean overcommit_percent?"),
    (lambda s: s["swap"].update(wasp={"imag": "x"}), "swap.wasp.imag", "did you mean image?"),
    (lambda s: _rename(s["storage"], "provisioner", "provisoner"), "storage.provisoner",
     "did you mean provisioner?"),
    (lambda s: _rename(s["storage"]["provisioner"], "storage_pools", "storagePools"),
     "storage.provisioner.storagePools", "did you mean storage_pools?"),
    (lambda s: _rename(s["storage"]["provisioner"]["storage_pools"][0], "path", "pth"),
     "storage.provisioner.storage_pools[0].pth", "did you mean path?"),
    (lambda s: _rename(s["olm"]["subscriptions"][0], "source_namespace", "sourceNamespace"),
     "olm.subscriptions[0].sourceNamespace", "did you mean source_namespace?"),
])
def test_a_misspelt_key_at_any_depth_is_one_error_with_a_suggestion(change, where, suggestion):
    with pytest.raises(PrerequisiteError) as failure:
        render(_with(change))
    assert [(e.path, e.message) for e in failure.value.errors] == [(where, f"unknown key; {suggestion}")]


def test_warnings_come_back_with_the_errors():
    bad = _with(lambda s: s["sriov"]["policies"].append(
        {"name": "elsewhere", "namespace": "default", "resourceName": "other_sriov", "nodeSelector": dict(WORKER),
         "numVfs": 4, "nicSelector": {"vendor": "8086", "pfNames": ["ens803f1"]}}))
    bad["swap"] = {"overcommit_percent": 5}
    with pytest.raises(PrerequisiteError) as failure:
        render(bad)
    assert [e.path for e in failure.value.errors] == ["swap.overcommit_percent"]
    assert any("policy elsewhere is created in namespace default but not used" in w for w in failure.value.warnings)


def test_absent_turns_every_object_into_a_reference_to_delete_after_the_same_checks():
    value: dict[str, t.Any] = {key: copy.deepcopy(FULL[key])
                               for key in ("platform", "version", "nodes", "sriov", "storage") if key in FULL}
    present = render(value)
    absent = render(value, "absent")
    assert absent["objects"] == [] and absent["delete_first"] == []
    assert [(o["kind"], o["metadata"].get("name")) for o in absent["delete"]] == \
        [(o["kind"], o["metadata"].get("name")) for o in present["objects"]]
    assert all(set(o["metadata"]) <= {"name", "namespace"} for o in absent["delete"])
    assert any("only what this collection's apply set created is deleted" in w for w in absent["warnings"])


def test_absent_refuses_a_policy_that_still_configures_a_bridge():
    value = {"networking": {"bridges": [{"name": "br1", "ports": ["eno2"]}]}}
    with pytest.raises(PrerequisiteError) as failure:
        render(value, "absent")
    assert [(e.path, e.message.split(":")[0]) for e in failure.value.errors] == [
        ("networking", "policy br1-policy still configures br1")]
    removed = {"networking": {"bridges": [{"name": "br1", "ports": ["eno2"], "state": "absent"}]}}
    assert [o["kind"] for o in render(removed, "absent")["delete"]] == ["NodeNetworkConfigurationPolicy"]
