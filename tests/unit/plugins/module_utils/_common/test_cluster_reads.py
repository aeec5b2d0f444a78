# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each stage's cluster read: the site's one read is the union of these, so a role and the site never disagree."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.cluster_reads import cluster_reads, prerequisite_reads
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import Refused


def test_the_hyperconverged_role_asks_which_optional_apis_are_served_and_reads_nothing():
    found = cluster_reads("hyperconverged")
    assert {(k["apiVersion"], k["kind"]) for k in found["kinds"]} == {
        ("instancetype.kubevirt.io/v1beta1", "VirtualMachineClusterInstancetype"),
        ("monitoring.coreos.com/v1", "PrometheusRule"), ("monitoring.coreos.com/v1", "ServiceMonitor")}
    assert found["read"] == []


@pytest.mark.parametrize(("spec", "expected"), [
    (None, []),
    ({"networking": {}, "sriov": {}}, []),                      # empty sections read nothing
    ({"networking": {"bridges": [{"name": "br1"}]}}, ["NodeNetworkConfigurationPolicy"]),
    ({"sriov": {"policies": [{"name": "p"}]}}, ["SriovNetworkNodePolicy", "SriovNetworkNodeState"]),
    ({"networking": {"bridges": [{}]}, "sriov": {"policies": [{}]}},
     ["NodeNetworkConfigurationPolicy", "SriovNetworkNodePolicy", "SriovNetworkNodeState"]),
])
def test_the_prerequisites_role_reads_the_live_policies_of_the_sections_it_has(spec, expected):
    found = cluster_reads("prerequisites", spec)
    assert [k["kind"] for k in found["read"]] == expected and found["kinds"] == []


def test_each_section_that_reads_is_named_with_its_kinds():
    found = prerequisite_reads({"sriov": {"policies": [{}]}, "networking": {"bridges": [{}]}, "storage": {"pools": [{}]}})
    assert [(section, [kind for _version, kind in kinds]) for section, kinds in found] == [
        ("networking", ["NodeNetworkConfigurationPolicy"]),
        ("sriov", ["SriovNetworkNodePolicy", "SriovNetworkNodeState"])]


def test_an_unknown_stage_names_the_stages():
    with pytest.raises(Refused, match="one of hyperconverged, prerequisites, got 'hyperconverge'"):
        cluster_reads("hyperconverge")
