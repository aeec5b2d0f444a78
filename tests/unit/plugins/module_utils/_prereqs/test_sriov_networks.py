# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SriovNetworks and the NAD the operator renders from each (vectors SR-34, SR-36)."""

from __future__ import annotations

import json

from sriov_specs import errors_of, policy, spec

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import sriov


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
