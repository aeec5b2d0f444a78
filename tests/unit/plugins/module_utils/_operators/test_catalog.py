# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import catalog


def test_kubevirt_is_installed_before_cdi():
    keys = [op.key for op in catalog.OPERATORS]
    assert keys.index("kubevirt") < keys.index("cdi")


def test_needed_follows_the_api_groups_in_catalog_order():
    found = catalog.needed(["cdi.kubevirt.io/v1beta1", "kubevirt.io/v1", "v1", "nmstate.io/v1"])
    assert [op.key for op in found] == ["kubevirt", "cdi", "nmstate"]


def test_every_profile_pins_the_family_it_renders():
    for pins in catalog.PINS.values():
        assert {"kubevirt", "cdi", "cnao", "ssp", "aaq"} <= set(pins)


def test_operators_that_watch_only_their_namespace_are_colocated():
    assert catalog.BY_KEY["kubevirt"].colocated and not catalog.BY_KEY["cdi"].colocated
