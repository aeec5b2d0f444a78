# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.filter.swap_mib import swap_mib


def test_same_numbers_as_the_cluster_side():
    assert swap_mib("16Gi", 150) == 8192
    assert swap_mib("15875Mi", 150) == 7938


@pytest.mark.parametrize("percent", [-50, 9, 1.5, True, "150"])
def test_bad_percentages(percent):
    with pytest.raises(AnsibleFilterError, match="at least 10"):
        swap_mib("16Gi", percent)


def test_bad_memory():
    with pytest.raises(AnsibleFilterError, match="not a memory quantity"):
        swap_mib("lots", 150)
