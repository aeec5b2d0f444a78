# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""VM hardware rules against the KubeVirt CR the engine renders for the example HyperConverged."""

from __future__ import annotations

import copy
import typing as t

import pytest
import vectors
import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._presets.vm_hardware import validate

KUBEVIRT = next(o for o in render(hyperconverged=yaml.safe_load((vectors.ROOT / "examples" / "hyperconverged.yml")
                                                                .read_text()), release="1.20").operands
                if o["kind"] == "KubeVirt")
GOOD: dict[str, t.Any] = {
    "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm"},
    "spec": {"template": {"spec": {"domain": {
        "machine": {"type": "pc-q35-rhel9.4.0"},
        "cpu": {"model": "Skylake-Server", "features": [{"name": "pcid", "policy": "require"}]},
        "memory": {"guest": "4Gi", "hugepages": {"pageSize": "2Mi"}},
        "firmware": {"bootloader": {"efi": {"secureBoot": True}}, "uuid": "5d307ca9-b3ef-428c-8861-06e72d69f223",
                     "serial": "SN-12345"},
        "features": {"smm": {"enabled": True}},
        "clock": {"timezone": "Europe/Berlin"},
        "devices": {"inputs": [{"name": "tablet", "type": "tablet", "bus": "virtio"}]},
    }}}},
}
D = "spec.template.spec.domain"


def with_domain(**changes):
    vm = copy.deepcopy(GOOD)
    vm["spec"]["template"]["spec"]["domain"].update(changes)
    return vm


def test_a_valid_vm_has_no_problems():
    assert validate(GOOD, KUBEVIRT) == []


@pytest.mark.parametrize("domain, expected", [
    ({"machine": {"type": "pc-i440fx-2.12"}}, f"{D}.machine.type"),
    ({"cpu": {"model": "Opteron_G2"}}, f"{D}.cpu.model"),
    ({"cpu": {"features": [{"name": "x", "policy": "maybe"}]}}, f"{D}.cpu.features[0].policy"),
    ({"cpu": {"features": [{"name": "x"}, {"name": "x", "policy": "forbid"}]}}, f"{D}.cpu.features[1].name"),
    ({"memory": {"guest": "512Mi", "hugepages": {"pageSize": "1Gi"}}}, f"{D}.memory.hugepages.pageSize"),
    ({"memory": {"guest": "3Mi", "hugepages": {"pageSize": "2Mi"}}}, f"{D}.memory.hugepages.pageSize"),
    ({"memory": {"guest": "4Gi", "hugepages": {"pageSize": "4Mi"}}}, f"{D}.memory.hugepages.pageSize"),
    ({"firmware": {"bootloader": {"bios": {}, "efi": {}}}}, f"{D}.firmware.bootloader"),
    ({"firmware": {"uuid": "not-a-uuid"}}, f"{D}.firmware.uuid"),
    ({"firmware": {"serial": "has space"}}, f"{D}.firmware.serial"),
    ({"features": {"smm": {"enabled": False}}}, f"{D}.features.smm.enabled"),
    ({"clock": {"utc": {}, "timezone": "UTC"}}, f"{D}.clock"),
    ({"clock": {"timezone": "Mars/Olympus"}}, f"{D}.clock.timezone"),
    ({"devices": {"inputs": [{"name": "kbd", "type": "keyboard", "bus": "ps2"}]}}, f"{D}.devices.inputs[0].type"),
])
def test_each_rule(domain, expected):
    problems = validate(with_domain(**domain), KUBEVIRT)
    assert expected in [path for path, _msg in problems], problems


def test_all_problems_at_once_and_vmi_paths():
    vmi = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance", "metadata": {"name": "i"},
           "spec": {"domain": {"cpu": {"model": "486"}, "memory": {"guest": "512Mi", "hugepages": {"pageSize": "1Gi"}},
                               "devices": {"inputs": [{"name": "t", "type": "tablet", "bus": "ps2"}]}}}}
    assert [path for path, _msg in validate(vmi, KUBEVIRT)] == [
        "spec.domain.cpu.model", "spec.domain.memory.hugepages.pageSize", "spec.domain.devices.inputs[0].bus"]


def test_machine_types_follow_the_architecture():
    vm = with_domain(machine={"type": "virt-rhel9.4.0"})
    assert f"{D}.machine.type" not in [p for p, _m in validate(vm, KUBEVIRT, architecture="arm64")]
    assert f"{D}.machine.type" in [p for p, _m in validate(vm, KUBEVIRT)]
