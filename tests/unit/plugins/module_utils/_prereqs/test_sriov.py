# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SR-IOV admission rules (vectors SR of node-prereqs-examples.md)."""

from __future__ import annotations

import json

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import sriov
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError

WORKER = {"node-role.kubernetes.io/worker": ""}
NODES = [{"name": "w1", "labels": dict(WORKER)},
         {"name": "cp1", "labels": {"node-role.kubernetes.io/master": ""}}]
STATES = {"w1": [
    {"name": "ens803f0", "vendor": "8086", "deviceID": "158b", "pciAddress": "0000:86:00.0", "totalvfs": 64},
    {"name": "ens803f1", "vendor": "8086", "deviceID": "158b", "pciAddress": "0000:86:00.1", "totalvfs": 64},
    {"name": "ens1f0", "vendor": "15b3", "deviceID": "1017", "pciAddress": "0000:3b:00.0", "totalvfs": 16},
]}


def policy(name="p", **spec):
    body = {"name": name, "resourceName": "vm_sriov", "nodeSelector": dict(WORKER), "numVfs": 8,
            "nicSelector": {"pfNames": ["ens803f0"]}}
    body.update(spec)
    return body


def spec(*policies, flavour="openshift", existing=(), **extra):
    return {"flavour": flavour, "nodes": NODES, "node_states": STATES, "policies": list(policies),
            "existing_policies": list(existing), **extra}


def errors_of(value):
    with pytest.raises(PrerequisiteError) as failure:
        sriov.plan(value)
    return [(e.path, e.message) for e in failure.value.errors]


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


def test_mellanox_bounds():  # SR-02, SR-03
    mellanox = {"nicSelector": {"pfNames": ["ens1f0"]}}
    assert sriov.plan(spec(policy(numVfs=100, **mellanox)))["objects"]
    assert ("policies[0].numVfs", "numVfs(129) exceed the maximum allowed value(128) for Mellanox interface(ens1f0)") \
        in errors_of(spec(policy(numVfs=129, **mellanox)))


def test_netfilter_excludes_other_selectors():  # SR-28
    problems = errors_of(spec(policy(nicSelector={"pfNames": ["ens803f0"], "netFilter": "openstack/NetworkID:x"})))
    assert any(p == "policies[0].nicSelector" and m.startswith("netFilter cannot be combined") for p, m in problems)


@pytest.mark.parametrize("existing, new, refused", [
    ({"pfNames": ["ens803f1#0-2"]}, {"pfNames": ["ens803f1#2-2"]}, True),     # SR-13
    ({"pfNames": ["ens803f1#0-2"]}, {"pfNames": ["ens803f1#3-4"]}, False),    # SR-14
    ({"pfNames": ["ens803f1"]}, {"pfNames": ["ens803f1"]}, True),             # SR-15
    ({"rootDevices": ["0000:86:00.1"]}, {"rootDevices": ["0000:86:00.1"]}, True),  # SR-16
])
def test_overlaps_with_existing_policies(existing, new, refused):
    old = {"metadata": {"name": "old"}, "spec": policy(nicSelector=existing)}
    value = spec(policy(nicSelector=new), existing=[old])
    if refused:
        assert errors_of(value)
    else:
        assert sriov.plan(value)["objects"]


def test_externally_managed_and_exclude_topology_consistency():  # SR-17, SR-18
    old = {"metadata": {"name": "old"}, "spec": policy(nicSelector={"pfNames": ["ens803f1#0-2"]},
                                                       externallyManaged=True)}
    problems = errors_of(spec(policy(nicSelector={"pfNames": ["ens803f1#3-4"]}), existing=[old]))
    assert any(p == "policies[0].externallyManaged" for p, _msg in problems)
    old = {"metadata": {"name": "old"}, "spec": policy(nicSelector={"pfNames": ["ens803f0"]}, excludeTopology=True)}
    problems = errors_of(spec(policy(nicSelector={"pfNames": ["ens803f1"]}), existing=[old]))
    assert any(p == "policies[0].excludeTopology" for p, _msg in problems)


