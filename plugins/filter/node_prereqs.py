# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: node_prereqs
short_description: Compute the cluster objects for node prerequisites
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Returns the objects M(virtinfra.hyperconverged.node_prereqs) computes from the same spec (swap, networking,
    sriov, storage, olm sections); see there for the keys.
  - Invalid input fails with one message listing every problem with its field path.
options:
  _input:
    description: The prerequisites spec.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Objects for the hostpath-provisioner pools
  ansible.builtin.set_fact:
    storage_objects: "{{ {'storage': {'provisioner': {'storage_pools': pools}}} | virtinfra.hyperconverged.node_prereqs }}"
"""

RETURN = r"""
_value:
  description: The objects.
  type: list
  elements: dict
"""

import typing as t

from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain


def node_prereqs(spec: t.Any) -> list[dict]:
    # Imported when called (hco_operands.py says why).
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import (  # pylint: disable=import-outside-toplevel
        render,
    )

    try:
        return render(plain(spec))["objects"]
    except PrerequisiteError as exc:
        raise AnsibleFilterError(f"node prerequisites refused: {exc.listed}") from exc


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"node_prereqs": node_prereqs}
