# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which release profile the site computes with: the cluster's where it runs HCO, the setting where it does not."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.running_release import Running
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_release import choose

HCO_1_18 = Running("HCO", "1.18.1", "HyperConverged kubevirt-hyperconverged/kubevirt-hyperconverged status.versions")


def test_render_mode_computes_with_the_setting():
    assert choose("1.16", True, "refuse", None).release == "1.16"
    assert choose("1.20", False, "refuse", None).source == "site_release's default"


def test_a_default_setting_gives_way_to_the_cluster_and_the_warning_says_so():
    chosen = choose("1.20", False, "refuse", HCO_1_18)
    assert chosen.release == "1.18" and not chosen.problems
    assert chosen.source.startswith("the cluster (HCO 1.18.1 (HyperConverged kubevirt-hyperconverged/")
    said = ("site_release: computed with 1.18, the profile the cluster runs (HCO 1.18.1 "
            "(HyperConverged kubevirt-hyperconverged/kubevirt-hyperconverged status.versions)); "
            "site_release's default 1.20 is not used")
    assert chosen.warnings == (said,)


def test_a_setting_that_disagrees_with_the_cluster_is_refused_naming_both():
    chosen = choose("1.20", True, "refuse", HCO_1_18)
    [problem] = chosen.problems
    assert problem.startswith("site_release: 1.20 is not what the cluster runs (HCO 1.18.1 ")
    assert "set site_release to '1.18'" in problem and "site_release_mismatch: use-setting" in problem


def test_the_user_may_say_to_write_with_another_profile():
    chosen = choose("1.20", True, "use-setting", HCO_1_18)
    assert chosen.release == "1.20" and not chosen.problems and "as site_release_mismatch says" in chosen.warnings[0]


def test_a_setting_that_agrees_is_taken_without_a_word():
    chosen = choose("1.18", True, "refuse", HCO_1_18)
    assert (chosen.release, chosen.problems, chosen.warnings) == ("1.18", (), ())


@pytest.mark.parametrize(("version", "expected"), [("v1.5.2", "1.15"), ("v1.8.4", "1.18"), ("v1.4.0", "1.14")])
def test_kubevirt_alone_chooses_the_profile_pinning_its_minor(version, expected):
    assert choose("1.20", False, "refuse", Running("KubeVirt", version, "KubeVirt kubevirt/kubevirt")).release \
        == expected


def test_kubevirt_1_9_is_run_by_two_profiles_the_newest_is_taken_and_the_other_named():
    chosen = choose("1.16", False, "refuse", Running("KubeVirt", "v1.9.0", "KubeVirt kubevirt/kubevirt"))
    assert chosen.release == "1.20" and "(or 1.19: set site_release to choose)" in chosen.warnings[0]


def test_a_release_no_profile_covers_needs_the_setting():
    newer = Running("HCO", "1.21.0", "Deployment kubevirt-hyperconverged/hco-operator HCO_KV_IO_VERSION")
    assert choose("1.20", False, "refuse", newer).problems[0].startswith(
        "site_release: the cluster runs HCO 1.21.0 (Deployment kubevirt-hyperconverged/hco-operator "
        "HCO_KV_IO_VERSION), which no release profile covers (1.14, 1.15, 1.16, 1.17, 1.18, 1.19, 1.20)")
    given = choose("1.20", True, "refuse", newer)
    assert given.release == "1.20" and not given.problems and given.warnings
