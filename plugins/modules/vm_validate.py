#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: vm_validate
short_description: Check a VirtualMachine's hardware against the cluster's KubeVirt settings
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Runs on the controller without a cluster. Fails listing every problem with its path - machine type not among
    the emulated machines allowed for the architecture, obsolete CPU model, CPU feature policy not one of force,
    require, optional, disable, forbid (or a feature twice), hugepage size invalid for the architecture, larger than
    or not dividing the memory, both BIOS and EFI, EFI secure boot with SMM disabled, SMBIOS uuid or serial
    malformed, clock with both utc and timezone or an unknown time zone, input devices other than a tablet on
    virtio or usb.
  - The filter P(virtinfra.hyperconverged.vm_hardware_errors#filter) returns the same problems as a list.
attributes:
  check_mode:
    support: full
    description: Nothing is changed.
  diff_mode:
    support: none
    description: Nothing is changed.
  action:
    support: full
    description: Runs on the controller.
  async:
    support: none
    description: Instant.
  platform:
    support: full
    platforms: all
    description: Needs no connection.
  idempotent:
    support: full
    description: Read-only.
options:
  vm:
    description: The VirtualMachine or VirtualMachineInstance.
    type: dict
    required: true
  kubevirt:
    description: The cluster's KubeVirt CR (rendered by M(virtinfra.hyperconverged.hco_render) or read).
    type: dict
    required: true
  architecture:
    description: Architecture when the VM does not name one (default - the cluster's default architecture).
    type: str
"""

EXAMPLES = r"""
- name: Validate a VM against the rendered KubeVirt CR
  virtinfra.hyperconverged.vm_validate:
    vm: "{{ lookup('ansible.builtin.file', 'vm.yml') | from_yaml }}"
    kubevirt: "{{ rendered.operands | selectattr('kind', 'equalto', 'KubeVirt') | first }}"
"""

RETURN = r"""
errors:
  description: Every problem, each C({path, message}); empty when the VM is valid.
  returned: always
  type: list
  elements: dict
"""
