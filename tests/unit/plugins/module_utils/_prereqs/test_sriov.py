# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SR-IOV admission rules (vectors SR of node-prereqs-examples.md)."""

from __future__ import annotations

import pytest
from sriov_specs import NODES, STATES, WORKER, errors_of, policy, spec

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import sriov


def test_defaults_for_vms():  # SR-05 style mutations, vfio-pci for VMs
    result = sriov.plan(spec(policy()))
    body = result["objects"][0]["spec"]
    assert (body["priority"], body["deviceType"], body["isRdma"]) == (99, "vfio-pci", False)
    assert result["objects"][0]["metadata"]["namespace"] == "openshift-sriov-network-operator"


def test_ib_link_type_sets_rdma_unless_vfio():  # SR-05, SR-06
    netdevice = sriov.plan(spec(policy(linkType="ib", deviceType="netdevice")))["objects"][0]["spec"]
    vfio = sriov.plan(spec(policy(linkType="ib")))["objects"][0]["spec"]
    assert (netdevice["isRdma"], vfio["isRdma"]) == (True, False)


@pytest.mark.parametrize("changes, expected", [
    ({"numVfs": 65}, ("policies[0].numVfs", "numVfs(65) exceed the maximum allowed value(64) interface(ens803f0)")),
    # SR-01 above; SR-04, SR-19, SR-08 to SR-12 follow in order
    ({"isRdma": True}, ("policies[0].isRdma", "RDMA mode is not supported with deviceType vfio-pci")),
    ({"nicSelector": {}}, ("policies[0].nicSelector", ("at least one of vendor, deviceID, pfNames, rootDevices or "
                                                       "netFilter must be set"))),
    ({"nicSelector": {"pfNames": ["ens803f1#0-8"]}},  # SR-08
     ("policies[0].nicSelector.pfNames[0]", "end range exceeds the maximum VF index (7) in PF name ens803f1#0-8")),
    ({"nicSelector": {"pfNames": ["ens803f1#5-2"]}},  # SR-09
     ("policies[0].nicSelector.pfNames[0]", ("end range shall not be smaller than start range in PF name "
                                             "ens803f1#5-2"))),
    ({"nicSelector": {"pfNames": ["ens803f1#a-3"]}},  # SR-10
     ("policies[0].nicSelector.pfNames[0]", "start range is incorrect in PF name ens803f1#a-3")),
    ({"nicSelector": {"pfNames": ["ens803f1#1#2"]}},  # SR-11
     ("policies[0].nicSelector.pfNames[0]", "incorrect separator character usage in PF name ens803f1#1#2")),
    ({"nicSelector": {"pfNames": ["ens803f1#3"]}},  # SR-12
     ("policies[0].nicSelector.pfNames[0]", "incorrect range character usage in PF name ens803f1#3")),
    ({"priority": 100}, ("policies[0].priority", "must be within 0-99")),                                  # SR-24
    ({"mtu": 0}, ("policies[0].mtu", sriov.MTU_RULE)),                                            # SR-25
    ({"vdpaType": "virtio"}, ("policies[0].vdpaType", "vdpa requires deviceType netdevice and eSwitchMode switchdev")),
    ({"vdpaType": "virtio", "deviceType": "netdevice"},
     ("policies[0].vdpaType", "vdpa requires deviceType netdevice and eSwitchMode switchdev")),           # SR-26
    ({"bridge": {"ovs": {}}, "eSwitchMode": "legacy"},                                                    # SR-27
     ("policies[0].bridge", ("software bridge management requires eSwitchMode switchdev and is incompatible with "
                             "externallyManaged"))),
    ({"nodeSelector": {"missing": "label"}}, ("policies[0].nodeSelector", ("no matched node is selected by the "
                                                                           "nodeSelector"))),                # SR-29
])
def test_static_and_dynamic_rules(changes, expected):
    assert expected in errors_of(spec(policy(**changes)))


def test_valid_vf_range_is_admitted():  # SR-07
    assert sriov.plan(spec(policy(nicSelector={"pfNames": ["ens803f1#0-7"]})))["objects"]


def test_externally_managed_and_exclude_topology_consistency():  # SR-17, SR-18
    old = {"metadata": {"name": "old"}, "spec": policy(nicSelector={"pfNames": ["ens803f1#0-2"]},
                                                       externallyManaged=True)}
    problems = errors_of(spec(policy(nicSelector={"pfNames": ["ens803f1#3-4"]}), existing=[old]))
    assert any(p == "policies[0].externallyManaged" for p, _msg in problems)
    old = {"metadata": {"name": "old"}, "spec": policy(nicSelector={"pfNames": ["ens803f0"]}, excludeTopology=True)}
    problems = errors_of(spec(policy(nicSelector={"pfNames": ["ens803f1"]}), existing=[old]))
    assert any(p == "policies[0].excludeTopology" for p, _msg in problems)


@pytest.mark.parametrize("name, upstream_ok, openshift_ok", [
    ("vm-sriov", True, False),   # SR-22
    ("vm_sriov", True, True),
    ("_", False, False),         # SR-23
    ("a" * 64, False, False),
])
def test_resource_name_syntax_per_flavour(name, upstream_ok, openshift_ok):
    for flavour, ok in (("upstream", upstream_ok), ("openshift", openshift_ok)):
        value = {"flavour": flavour, "policies": [policy(resourceName=name)]}
        if ok:
            assert sriov.plan(value)["objects"]
        else:
            assert any(p == "policies[0].resourceName" for p, _msg in errors_of(value))


