# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A preset's expansion, as the hco_preset filter and the site's plan make it."""

from __future__ import annotations

import copy
import pathlib

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.filter.hco_preset import hco_preset
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._preset_expansion import expand_preset

HYPERCONVERGED = yaml.safe_load((pathlib.Path(__file__).resolve().parents[4] / "examples" / "hyperconverged.yml")
                                .read_text())
CLUSTER = {"platform": "kubernetes", "namespace": "kubevirt-hyperconverged"}


def test_without_a_preset_the_hyperconverged_is_returned_as_it_is():
    assert expand_preset(HYPERCONVERGED, "", release="1.20", cluster=CLUSTER) == {
        "hyperconverged": HYPERCONVERGED, "objects": [], "report": {}, "vm_defaults": {}}
    assert hco_preset(HYPERCONVERGED, "", cluster=CLUSTER)["hyperconverged"] == HYPERCONVERGED


def test_a_preset_adds_to_the_hyperconverged_and_leaves_the_input_alone():
    given = copy.deepcopy(HYPERCONVERGED)
    expanded = expand_preset(given, "kkp", release="1.20", cluster=CLUSTER)
    assert given == HYPERCONVERGED
    assert expanded["hyperconverged"] != HYPERCONVERGED and expanded["report"]
    kinds = {o["kind"] for o in expanded["objects"]}
    assert kinds == {"VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference"}
    assert hco_preset(given, "kkp", cluster=CLUSTER) == expanded


def test_a_refused_hyperconverged_is_the_engines_error_and_the_filters_message():
    bad = {**HYPERCONVERGED, "spec": {"liveMigrationConfig": {"parallelMigrationsPerCluster": "many"}}}
    with pytest.raises(RenderError):
        expand_preset(bad, "kkp", release="1.20", cluster=CLUSTER)
    with pytest.raises(AnsibleFilterError, match="preset kkp refused: "):
        hco_preset(bad, "kkp", cluster=CLUSTER)
