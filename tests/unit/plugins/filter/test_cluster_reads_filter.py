# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.filter.cluster_reads import cluster_reads


def test_the_filter_gives_cluster_info_its_arguments():
    assert cluster_reads({"sriov": {"policies": [{}]}}, "prerequisites")["read"][0] == {
        "apiVersion": "sriovnetwork.openshift.io/v1", "kind": "SriovNetworkNodePolicy"}
    assert len(cluster_reads(None, "hyperconverged")["kinds"]) == 3
    assert cluster_reads("ignored", "hyperconverged") == cluster_reads(None, "hyperconverged")   # input: anything


@pytest.mark.parametrize(("spec", "stage", "message"), [
    ("networking", "prerequisites", "must be the prerequisites spec .a mapping. or none, got str"),
    (None, "hco", "stage must be one of hyperconverged, prerequisites, got 'hco'"),
])
def test_a_mistake_is_named(spec, stage, message):
    with pytest.raises(AnsibleFilterError, match=message):
        cluster_reads(spec, stage)
