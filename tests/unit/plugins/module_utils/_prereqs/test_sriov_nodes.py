# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SR-IOV policies against the nodes (vectors SR of node-prereqs-examples.md): NICs, supported models, PF ranges,
overlaps, virtual platforms."""

from __future__ import annotations

import pytest
from sriov_specs import STATES, WORKER, errors_of, policy, spec

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import sriov, sriov_nodes


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


def test_supported_nics_per_flavour():  # SR-20, SR-21
    x520 = {"nicSelector": {"vendor": "8086", "deviceID": "1528"}}
    assert ("policies[0].nicSelector.deviceID", "vendor/device 8086/1528 is not supported") in errors_of(
        {"flavour": "upstream", "policies": [policy(**x520)]})
    assert sriov.plan({"flavour": "openshift", "policies": [policy(**x520)]})["objects"]
    assert sriov.plan({"flavour": "upstream", "dev_mode": True,
                       "policies": [policy(nicSelector={"vendor": "1234"})]})["objects"]
    assert errors_of({"flavour": "upstream", "policies": [policy(nicSelector={"vendor": "15B3"})]})  # case-sensitive


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


def test_a_policy_is_not_an_overlap_of_its_own_stored_copy():
    # A re-run with the cluster's policies: the operator skips the stored object with the same name.
    stored = {"metadata": {"name": "p"}, "spec": policy()}
    result = sriov.plan(spec(policy(), existing=[stored]))
    assert [o["metadata"]["name"] for o in result["objects"] if o["kind"] == "SriovNetworkNodePolicy"] == ["p"]
    other = {"metadata": {"name": "q"}, "spec": policy()}
    assert errors_of(spec(policy(), existing=[other])) == [
        ("policies[0].nicSelector.pfNames", "PF ens803f0 is overlapped with existing policy q")]


def test_pf_range_bounds_are_read_as_gos_atoi_reads_them():
    # The webhook splits on "-" and reads each side with strconv.Atoi, which takes a leading "+".
    assert sriov_nodes.parse_pf_name("ens803f1#0-+3", 8) == ("ens803f1", (0, 3), None)
    assert sriov_nodes.parse_pf_name("ens803f1#+1-2", 8) == ("ens803f1", (1, 2), None)
    assert sriov.plan(spec(policy(nicSelector={"pfNames": ["ens803f1#0-+3"]})))["objects"]
    old = {"metadata": {"name": "old"}, "spec": policy(nicSelector={"pfNames": ["ens803f1#3-4"]})}
    problems = errors_of(spec(policy(nicSelector={"pfNames": ["ens803f1#0-+3"]}), existing=[old]))
    assert [p for p, _msg in problems] == ["policies[0].nicSelector.pfNames"]
    assert sriov_nodes.parse_pf_name("ens803f1#0-3-4", 8)[2] == "incorrect range character usage in PF name ens803f1#0-3-4"


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
