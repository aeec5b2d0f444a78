# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""ansible-doc documents the node_prereqs spec key by key, and exactly the keys the checks accept."""

from __future__ import annotations

import typing as t

import pytest
import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import (
    bridges,
    olm,
    render,
    sriov,
    storage,
    swap,
)
from ansible_collections.virtinfra.hyperconverged.plugins.modules import node_prereqs

SPEC = yaml.safe_load(node_prereqs.DOCUMENTATION)["options"]["spec"]


def documented(*names: str) -> dict[str, t.Any]:
    options = SPEC["suboptions"]
    for name in names:
        options = options[name]["suboptions"]
    return options


@pytest.mark.parametrize("where, accepted", [
    ((), set(render.SHARED_KEYS) | set(render.SECTION_KEYS)),
    (("swap",), swap.KEYS),
    (("swap", "wasp"), swap.WASP_KEYS),
    (("networking",), bridges.KEYS),
    (("networking", "bridges"), bridges.BRIDGE_KEYS),
    (("networking", "migration_network"), bridges.MIGRATION_KEYS),
    (("sriov",), sriov.KEYS),
    (("sriov", "policies"), sriov.POLICY_KEYS),
    (("sriov", "policies", "nicSelector"), sriov.NIC_SELECTOR_KEYS),
    (("storage",), storage.KEYS),
    (("storage", "provisioner"), storage.PROVISIONER_KEYS),
    (("olm",), olm.KEYS),
], ids=lambda value: ".".join(value) or "spec" if isinstance(value, tuple) else "")
def test_every_accepted_key_is_documented_and_nothing_else(where, accepted):
    assert set(documented(*where)) == set(accepted)


@pytest.mark.parametrize("where, listed, accepted", [
    (("sriov",), "networks", sriov.NETWORK_KEYS),
    (("storage", "provisioner"), "storage_pools", storage.POOL_KEYS),
    (("olm",), "subscriptions", olm.SUBSCRIPTION_KEYS),
])
def test_list_items_documented_in_their_description_name_every_key(where, listed, accepted):
    description = documented(*where)[listed]["description"]
    text = " ".join(description) if isinstance(description, list) else description
    assert {key for key in accepted if f"{key}" not in text} == set()


def test_every_documented_option_has_a_description_and_a_type():
    def walk(options: dict[str, t.Any], where: str) -> list[str]:
        missing = []
        for name, option in options.items():
            if not option.get("description") or "type" not in option:
                missing.append(f"{where}{name}")
            missing += walk(option.get("suboptions") or {}, f"{where}{name}.")
        return missing
    assert walk(SPEC["suboptions"], "spec.") == []