def test_supported_nics_per_flavour():  # SR-20, SR-21
    x520 = {"nicSelector": {"vendor": "8086", "deviceID": "1528"}}
    assert ("policies[0].nicSelector.deviceID", "vendor/device 8086/1528 is not supported") in errors_of(
        {"flavour": "upstream", "policies": [policy(**x520)]})
    assert sriov.plan({"flavour": "openshift", "policies": [policy(**x520)]})["objects"]
    assert sriov.plan({"flavour": "upstream", "dev_mode": True,
                       "policies": [policy(nicSelector={"vendor": "1234"})]})["objects"]
    assert errors_of({"flavour": "upstream", "policies": [policy(nicSelector={"vendor": "15B3"})]})  # case-sensitive


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


def test_a_schedulable_control_plane_gets_vfs_with_a_warning_and_a_tainted_one_is_refused():  # SR-30
    # Compact clusters: the masters run VMs. The SR-IOV operator has no control-plane rule; the drain is the news.
    compact = [{"name": "cp1", "labels": {"node-role.kubernetes.io/master": "", **WORKER}}]
    compact_states = {"cp1": STATES["w1"]}
    result = sriov.plan({**spec(policy()), "nodes": compact, "node_states": compact_states})
    assert any("cp1 run VMs" in w and "drains and reboots" in w for w in result["warnings"])
    assert result["objects"]
    tainted = [{**compact[0], "taints": [{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}]}]
    problems = errors_of({**spec(policy()), "nodes": tainted, "node_states": compact_states})
    message = ("selects control-plane node cp1, which is tainted node-role.kubernetes.io/master:NoSchedule: VMs do "
               "not run there; narrow the selector or make the control plane schedulable")
    assert problems == [("policies[0].nodeSelector", message)]
    known = sriov.plan({**spec(policy()), "nodes": compact, "node_states": compact_states,
                        "allow_control_plane": True})
    assert not any("run VMs" in w for w in known["warnings"])


def test_network_rules_and_generated_nad():  # SR-34, SR-36
    bad_network = {"name": "n", "resourceName": "vm_sriov", "vlan": 4095, "vlanQoS": 8}
    problems = errors_of(spec(policy(), networks=[bad_network]))
    assert {p for p, _msg in problems} == {"networks[0].vlan", "networks[0].vlanQoS"}
    result = sriov.plan(spec(policy(), networks=[{"name": "sriov-vm", "resourceName": "vm_sriov",
                                                  "networkNamespace": "vms", "vlan": 10}]))
    nad = result["generated_nads"][0]
    assert (nad["metadata"]["namespace"], nad["metadata"]["name"]) == ("vms", "sriov-vm")
    assert nad["metadata"]["annotations"] == {
        "k8s.v1.cni.cncf.io/resourceName": "openshift.io/vm_sriov",
        "sriovnetwork.openshift.io/owner-ref":
            "SriovNetwork.sriovnetwork.openshift.io/openshift-sriov-network-operator/sriov-vm"}
    assert json.loads(nad["spec"]["config"]) == {"cniVersion": "1.0.0", "name": "sriov-vm", "type": "sriov",
                                                 "vlan": 10, "vlanQoS": 0, "ipam": {}}


def test_a_network_whose_resource_no_policy_provides_is_accepted_with_a_warning():
    # The operator has no such rule: networks are often managed apart from the policies.
    result = sriov.plan(spec(policy(), networks=[{"name": "n", "resourceName": "other"}]))
    assert [o["kind"] for o in result["objects"]].count("SriovNetwork") == 1
    assert any("networks[0]: no policy in this run or in existing_policies provides resource 'other'" in w
               for w in result["warnings"])
    assert ("networks[0].resourceName", "required") in errors_of(spec(policy(), networks=[{"name": "n"}]))


