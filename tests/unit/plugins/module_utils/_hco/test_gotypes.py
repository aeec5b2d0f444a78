# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The typed decode step (``_hco/gotypes.py``) and its generated Go type table."""

from __future__ import annotations

import json
import pathlib

import gotypes_generator
import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco import gotypes
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

TABLE = pathlib.Path(gotypes.__file__).with_name("go_types_data.py")
PLACEMENT = gotypes.root("NodePlacement")


def test_committed_table_is_what_the_generator_writes_from_the_crds():
    assert TABLE.read_text() == gotypes_generator.source(), "run scripts/generate-go-types"


@pytest.mark.parametrize("value, expected", [
    (None, None),                                                   # nil pointer
    ({}, {}),                                                       # pointer to an empty struct
    ({"affinity": None}, {}),
    ({"affinity": {}}, {"affinity": {}}),                           # *Affinity set, empty
    ({"affinity": {"nodeAffinity": {}}}, {"affinity": {"nodeAffinity": {}}}),
    ({"nodeSelector": {}}, {}),                                     # map, omitempty: empty is dropped
    ({"tolerations": []}, {}),                                      # slice, omitempty
    ({"tolerations": [{"key": "a", "operator": "Exists"}]}, {"tolerations": [{"key": "a", "operator": "Exists"}]}),
    ({"nodeSelector": {"a": "b"}, "typo": 1}, {"nodeSelector": {"a": "b"}}),   # no such field: dropped
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}},
     # nodeSelectorTerms has no omitempty (required in the schema): the empty slice stays
     {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}),
])
def test_node_placement_round_trip(value, expected):
    assert gotypes.decode(value, PLACEMENT) == expected


def test_scalars_are_kept_as_given():
    # Pointer or not is not in the schema: a zero scalar is never dropped.
    assert gotypes.decode({"tolerations": [{"key": "", "tolerationSeconds": 0}]}, PLACEMENT) == {
        "tolerations": [{"key": "", "tolerationSeconds": 0}]}


@pytest.mark.parametrize("value, path, wrong", [
    ({"nodeSelector": ["a"]}, "nodePlacement.nodeSelector", "array into a map"),
    ({"tolerations": {"key": "a"}}, "nodePlacement.tolerations", "object into a slice"),
    ({"affinity": "x"}, "nodePlacement.affinity", "string into a struct"),
    ({"tolerations": [{"key": ["a"]}]}, "nodePlacement.tolerations[0].key", "array into a scalar"),
])
def test_values_go_cannot_decode_name_their_path(value, path, wrong):
    with pytest.raises(gotypes.GoDecodeError) as failure:
        gotypes.decode(value, PLACEMENT, "nodePlacement")
    assert failure.value.path == path
    assert wrong in str(failure.value)


def test_preserve_unknown_fields_keeps_what_it_does_not_know():
    # KubeVirt spec.configuration.developerConfiguration is typed; its featureGates list of strings too. A
    # free-form field (customizeComponents.patches[].patch is a string; flags are maps) is copied as is.
    kubevirt = gotypes.root("KubeVirt")
    decoded = gotypes.decode({"customizeComponents": {"flags": {"api": {"v": "4"}}}, "noSuchField": True}, kubevirt)
    assert decoded == {"customizeComponents": {"flags": {"api": {"v": "4"}}}}


def test_decode_over_merges_like_go():
    shape = gotypes.root("NodePlacement")
    old = {"nodeSelector": {"a": "1"}, "tolerations": [{"key": "x", "operator": "Exists"}, {"key": "y"}]}
    new = {"nodeSelector": {"b": "2"}, "tolerations": [{"value": "v"}], "unknown": 1}
    assert gotypes.decode_over(old, new, shape) == {
        "nodeSelector": {"a": "1", "b": "2"},                         # maps gain keys, never lose them
        "tolerations": [{"key": "x", "operator": "Exists", "value": "v"}]}   # new length, element over element
    assert gotypes.decode_over(old, {"nodeSelector": None}, shape) == {"tolerations": old["tolerations"]}


def hyperconverged(annotations):
    return {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
            "metadata": {"name": "kubevirt-hyperconverged", "namespace": "openshift-cnv", "annotations": annotations},
            "spec": {}}


def operand(kind, annotations):
    result = render(hyperconverged=hyperconverged(annotations), release="1.20",
                    cluster={"platform": "openshift", "namespace": "openshift-cnv"})
    return next(o for o in result.operands if o["kind"] == kind)


def test_ssp_jsonpatch_keys_the_go_type_lacks_disappear():
    patch = [{"op": "add", "path": "/spec/tektonPipelines", "value": {"namespace": "x"}},
             {"op": "add", "path": "/spec/templateValidator/replicas", "value": 3}]
    ssp = operand("SSP", {"ssp.kubevirt.io/jsonpatch": json.dumps(patch)})
    assert "tektonPipelines" not in ssp["spec"]
    assert ssp["spec"]["templateValidator"]["replicas"] == 3


def test_kubevirt_jsonpatch_keeps_fields_of_the_type_and_drops_others():
    patch = [{"op": "add", "path": "/spec/configuration/vmRolloutStrategy", "value": "LiveUpdate"},
             {"op": "add", "path": "/spec/configuration/vmRolloutStrategyTypo", "value": "LiveUpdate"}]
    kubevirt = operand("KubeVirt", {"kubevirt.kubevirt.io/jsonpatch": json.dumps(patch)})
    assert kubevirt["spec"]["configuration"]["vmRolloutStrategy"] == "LiveUpdate"
    assert "vmRolloutStrategyTypo" not in kubevirt["spec"]["configuration"]


def test_cnao_jsonpatch_of_the_wrong_type_is_refused():
    patch = [{"op": "replace", "path": "/spec/linuxBridge", "value": "yes"}]
    with pytest.raises(RenderError) as failure:
        operand("NetworkAddonsConfig", {"networkaddonsconfigs.kubevirt.io/jsonpatch": json.dumps(patch)})
    assert "cannot unmarshal string into" in failure.value.errors[0].message
