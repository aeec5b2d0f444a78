# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: missing_operators
short_description: Name what to install for every kind the cluster does not serve
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Takes the objects a run would write and the C(served) map of M(virtinfra.hyperconverged.cluster_info) (keyed
    C(apiVersion/kind)) and returns one line per kind that is not served, naming the operator or platform that
    provides it. A kind missing from C(served) counts as served.
  - With C(served) null it returns the kinds themselves instead, each C({apiVersion, kind}) once, as the C(kinds)
    option of M(virtinfra.hyperconverged.cluster_info) takes them.
  - The site playbook uses it to refuse, before anything is written, a run whose operators are not all installed.
options:
  _input:
    description: Objects, each with C(apiVersion) and C(kind).
    type: list
    elements: dict
    required: true
  served:
    description: C(apiVersion/kind) to whether the server serves it; null for the list of kinds.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Read which kinds the cluster serves
  virtinfra.hyperconverged.cluster_info:
    kinds: "{{ objects | virtinfra.hyperconverged.missing_operators(None) }}"
  register: cluster

- name: Refuse when an operator is missing
  ansible.builtin.assert:
    that: objects | virtinfra.hyperconverged.missing_operators(cluster.served) | length == 0
    fail_msg: "{{ objects | virtinfra.hyperconverged.missing_operators(cluster.served) | join('; ') }}"
"""

RETURN = r"""
_value:
  description:
    - One line per unserved kind, e.g. C(NodeNetworkConfigurationPolicy (nmstate.io/v1) - install ...).
    - With C(served) null, the kinds as C({apiVersion, kind}) mappings.
  type: list
  elements: raw
"""

import typing as t

from ansible.errors import AnsibleFilterError


def missing_operators(objects: t.Any, served: t.Any) -> list[t.Any]:
    # Imported when called: to find one filter, Ansible loads every filter file of the collection in each task's
    # worker process (hco_operands.py says more).
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.providers import (  # pylint: disable=import-outside-toplevel
        kinds_of,
        unserved,
    )

    if not isinstance(objects, list) or not all(isinstance(o, dict) for o in objects):
        raise AnsibleFilterError("missing_operators expects a list of objects")
    if served is None:
        return [{"apiVersion": api_version, "kind": kind} for api_version, kind in kinds_of(objects)]
    if not isinstance(served, dict):
        raise AnsibleFilterError("served must be a mapping of apiVersion/kind to true or false")
    return unserved(objects, served)


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"missing_operators": missing_operators}