def test_a_policy_is_not_an_overlap_of_its_own_stored_copy():
    # A re-run with the cluster's policies: the operator skips the stored object with the same name.
    stored = {"metadata": {"name": "p"}, "spec": policy()}
    result = sriov.plan(spec(policy(), existing=[stored]))
    assert [o["metadata"]["name"] for o in result["objects"] if o["kind"] == "SriovNetworkNodePolicy"] == ["p"]
    other = {"metadata": {"name": "q"}, "spec": policy()}
    assert errors_of(spec(policy(), existing=[other])) == [
        ("policies[0].nicSelector.pfNames", "PF ens803f0 is overlapped with existing policy q")]


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


def test_pf_range_bounds_are_read_as_gos_atoi_reads_them():
    # The webhook splits on "-" and reads each side with strconv.Atoi, which takes a leading "+".
    assert sriov.parse_pf_name("ens803f1#0-+3", 8) == ("ens803f1", (0, 3), None)
    assert sriov.parse_pf_name("ens803f1#+1-2", 8) == ("ens803f1", (1, 2), None)
    assert sriov.plan(spec(policy(nicSelector={"pfNames": ["ens803f1#0-+3"]})))["objects"]
    old = {"metadata": {"name": "old"}, "spec": policy(nicSelector={"pfNames": ["ens803f1#3-4"]})}
    problems = errors_of(spec(policy(nicSelector={"pfNames": ["ens803f1#0-+3"]}), existing=[old]))
    assert [p for p, _msg in problems] == ["policies[0].nicSelector.pfNames"]
    assert sriov.parse_pf_name("ens803f1#0-3-4", 8)[2] == "incorrect range character usage in PF name ens803f1#0-3-4"


def test_an_altname_is_resolved_to_its_pf_when_looking_for_overlaps():
    states = {"w1": [{**STATES["w1"][1], "altNames": ["enp134s0f1"]}, STATES["w1"][0]]}
    old = {"metadata": {"name": "old"}, "spec": policy(nicSelector={"pfNames": ["ens803f1#0-3"]})}
    value = {**spec(policy(nicSelector={"pfNames": ["enp134s0f1#2-5"]}), existing=[old]), "node_states": states}
    problems = errors_of(value)
    assert problems == [("policies[0].nicSelector.pfNames",
                         "VF index range in ens803f1#2-5 is overlapped with existing policy old")]
    apart = {**value, "policies": [policy(nicSelector={"pfNames": ["enp134s0f1#4-5"]})]}
    assert sriov.plan(apart)["objects"]


def test_an_externally_managed_policy_must_have_the_pfs_link_type():
    states = {"w1": [{**STATES["w1"][0], "numVfs": 8, "linkType": "ETH"}]}
    value = {**spec(policy(externallyManaged=True, linkType="ib", deviceType="netdevice")), "node_states": states}
    assert ("policies[0].linkType", "externally managed: linkType ib differs from the link type of ens803f0 (ETH)") \
        in errors_of(value)
    same = {**value, "policies": [policy(externallyManaged=True, linkType="eth")]}  # compared ignoring case
    assert sriov.plan(same)["objects"]


def test_the_generated_nad_passes_capabilities_and_log_settings_on():
    network = {"name": "n", "resourceName": "vm_sriov", "capabilities": '{"ips": true}', "logLevel": "debug",
               "logFile": "/var/log/sriov.log", "linkState": "enable"}
    config = json.loads(sriov.plan(spec(policy(), networks=[network]))["generated_nads"][0]["spec"]["config"])
    assert config == {"cniVersion": "1.0.0", "name": "n", "type": "sriov", "vlan": 0, "vlanQoS": 0,
                      "capabilities": {"ips": True}, "link_state": "enable", "logLevel": "debug",
                      "logFile": "/var/log/sriov.log", "ipam": {}}
    quiet = json.loads(sriov.plan(spec(policy(), networks=[{**network, "logLevel": "", "logFile": ""}]))[
        "generated_nads"][0]["spec"]["config"])
    assert "logLevel" not in quiet and "logFile" not in quiet  # empty means not set


