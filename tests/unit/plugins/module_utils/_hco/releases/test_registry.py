# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The release registry: lookups by the names users write, and a refusal that lists what exists."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import (
    get_profile,
    known_releases,
)


@pytest.mark.parametrize("written, name", [("1.20", "1.20"), ("1.20.0", "1.20"), ("v1.20.0", "1.20"),
                                           (" 1.14 ", "1.14"), (None, "1.20"), ("", "1.20")])
def test_a_release_is_found_by_any_spelling_users_write(written, name):
    assert get_profile(written).name == name


def test_known_releases_are_in_version_order():
    assert known_releases() == ["1.14", "1.15", "1.16", "1.17", "1.18", "1.19", "1.20"]


def test_an_unknown_release_names_the_known_ones_with_their_hco_versions():
    with pytest.raises(RenderError) as caught:
        get_profile("1.2")
    [error] = caught.value.errors
    assert error.path == "release"
    assert '"1.2"' in error.message and '"1.14" (HCO 1.14.' in error.message and '"1.20" (HCO 1.20.0)' in error.message
