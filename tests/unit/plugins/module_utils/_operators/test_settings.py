# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import Settings


def test_problems_name_the_option():
    settings = Settings(source="manifests", platform="kubernetes", release="1.99", operators=("kubevirt", "kubvirt"),
                        namespace="kv", manifests_dir="/d", manifests_url="https://m/{file}")
    problems = settings.problems()
    assert problems[0].startswith("operators_names[1]: 'kubvirt' is not an operator")
    assert problems[1].startswith("operators_manifests_dir and operators_manifests_url")
    assert problems[2].startswith("operators_release: '1.99'")
    # In the caller's words when it gives them (the site's settings).
    named = Settings(source="manifests", platform="kubernetes", release="1.99", operators=("kubevirt",),
                     namespace="kv", manifests_dir="/d", manifests_url="https://m/{file}",
                     names={"release": "site_release", "manifests_dir": "site_operators_manifests_dir"})
    assert [p.split(":")[0] for p in named.problems()] == [
        "site_operators_manifests_dir and manifests_url", "site_release"]


def test_chosen_in_catalog_order_and_home():
    settings = Settings(source="manifests", platform="kubernetes", release="1.20", operators=("cdi", "kubevirt"),
                        namespace="kv")
    chosen = settings.chosen()
    assert [op.key for op in chosen] == ["kubevirt", "cdi"]
    assert [settings.home(op) for op in chosen] == ["kv", "cdi"]
