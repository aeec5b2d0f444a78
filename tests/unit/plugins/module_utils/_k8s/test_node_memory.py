# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The inventory's node_memory against what a kubelet reports: the kernel's MemTotal, short of what was sold."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.node_memory import same_machine


@pytest.mark.parametrize("typed, reported", [
    ("256Gi", "263856120Ki"),          # a 256 GiB server: 1.7 % short
    ("256Gi", "268435456Ki"),          # exactly what was sold
    ("256Gi", "274877906944"),         # the same in bytes
    ("128Gi", "131811932Ki"),
    ("8Gi", "8029388Ki"),              # a small machine: the crash kernel's share is larger
    ("262542459Ki", "262542459Ki"),
    ("256Gi", "262542459Ki"),          # the lowest: 268435456Ki - 2 % (5368709.12Ki) - 512Mi, rounded up
])
def test_what_firmware_and_the_kernel_keep_is_no_difference(typed, reported):
    assert same_machine(typed, reported)


@pytest.mark.parametrize("typed, reported", [
    ("256Gi", "262542458Ki"),          # one Ki past what the kernel keeps
    ("256Gi", "268435457Ki"),          # more than was sold
    ("256G", "263856120Ki"),           # decimal gigabytes: 250000000Ki, less than the Node reports
    ("512Gi", "263856120Ki"),          # another machine
    ("128Gi", "263856120Ki"),
    ("lots", "263856120Ki"),           # no quantity: only the same text is the same
])
def test_another_machine_or_a_unit_mistake_is_a_difference(typed, reported):
    assert not same_machine(typed, reported)
