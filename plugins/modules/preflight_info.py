#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: preflight_info
short_description: Check whether a host can run KubeVirt virtual machines
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Reads C(/proc), C(/sys) and C(/dev) - hardware virtualization flags, C(/dev/kvm), IOMMU groups, cgroup v2, the
    container runtime socket, CPU cores, memory, free disk, active swap and the kubelet's C(failSwapOn) - and judges
    them against a requirement profile (KubeVirt cloud-provider figures - C(testing) 8 cores, 32 GB, 100 GB;
    C(production) 16 cores, 64 GB, 500 GB). Changes nothing.
attributes:
  check_mode:
    support: full
    description: Read-only.
  diff_mode:
    support: none
    description: Read-only.
  idempotent:
    support: full
    description: Read-only.
  platform:
    support: full
    platforms: posix
    description: Linux hosts.
options:
  profile:
    description: Requirement profile.
    type: str
    choices: [testing, production]
    default: testing
  need_iommu:
    description: Require an enabled IOMMU (SR-IOV or host devices requested).
    type: bool
    default: false
  need_runtime:
    description: Require a CRI-O or containerd socket.
    type: bool
    default: true
  want_swap:
    description: Report swap and the kubelet's failSwapOn as requirements (memory overcommit requested).
    type: bool
    default: false
  disk_path:
    description: Path whose free space is checked.
    type: path
    default: /var
  kubelet_config:
    description: Kubelet configuration file to read C(failSwapOn) from.
    type: path
    default: /var/lib/kubelet/config.yaml
"""

EXAMPLES = r"""
- name: Check the host
  virtinfra.hyperconverged.preflight_info:
    profile: production
    need_iommu: true
  register: preflight
"""

RETURN = r"""
facts:
  description: What was read.
  returned: success
  type: dict
checks:
  description: One row per requirement, C({check, required, found, ok}).
  returned: success
  type: list
  elements: dict
unmet:
  description: Names of the unmet requirements.
  returned: success
  type: list
  elements: str
table:
  description: The checks as fixed-width text lines.
  returned: success
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._preflight.checks import (
    gather,
    judge,
    table,
)


def main() -> None:
    module = AnsibleModule(argument_spec=dict(
        profile=dict(type="str", choices=["testing", "production"], default="testing"),
        need_iommu=dict(type="bool", default=False),
        need_runtime=dict(type="bool", default=True),
        want_swap=dict(type="bool", default=False),
        disk_path=dict(type="path", default="/var"),
        kubelet_config=dict(type="path", default="/var/lib/kubelet/config.yaml"),
    ), supports_check_mode=True)
    params = module.params
    facts = gather(disk_path=params["disk_path"], kubelet_config=params["kubelet_config"])
    checks = judge(facts, params["profile"], params["need_iommu"], params["need_runtime"], params["want_swap"])
    module.exit_json(changed=False, facts=facts, checks=checks, unmet=[c["check"] for c in checks if not c["ok"]],
                     table=table("", checks)[1:])


if __name__ == "__main__":
    main()
