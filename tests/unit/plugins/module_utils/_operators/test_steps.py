# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import catalog
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import ROLE_NAMES
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.steps import Running, check_overrides, plan, target_versions

KV = [catalog.BY_KEY["kubevirt"], catalog.BY_KEY["cdi"]]


def test_install_upgrade_unchanged():
    decided = plan(KV, {"kubevirt": "v1.9.0", "cdi": "v1.66.0"},
                   {"kubevirt": Running("v1.8.1", "Deployment image")}, ROLE_NAMES.__getitem__)
    assert [s.action for s in decided.steps] == ["upgrade", "install"]
    assert decided.lines == ["KubeVirt (virt-operator): v1.8.1 → v1.9.0", "CDI (cdi-operator): install v1.66.0"]
    assert decided.problems == ()
    again = plan(KV[:1], {"kubevirt": "v1.9.0"}, {"kubevirt": Running("v1.9.0", "label")}, ROLE_NAMES.__getitem__)
    assert again.steps[0].action == "unchanged"


def test_a_skipped_minor_and_an_unreadable_version_are_refused_with_where_they_were_read():
    decided = plan(KV, {"kubevirt": "v1.9.0", "cdi": "v1.66.0"},
                   {"kubevirt": Running("v1.7.0", "Deployment kubevirt/virt-operator image"),
                    "cdi": Running("sha256:abc", "Deployment cdi/cdi-operator image")}, ROLE_NAMES.__getitem__)
    assert [s.action for s in decided.steps] == ["refused", "refused"]
    assert "(read from Deployment kubevirt/virt-operator image)" in decided.problems[0]
    assert "cannot be read" in decided.problems[1]


def test_an_operator_without_a_pin_names_the_setting():
    decided = plan([catalog.BY_KEY["migration"]], target_versions("1.20", {}), {}, ROLE_NAMES.__getitem__)
    assert decided.problems == (("kubevirt-migration-operator: the release profile pins no version of it; "
                                "set operators_versions.migration"),)


def test_overrides_win_and_are_checked():
    assert target_versions("1.20", {"kubevirt": "v1.8.0", "cdi": ""})["kubevirt"] == "v1.8.0"
    assert target_versions("1.20", {"cdi": ""})["cdi"] == "v1.66.0"
    assert check_overrides({"kubevrit": "v1", "cdi": "new", "zz": "v1"}) == [
        "operators_versions.kubevrit: not an operator this collection installs (did you mean kubevirt?)",
        "operators_versions.cdi: 'new' is not a version like v1.9.0",
        ("operators_versions.zz: not an operator this collection installs (one of aaq, cdi, cnao, filerestore, "
         "hpp, kubevirt, migration, nmstate, sriov, ssp)")]


def test_an_operator_installed_by_someone_else_is_left_alone():
    decided = plan(KV[:1], {"kubevirt": "v1.9.0"},
                   {"kubevirt": Running("v1.4.0", "Deployment kubevirt/virt-operator image q:v1.4.0", external=True)}, ROLE_NAMES.__getitem__)
    assert decided.steps[0].action == "external" and decided.problems == ()
    assert decided.lines[0].startswith("KubeVirt (virt-operator): left as it is: Deployment kubevirt/virt-operator")


def test_installs_names_the_operators_not_running_yet():
    decided = plan(KV, {"kubevirt": "v1.9.0", "cdi": "v1.66.0"}, {"kubevirt": Running("v1.9.0", "label")}, ROLE_NAMES.__getitem__)
    assert decided.installs == ["cdi"]
