# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Nil versus empty in the node placements (hco-mapping.md section 5.2 and the audit table in the HCO guide).

Go tells a nil pointer from a pointer to an empty struct and tests maps and slices by length; every consumer of
``infra``/``workloads.nodePlacement`` is rendered here with the placement absent, ``null``, ``{}``, ``affinity: {}``,
``nodeSelector: {}`` and ``tolerations: []``. The expected values are the rules of section 5.2 written out.
"""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

ABSENT = object()
ROLES = {"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": ""}
NODES = [{"name": f"node-{index}", "labels": dict(ROLES)} for index in range(3)]
ANTI_AFFINITY = "default"   # HCO's preferred pod anti-affinity on the object's own component


def operands(side: str, placement: object) -> dict[str, dict]:
    spec: dict = {"higherWorkloadDensity": {"memoryOvercommitPercentage": 150}}
    if placement is not ABSENT:
        spec[side] = {"nodePlacement": placement}
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"}, "spec": spec}
    result = render(hyperconverged=hc, release="1.20", cluster={"platform": "openshift", "nodes": NODES},
                    environment={"variables": {"KV_CONSOLE_PLUGIN_IMAGE": "plugin", "KV_CONSOLE_PROXY_IMAGE": "proxy"}})
    return {obj["metadata"]["name"] if obj["kind"] in ("Deployment", "DaemonSet") else obj["kind"]: obj
            for obj in result.operands}


def pod_placement(workload: dict) -> dict:
    pod = workload["spec"]["template"]["spec"]
    found = {key: pod[key] for key in ("nodeSelector", "affinity", "tolerations") if key in pod}
    if "podAntiAffinity" in found.get("affinity", {}):
        assert found["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]["weight"] == 90
        found["affinity"] = ANTI_AFFINITY
    return found


INFRA_CASES: dict[str, tuple[t.Any, ...]] = {
    # placement: (CNAO infra side, console plugin / proxy pods, wasp-agent pods, SSP templateValidator.placement)
    "absent": (ABSENT, None, {"affinity": ANTI_AFFINITY}, {"affinity": ANTI_AFFINITY}, None),
    "null": (None, None, {"affinity": ANTI_AFFINITY}, {"affinity": ANTI_AFFINITY}, None),
    "empty": ({}, None, {"affinity": ANTI_AFFINITY}, {}, {}),
    "empty affinity": ({"affinity": {}}, {"affinity": {}}, {"affinity": {}}, {"affinity": {}}, {"affinity": {}}),
    "empty nodeSelector": ({"nodeSelector": {}}, None, {"affinity": ANTI_AFFINITY}, {}, {}),
    "empty tolerations": ({"tolerations": []}, None, {"affinity": ANTI_AFFINITY}, {}, {}),
    "nodeSelector only": ({"nodeSelector": {"zone": "a"}}, {"affinity": {}, "nodeSelector": {"zone": "a"}},
                          {"affinity": ANTI_AFFINITY, "nodeSelector": {"zone": "a"}}, {"nodeSelector": {"zone": "a"}},
                          {"nodeSelector": {"zone": "a"}}),
}


@pytest.mark.parametrize("case", list(INFRA_CASES))
def test_infra_placement_shapes(case):
    placement, cnao_side, console_pods, wasp_pods, ssp_placement = INFRA_CASES[case]
    objects = operands("infra", placement)
    cnao = objects["NetworkAddonsConfig"]["spec"]
    if cnao_side is None:
        assert "placementConfiguration" not in cnao
    else:
        assert cnao["placementConfiguration"] == {"infra": cnao_side}
    assert pod_placement(objects["kubevirt-console-plugin"]) == console_pods
    assert pod_placement(objects["kubevirt-apiserver-proxy"]) == console_pods
    assert pod_placement(objects["wasp-agent"]) == wasp_pods
    validator = objects["SSP"]["spec"]["templateValidator"]
    if ssp_placement is None:
        assert "placement" not in validator
    else:
        assert validator["placement"] == ssp_placement


WORKLOADS_CASES: dict[str, tuple[t.Any, ...]] = {
    # placement: (CNAO workloads side, CDI spec.workload, KubeVirt spec.workloads)
    "absent": (ABSENT, None, {}, None),
    "null": (None, None, {}, None),
    "empty": ({}, None, {}, {"nodePlacement": {}}),
    "empty affinity": ({"affinity": {}}, {"affinity": {}}, {"affinity": {}}, {"nodePlacement": {"affinity": {}}}),
    "empty tolerations": ({"tolerations": []}, None, {}, {"nodePlacement": {}}),
}


@pytest.mark.parametrize("case", list(WORKLOADS_CASES))
def test_workloads_placement_shapes(case):
    placement, cnao_side, cdi_workload, kubevirt_workloads = WORKLOADS_CASES[case]
    objects = operands("workloads", placement)
    cnao = objects["NetworkAddonsConfig"]["spec"]
    if cnao_side is None:
        assert "placementConfiguration" not in cnao
    else:
        assert cnao["placementConfiguration"] == {"workloads": cnao_side}
    assert objects["CDI"]["spec"]["workload"] == cdi_workload
    assert objects["KubeVirt"]["spec"].get("workloads") == kubevirt_workloads


def test_empty_strings_of_fields_without_omitempty_are_kept():
    # KubeVirt's MediatedHostDevice/PciHostDevice/USBHostDevice: selector and resourceName have no omitempty, so HCO's
    # copy encodes "" (found by the property test); externalResourceProvider has omitempty.
    spec = {"permittedHostDevices": {
        "mediatedDevices": [{"mdevNameSelector": "", "resourceName": "", "externalResourceProvider": False}],
        "pciHostDevices": [{"pciDeviceSelector": "", "resourceName": ""}],
        "usbHostDevices": [{"resourceName": ""}]}}
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"}, "spec": spec}
    kubevirt = next(o for o in render(hyperconverged=hc, release="1.20", cluster={"platform": "kubernetes"}).operands
                    if o["kind"] == "KubeVirt")
    assert kubevirt["spec"]["configuration"]["permittedHostDevices"] == {
        "mediatedDevices": [{"mdevNameSelector": "", "resourceName": ""}],
        "pciHostDevices": [{"pciVendorSelector": "", "resourceName": ""}],
        "usb": [{"resourceName": ""}]}