def test_meta_plugins_make_the_generated_nad_a_conflist():
    network = {"name": "n", "resourceName": "vm_sriov", "ipam": '{"type": "host-local", "subnet": "10.0.0.0/24"}',
               "metaPlugins": '{"type": "tuning", "sysctl": {"net.ipv4.conf.IFNAME.arp_notify": "1"}}, '
                              '{"type": "firewall"}'}
    config = json.loads(sriov.plan(spec(policy(), networks=[network]))["generated_nads"][0]["spec"]["config"])
    assert config == {"cniVersion": "1.0.0", "name": "n", "plugins": [
        {"type": "sriov", "vlan": 0, "vlanQoS": 0, "ipam": {"type": "host-local", "subnet": "10.0.0.0/24"}},
        {"type": "tuning", "sysctl": {"net.ipv4.conf.IFNAME.arp_notify": "1"}}, {"type": "firewall"}]}


def test_json_fields_of_a_network_must_be_json_the_cni_can_read():
    network = {"name": "n", "resourceName": "vm_sriov", "capabilities": "{ips: true}",
               "metaPlugins": '{"sysctl": {}}', "logLevel": "verbose"}
    paths = [p for p, _msg in errors_of(spec(policy(), networks=[network]))]
    assert paths == ["networks[0].capabilities", "networks[0].metaPlugins", "networks[0].logLevel"]


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


CONFIGMAP = {"Intel_i40e_XXV710": "8086 158b 154c", "Intel_iavf": "8086 154c 154c"}
VIRTUAL = [{"name": "vm1", "labels": dict(WORKER), "provider": "openstack:///1b8e5c47-cd70-4a52-a0d5-4b42d1d8a5a3"}]
VF_STATE = {"vm1": [{"name": "ens5", "vendor": "8086", "deviceID": "154c", "pciAddress": "0000:00:05.0",
                     "totalvfs": 1, "netFilter": "openstack/NetworkID:9a3f"}]}


def test_the_clusters_supported_nic_configmap_replaces_the_built_in_list():
    value = {**spec(policy(nicSelector={"vendor": "8086", "deviceID": "1572"})), "supported_nics": CONFIGMAP}
    assert ("policies[0].nicSelector.deviceID", "vendor/device 8086/1572 is not supported") in errors_of(value)
    assert sriov.plan({**spec(policy()), "supported_nics": CONFIGMAP})["objects"]
    assert errors_of({**spec(policy()), "supported_nics": ["8086"]}) == [
        ("supported_nics", "'8086' is not 'vendor pf-device vf-device'")]


def test_a_virtual_nodes_vf_is_selected_by_netfilter_as_the_operator_selects_it():
    by_filter = policy(numVfs=1, nicSelector={"netFilter": "openstack/NetworkID:9a3f"})
    value = {**spec(by_filter), "nodes": VIRTUAL, "node_states": VF_STATE}
    assert sriov.plan(value)["objects"]                              # no cluster list: the VF model is not checked
    assert sriov.plan({**value, "supported_nics": CONFIGMAP})["objects"]  # 154c is a listed VF model
    other_network = {**value, "policies": [policy(numVfs=1, nicSelector={"netFilter": "openstack/NetworkID:ffff"})]}
    assert ("policies[0].nicSelector", "no supported NIC is selected by the nicSelector on the matched nodes") \
        in errors_of(other_network)
    bare = {**value, "nodes": [{**VIRTUAL[0], "provider": "baremetal"}]}   # a VF model is no PF model there
    assert ("policies[0].nicSelector", "no supported NIC is selected by the nicSelector on the matched nodes") \
        in errors_of(bare)


def test_a_policy_for_virtual_nodes_without_netfilter_warns():
    value = {**spec(policy()), "nodes": VIRTUAL, "node_states": None}
    assert any("vm1 are virtual machines (provider)" in w for w in sriov.plan(value)["warnings"])
