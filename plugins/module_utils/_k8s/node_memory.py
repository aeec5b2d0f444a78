# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""When an inventory's node_memory and a Node's memory capacity are the same machine. PRIVATE; no Ansible imports.

The kubelet reports ``status.capacity.memory`` as the kernel's MemTotal (kubernetes v1.34.4,
pkg/kubelet/cm/container_manager_linux.go reads cAdvisor's MachineInfo.MemoryCapacity; google/cadvisor v0.52,
machine/info.go, GetMachineMemoryCapacity parses /proc/meminfo's MemTotal). MemTotal is the installed memory less what
the firmware keeps (the e820 reserved ranges), the kernel's own image and the page descriptors it allocates at boot
(Linux v6.12, include/linux/mm_types.h: a 64-byte ``struct page`` per 4 KiB page, 1.5625 %), and any crash-kernel
reservation (RHEL 9's kexec-tools default ``crashkernel=1G-4G:192M,4G-64G:256M,64G-:512M``). A machine sold as
256 GiB therefore reports about 263856120Ki, 1.7 % short of 268435456Ki, and an 8 GiB one about 4 % short.

The rule: the Node reports no more than the inventory says, and at most 2 % of it plus 512 MiB less (the page
descriptors and firmware, plus the largest default crash-kernel reservation). More memory than the inventory says, or
less than that, is another machine (or a unit mistake: ``256G`` is 250,000,000Ki) and is named.
"""

from __future__ import annotations

import typing as t
from decimal import Decimal

from .._common.golang import GoSyntaxError, quantity_value

RESERVED_SHARE = Decimal("0.02")
RESERVED_FIXED = Decimal(512 * 1024 * 1024)


def same_machine(typed: t.Any, reported: t.Any) -> bool:
    """Whether the inventory's ``typed`` quantity and the Node's ``reported`` capacity are the same memory; a value
    that is no quantity is the same only as the same text."""
    try:
        nominal, live = quantity_value(typed), quantity_value(reported)
    except (GoSyntaxError, ArithmeticError):
        return str(typed) == str(reported)
    return nominal - nominal * RESERVED_SHARE - RESERVED_FIXED <= live <= nominal
