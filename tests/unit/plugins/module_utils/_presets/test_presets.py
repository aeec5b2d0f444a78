# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kkp preset against the guide's lists, and instance types validated by the published schemas."""

from __future__ import annotations

import json

import pytest
import vectors
import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.openapi import validate_custom_resource
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._presets import presets

# The KubeVirt cloud provider guide for KKP, as the issue quotes it.
KKP_GATES = {"ExperimentalIgnitionSupport", "DataVolumes", "LiveMigration", "CPUManager", "CPUNodeDiscovery",
             "Sidecar", "Snapshot", "HotplugVolumes"}
HYPERCONVERGED = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
                  "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
                  "spec": {}}


def operands(hyperconverged):
    return {o["kind"]: o for o in render(hyperconverged=hyperconverged, release="1.20").operands}


def test_kkp_render_mode_output_matches_the_guide():
    expanded = presets.expand("kkp", HYPERCONVERGED, rendered=operands(HYPERCONVERGED), local_storage=True)
    after = render(hyperconverged=expanded["hyperconverged"], release="1.20")
    kubevirt = next(o for o in after.operands if o["kind"] == "KubeVirt")
    cdi = next(o for o in after.operands if o["kind"] == "CDI")
    gates = kubevirt["spec"]["configuration"]["developerConfiguration"]["featureGates"]
    assert set(gates) >= KKP_GATES and len(gates) == len(set(gates))
    assert "HonorWaitForFirstConsumer" in cdi["spec"]["config"]["featureGates"]
    assert (kubevirt["spec"]["monitorNamespace"], kubevirt["spec"]["monitorAccount"]) == ("monitoring",
                                                                                          "prometheus-k8s")
    # Only what HCO does not set goes through jsonpatch, and HCO counts it as unsafe.
    ops = json.loads(expanded["hyperconverged"]["metadata"]["annotations"][presets.KUBEVIRT_JSONPATCH])
    assert after.unsafe_modifications[presets.KUBEVIRT_JSONPATCH] == len(ops)
    assert set(expanded["report"]["already_set_by_hco"]) >= {"KubeVirt feature gate CPUManager"}
    shapes = {(o["kind"], o["metadata"]["name"]): o["spec"] for o in expanded["objects"]}
    assert shapes == {
        ("VirtualMachineClusterInstancetype", "standard-2"): {"cpu": {"guest": 2}, "memory": {"guest": "8Gi"}},
        ("VirtualMachineClusterInstancetype", "standard-4"): {"cpu": {"guest": 4}, "memory": {"guest": "16Gi"}},
        ("VirtualMachineClusterInstancetype", "standard-8"): {"cpu": {"guest": 8}, "memory": {"guest": "32Gi"}},
        ("VirtualMachineClusterPreference", "sockets-advantage"): {"cpu": {"preferredCPUTopology": "preferSockets"}},
    }
    assert expanded["vm_defaults"]["topologySpreadConstraints"] == [
        {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}]


def test_existing_jsonpatch_annotations_are_kept_and_expansion_is_idempotent():
    own = [{"op": "add", "path": "/spec/configuration/cpuRequest", "value": "200m"}]
    source = json.loads(json.dumps(HYPERCONVERGED))
    source["metadata"]["annotations"] = {presets.KUBEVIRT_JSONPATCH: json.dumps(own)}
    once = presets.expand("kkp", source, rendered=operands(source))
    ops = json.loads(once["hyperconverged"]["metadata"]["annotations"][presets.KUBEVIRT_JSONPATCH])
    assert ops[0] == own[0]
    twice = presets.expand("kkp", once["hyperconverged"], rendered=operands(once["hyperconverged"]))
    assert twice["hyperconverged"] == once["hyperconverged"]


def test_objects_validate_against_the_published_schemas():
    schema_dir = vectors.SHARED / "schemas" / "instancetype.kubevirt.io"
    schemas = {"VirtualMachineClusterInstancetype": "virtualmachineclusterinstancetype_v1beta1.json",
               "VirtualMachineClusterPreference": "virtualmachineclusterpreference_v1beta1.json"}
    for obj in presets.instancetype_objects(presets.PRESETS["kkp"]["instancetypes"],
                                            presets.PRESETS["kkp"]["preferences"]):
        schema = json.loads((schema_dir / schemas[obj["kind"]]).read_text())
        assert validate_custom_resource(obj, schema) == [], obj


def test_bad_instance_types_are_reported_with_paths():
    with pytest.raises(PrerequisiteError) as failure:
        presets.instancetype_objects([{"name": "tiny", "cpus": 0, "memory": "1Gi"},
                                      {"name": "Bad_Name", "cpus": 2, "memory": "lots"}],
                                     [{"name": "p", "preferred_topology": "sideways"}])
    assert {(e.path, e.message) for e in failure.value.errors} == {
        ("instancetypes[0].cpus", "must be an integer of at least 1"),
        ("instancetypes[1].name", "must be a DNS subdomain name"),
        ("instancetypes[1].memory", "'lots' is not a positive memory quantity"),
        ("preferences[0].preferred_topology", ("must be one of preferSockets, preferCores, preferThreads, "
                                               "preferSpread, preferAny")),
    }


def test_unknown_preset():
    with pytest.raises(PrerequisiteError, match="unknown preset"):
        presets.expand("nope", HYPERCONVERGED, rendered={})


def test_example_hyperconverged_with_preset_is_still_accepted():
    source = yaml.safe_load((vectors.ROOT / "examples" / "hyperconverged.yml").read_text())
    expanded = presets.expand("kkp", source, rendered=operands(source))
    assert render(hyperconverged=expanded["hyperconverged"], release="1.20").operands
