# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: vm_hardware_errors
short_description: Problems of a VirtualMachine's hardware against the cluster's KubeVirt settings
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Checks a VirtualMachine (its template) or VirtualMachineInstance - machine type against the allowed emulated
    machines of its architecture, CPU model not obsolete, CPU feature policies (force, require, optional, disable,
    forbid) and duplicates, hugepage size valid for the architecture, not larger than and dividing the memory,
    one bootloader (BIOS default or EFI) and SMM for EFI secure boot, SMBIOS uuid and serial format, clock (utc or a
    real IANA time zone), input devices (tablet on virtio or usb).
  - Returns every problem as a C(path - message) string; an empty list means the VM is fine.
  - M(virtinfra.hyperconverged.vm_validate) runs the same checks as a task that fails.
options:
  _input:
    description: The VirtualMachine or VirtualMachineInstance.
    type: dict
    required: true
  kubevirt:
    description: The cluster's KubeVirt CR (for example from M(virtinfra.hyperconverged.hco_render)).
    type: dict
    required: true
  architecture:
    description: Architecture when the VM does not say (default - the cluster's default architecture).
    type: str
"""

EXAMPLES = r"""
- name: Check a VM before creating it
  ansible.builtin.assert:
    that: vm | virtinfra.hyperconverged.vm_hardware_errors(kubevirt) | length == 0
"""

RETURN = r"""
_value:
  description: C(path - message) strings.
  type: list
  elements: str
"""

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain


def vm_hardware_errors(vm: t.Any, kubevirt: t.Any, architecture: str | None = None) -> list[str]:
    # Imported when called: to find one filter, Ansible loads every filter file of the collection in each task's
    # worker process (hco_operands.py says more).
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._presets.vm_hardware import (  # pylint: disable=import-outside-toplevel
        validate,
    )

    return [f"{path}: {message}" for path, message in validate(plain(vm), plain(kubevirt), architecture)]


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"vm_hardware_errors": vm_hardware_errors}