@pytest.mark.parametrize("name", ["_", "_vm", "vm_", "a" * 64])
def test_an_openshift_resource_name_the_kubelet_refuses_is_refused_naming_that_failure(name):
    # Deliberate difference: the OpenShift webhook (^[a-zA-Z0-9_]+$, no length) admits these.
    [(where, message)] = errors_of({"flavour": "openshift", "policies": [policy(resourceName=name)]})
    assert where == "policies[0].resourceName"
    assert "admitted by the OpenShift operator" in message and "the kubelet would refuse" in message
    assert f'the ResourceName "openshift.io/{name}" is invalid' in message and "IsExtendedResourceName" in message


def test_an_infiniband_netdevice_policy_is_always_rdma():
    result = sriov.plan(spec(policy(linkType="ib", deviceType="netdevice", isRdma=False,
                                    nicSelector={"vendor": "15b3", "pfNames": ["ens1f0"]})))
    assert result["objects"][0]["spec"]["isRdma"] is True


def test_the_operators_default_policy_is_not_validated():
    result = sriov.plan(spec(policy(name="default", numVfs=0, nicSelector={})))
    assert result["objects"][0]["metadata"]["name"] == "default"
    assert any("policy 'default' is the operator's own" in w for w in result["warnings"])


def test_the_upstream_resource_name_error_does_not_cite_the_openshift_rule():
    problems = errors_of(spec(policy(resourceName="-bad-"), flavour="upstream"))
    assert ("policies[0].resourceName", "resource name '-bad-' is invalid") in problems
    problems = errors_of(spec(policy(resourceName="bad-name")))
    hint = "(the OpenShift operator allows letters, digits and '_' only)"
    assert ("policies[0].resourceName", f"resource name 'bad-name' is invalid {hint}") in problems


def test_policy_outside_the_operator_namespace_is_not_used():  # SR-31
    result = sriov.plan(spec(policy(namespace="default")))
    assert result["objects"][0]["metadata"]["namespace"] == "default"
    assert any("is created in namespace default but not used" in w for w in result["warnings"])


def test_only_the_default_operator_config_is_used():  # SR-32
    assert errors_of(spec(operator_config={"name": "custom", "enableInjector": False})) == [
        ("operator_config.name", "only default SriovOperatorConfig in openshift-sriov-network-operator namespace is used")]
    config = sriov.plan(spec(operator_config={"enableInjector": False, "logLevel": 2}))["objects"][0]
    assert (config["kind"], config["metadata"]) == (
        "SriovOperatorConfig", {"name": "default", "namespace": "openshift-sriov-network-operator"})
    assert {p for p, _m in errors_of(spec(operator_config={"logLevel": 3, "surprise": 1}))} == {
        "operator_config.logLevel", "operator_config.surprise"}


def test_network_namespace_only_from_the_operator_namespace():  # SR-33
    network = {"name": "n", "namespace": "vms", "resourceName": "vm_sriov", "networkNamespace": "vms2"}
    assert errors_of(spec(policy(), networks=[network])) == [
        ("networks[0].networkNamespace",
         "networkNamespace is allowed only for a SriovNetwork in the operator namespace openshift-sriov-network-operator")]
    local = sriov.plan(spec(policy(), networks=[{"name": "n", "namespace": "vms", "resourceName": "vm_sriov"}]))
    assert (local["objects"][1]["metadata"]["namespace"], local["generated_nads"][0]["metadata"]["namespace"]) == \
        ("vms", "vms")


def test_vfio_pci_announces_kernel_arguments_and_reboots():  # SR-35
    nodes = [dict(NODES[0], iommu=False), {"name": "w2", "labels": dict(WORKER), "iommu": True},
             {"name": "w3", "labels": dict(WORKER), "cpu_vendor": "AMD", "iommu": False},
             {"name": "w4", "labels": dict(WORKER)}]   # unknown: no claim (the preflight role checks the node)
    warnings = sriov.plan(dict(spec(policy()), nodes=nodes))["warnings"]
    assert [w for w in warnings if "reboots" in w] == [
        ("policies[0]: node w1 has no IOMMU enabled: the config daemon adds the kernel arguments intel_iommu=on "
         "iommu=pt, then drains and reboots it"),
        ("policies[0]: node w3 has no IOMMU enabled: the config daemon adds the kernel arguments iommu=pt, then drains "
         "and reboots it")]
    netdevice = sriov.plan(dict(spec(policy(deviceType="netdevice")), nodes=nodes))["warnings"]
    assert not [w for w in netdevice if "reboots" in w]


def test_the_iommu_warning_for_200_nodes_is_one_line():
    nodes = [{"name": f"w{index:03d}", "labels": dict(WORKER), "iommu": False} for index in range(200)]
    states = {node["name"]: STATES["w1"] for node in nodes}
    warnings = [w for w in sriov.plan(dict(spec(policy()), nodes=nodes, node_states=states))["warnings"] if "IOMMU" in w]
    assert warnings == [
        ("policies[0]: nodes w000, w001, w002, w003, w004 and 195 more have no IOMMU enabled: the config daemon adds "
         "the kernel arguments intel_iommu=on iommu=pt, then drains and reboots each")]


def test_a_policy_or_network_marked_absent_is_listed_for_deletion_and_not_checked():
    result = sriov.plan(spec(policy(), {"name": "gone", "state": "absent"},
                             networks=[{"name": "old-net", "state": "absent"}]))
    assert [o["metadata"]["name"] for o in result["objects"]] == ["p"]
    assert result["delete"] == [
        {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy",
         "metadata": {"name": "gone", "namespace": "openshift-sriov-network-operator"}},
        {"apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetwork",
         "metadata": {"name": "old-net", "namespace": "openshift-sriov-network-operator"}}]
    assert errors_of(spec(policy(state="gone"))) == [("policies[0].state", "must be present or absent")]
