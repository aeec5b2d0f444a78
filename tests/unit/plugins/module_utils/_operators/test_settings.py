# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import Settings


def test_problems_name_the_option():
    settings = Settings(source="manifests", platform="kubernetes", release="1.99", operators=("kubevirt", "kubvirt"),
                        namespace="kv", manifests_dir="/d", manifests_url="https://m/{file}")
    problems = settings.problems()
    assert problems[0].startswith("operators[1]: 'kubvirt' is not an operator")
    assert problems[1].startswith("manifests_dir and manifests_url")
    assert problems[2].startswith("release: '1.99'")


def test_chosen_in_catalog_order_and_home():
    settings = Settings(source="manifests", platform="kubernetes", release="1.20", operators=("cdi", "kubevirt"),
                        namespace="kv")
    chosen = settings.chosen()
    assert [op.key for op in chosen] == ["kubevirt", "cdi"]
    assert [settings.home(op) for op in chosen] == ["kv", "cdi"]
