# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hand-written NADs: CNI configurations as libcni and the plugins load them, and whereabouts ranges."""

from __future__ import annotations

import json

import pytest
from networking_specs import errors_of

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import bridges


def raw_nad(config, name="ext", namespace="vms", **extra):
    return {"name": name, "namespace": namespace, "config": config, **extra}


def test_a_raw_single_plugin_config_becomes_a_nad_as_given():
    config = {"cniVersion": "0.4.0", "name": "other-name", "type": "bridge", "bridge": "br-ext",
              "preserveDefaultVlan": True}
    result = bridges.plan({"nads": [raw_nad(config, resource_name="bridge.network.kubevirt.io/br-ext")]})
    [nad] = result["objects"]
    assert nad["metadata"] == {"name": "ext", "namespace": "vms",
                               "annotations": {"k8s.v1.cni.cncf.io/resourceName": "bridge.network.kubevirt.io/br-ext"}}
    assert json.loads(nad["spec"]["config"]) == config   # no ipam, its own name, preserveDefaultVlan kept


def test_a_raw_conflist_of_any_plugins_is_accepted_from_json_text():
    text = ('{"cniVersion": "1.0.0", "name": "ovn-localnet", "plugins": [{"type": "ovn-k8s-cni-overlay", '
            '"topology": "localnet", "netAttachDefName": "vms/ovn"}, {"type": "tuning"}]}')
    [nad] = bridges.plan({"nads": [raw_nad(text, name="ovn")]})["objects"]
    assert json.loads(nad["spec"]["config"]) == json.loads(text)


@pytest.mark.parametrize("config, where, message", [
    ("{not json", "nads[0].config", "is not valid JSON"),
    ({"name": "x"}, "nads[0].config.type", "missing 'type'"),
    ({"plugins": [{"type": "bridge"}]}, "nads[0].config.name", "error parsing configuration list: no name"),
    ({"name": "x", "plugins": []}, "nads[0].config.plugins", "error parsing configuration list: no plugins in list"),
    ({"name": "x", "plugins": [{"type": "bridge", "bridge": "b"}, {}]}, "nads[0].config.plugins[1].type",
     "missing 'type'"),
    ({"type": "bridge", "bridge": "b", "vlan": 4095}, "nads[0].config.vlan", "invalid VLAN ID 4095"),
    ({"type": "bridge", "bridge": "b", "vlanTrunk": [{"minID": 10, "maxID": 5}]}, "nads[0].config.vlanTrunk[0]",
     "minID is greater than maxID"),
    ({"type": "bridge", "bridge": "b", "vlanTrunk": [{"id": 0}]}, "nads[0].config.vlanTrunk[0].id",
     "incorrect trunk id parameter"),
    ({"type": "bridge", "bridge": "b", "hairpinMode": True, "promiscMode": True}, "nads[0].config",
     "cannot set hairpin mode and promiscuous mode at the same time"),
])
def test_raw_configs_are_checked_as_libcni_and_the_bridge_loader_check_them(config, where, message):
    [(path, text)] = errors_of({"nads": [raw_nad(config)]})
    assert path == where and message in text


def test_a_raw_bridge_config_without_a_bridge_warns_about_cni0():
    result = bridges.plan({"nads": [raw_nad({"type": "bridge"})]})
    assert any("creates and uses cni0" in w for w in result["warnings"])


def test_a_nad_name_must_be_a_dns_label_and_absent_nads_are_listed_for_deletion():
    assert {p for p, _m in errors_of({"nads": [raw_nad({"type": "macvlan"}, name="Bad_Name")]})} == {"nads[0].name"}
    result = bridges.plan({"nads": [{"name": "old", "namespace": "vms", "state": "absent"}]})
    assert result["objects"] == [] and result["delete"] == [
        {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
         "metadata": {"name": "old", "namespace": "vms"}}]


def whereabouts(**ipam):
    return raw_nad({"type": "macvlan", "master": "eno3", "ipam": {"type": "whereabouts", **ipam}})


@pytest.mark.parametrize("ipam, preview", [
    ({"range": "192.168.10.0/24"}, [("192.168.10.1", "192.168.10.254", 254)]),
    ({"range": "192.168.10.0/24", "exclude": ["192.168.10.0/28", "192.168.10.250/31"]},
     [("192.168.10.16", "192.168.10.254", 254 - 15 - 2)]),
    ({"range": "192.168.10.0/24", "range_start": "192.168.10.100", "range_end": "192.168.10.109"},
     [("192.168.10.100", "192.168.10.109", 10)]),
    ({"range": "192.168.10.20-192.168.10.29/24", "exclude": ["192.168.10.29/32"]},
     [("192.168.10.20", "192.168.10.28", 9)]),
    ({"ipRanges": [{"range": "10.1.0.0/30"}, {"range": "fd00::/126", "exclude": ["fd00::1/128"]}]},
     [("10.1.0.1", "10.1.0.2", 2), ("fd00::2", "fd00::2", 1)]),
])
def test_whereabouts_address_preview(ipam, preview):
    result = bridges.plan({"nads": [whereabouts(**ipam)]})
    assert [(p["first"], p["last"], p["count"]) for p in result["address_preview"]] == preview
    assert all(p["nad"] == "vms/ext" for p in result["address_preview"])


@pytest.mark.parametrize("ipam", [{"range": "10.1.0.0/31"}, {"range": "10.1.0.8/32"},
                                  {"range": "10.1.0.0/29", "exclude": ["10.1.0.0/29"]}])
def test_a_whereabouts_range_with_nothing_to_hand_out_warns(ipam):
    result = bridges.plan({"nads": [whereabouts(**ipam)]})
    assert result["address_preview"][0]["count"] == 0 and result["address_preview"][0]["first"] is None
    assert any("whereabouts can hand out no address" in w for w in result["warnings"])


@pytest.mark.parametrize("exclude", [["10.1.0.5"], ["10.1.0.300/32"], ["nonsense"]])
def test_an_exclude_entry_whereabouts_cannot_parse_is_refused_with_its_message(exclude):
    # whereabouts pkg/config LoadIPAMConfig: net.ParseCIDR on each exclude entry; a bare address has no prefix.
    problems = errors_of({"nads": [whereabouts(range="10.1.0.0/24", exclude=exclude)]})
    message = (f"invalid CIDR in exclude list {exclude[0]}: invalid CIDR address: {exclude[0]} "
               "(whereabouts refuses the config when a pod attaches)")
    assert problems == {("nads[0].config.ipam.exclude[0]", message)}


def test_a_whereabouts_config_without_a_range_is_admitted_with_a_warning():
    # whereabouts loads it and has nothing to allocate from: no refusal anywhere upstream.
    result = bridges.plan({"nads": [whereabouts(gateway="10.1.0.1")]})
    assert result["objects"] and result["address_preview"] == []
    assert [w for w in result["warnings"] if w.startswith("nads[0].config.ipam: no range or ipRanges")]


def test_whereabouts_options_are_checked():
    problems = errors_of({"nads": [whereabouts(range="10.1.0.0/24", range_start="10.2.0.1", gatway="10.1.0.1")]})
    assert {p for p, _m in problems} == {"nads[0].config.ipam.gatway", "nads[0].config.ipam"}
