# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: swap_mib
short_description: Swap size for memory overcommit, in MiB
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - C(RAM x (overcommit_percent / 100 - 1)) in MiB, rounded up; 0 at or below 100 percent. The same computation as
    the swap section of M(virtinfra.hyperconverged.node_prereqs).
options:
  _input:
    description: Node memory, a Kubernetes quantity (C(64Gi), C(65554192Ki)) or a number of bytes.
    type: raw
    required: true
  overcommit_percent:
    description: HyperConverged C(memoryOvercommitPercentage), an integer of at least 10.
    type: int
    required: true
"""

EXAMPLES = r"""
- name: Swap for this host (facts give MiB)
  ansible.builtin.set_fact:
    swap_size: "{{ (ansible_facts.memtotal_mb ~ 'Mi') | virtinfra.hyperconverged.swap_mib(150) }}"
"""

RETURN = r"""
_value:
  description: Swap size in MiB.
  type: int
"""

import typing as t

from ansible.errors import AnsibleFilterError


def swap_mib(memory: t.Any, overcommit_percent: t.Any) -> int:
    # Imported when called: to find one filter, Ansible loads every filter file of the collection in each task's
    # worker process (hco_operands.py says more).
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import (  # pylint: disable=import-outside-toplevel
        Refused,
    )
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.swap import (  # pylint: disable=import-outside-toplevel
        swap_mib as compute,
    )

    if isinstance(overcommit_percent, bool) or not isinstance(overcommit_percent, int) or overcommit_percent < 10:
        raise AnsibleFilterError(f"overcommit_percent must be an integer of at least 10, got {overcommit_percent!r}")
    try:
        return compute(str(memory), overcommit_percent)
    except (Refused, ArithmeticError) as exc:
        raise AnsibleFilterError(f"{memory!r} is not a memory quantity") from exc


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"swap_mib": swap_mib}
