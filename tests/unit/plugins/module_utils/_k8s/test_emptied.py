# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.emptied import emptied_paths, with_empty, without

LIVE = {"metadata": {"labels": {"a": "b"}}, "spec": {"infra": {"nodeSelector": {"infra": ""}}, "workload": {},
                                                     "config": {"featureGates": ["x"]}}}


def test_only_a_mapping_emptied_by_the_configuration_is_found():
    desired = {"metadata": {"labels": {}}, "spec": {"infra": {}, "workload": {}, "config": {"featureGates": []}}}
    assert emptied_paths(desired, LIVE) == [("spec", "infra")]
    assert emptied_paths({"spec": {"infra": {}}}, {"spec": {"infra": {}}}) == []   # converged: one step
    assert emptied_paths({"spec": {"infra": {}}}, {"spec": {}}) == []   # absent: an empty mapping is accepted


def test_the_two_bodies_and_the_prediction():
    desired = {"spec": {"infra": {}, "workload": {"nodeSelector": {"w": ""}}}}
    paths = [("spec", "infra")]
    assert without(desired, paths) == {"spec": {"workload": {"nodeSelector": {"w": ""}}}}
    assert desired["spec"]["infra"] == {}   # the input is left as it was
    assert with_empty({"spec": {"workload": {}}}, paths) == {"spec": {"workload": {}, "infra": {}}}
