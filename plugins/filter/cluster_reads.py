# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: cluster_reads
short_description: What a stage reads of the cluster before it plans
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - The C(kinds) and C(read) arguments of M(virtinfra.hyperconverged.cluster_info) for one stage, as the stage's role
    reads them itself. The site playbook joins them into one read of the cluster for every stage and passes the
    result to the roles (C(hyperconverged_cluster_info), C(prerequisites_cluster_info)).
options:
  _input:
    description:
      - For C(prerequisites), the node prerequisites spec (its C(networking) section reads the live
        NodeNetworkConfigurationPolicies, its C(sriov) section the SR-IOV policies and node states).
      - For C(hyperconverged), anything (C(none)).
    type: raw
    required: true
  stage:
    description: The stage.
    type: str
    required: true
    choices: [hyperconverged, prerequisites]
"""

EXAMPLES = r"""
- name: Read what the hyperconverged and prerequisites roles need, once
  virtinfra.hyperconverged.cluster_info:
    kinds: "{{ (none | virtinfra.hyperconverged.cluster_reads('hyperconverged')).kinds }}"
    read: "{{ (prereqs_spec | virtinfra.hyperconverged.cluster_reads('prerequisites')).read }}"
  register: cluster
"""

RETURN = r"""
_value:
  description: C(kinds) and C(read), each a list of C({apiVersion, kind}).
  type: dict
"""

import typing as t

from ansible.errors import AnsibleFilterError


def cluster_reads(spec: t.Any, stage: t.Any) -> dict[str, list[dict[str, str]]]:
    # Imported when called: to find one filter, Ansible loads every filter file of the collection in each task's
    # worker process (hco_operands.py says more).
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.cluster_reads import (  # pylint: disable=import-outside-toplevel
        cluster_reads as compute,
    )
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import (  # pylint: disable=import-outside-toplevel
        Refused,
    )

    if stage == "prerequisites" and spec is not None and not isinstance(spec, t.Mapping):
        raise AnsibleFilterError(f"cluster_reads: the input must be the prerequisites spec (a mapping) or none, got "
                                 f"{type(spec).__name__}")
    try:
        return compute(str(stage), spec if isinstance(spec, t.Mapping) else None)
    except Refused as exc:
        raise AnsibleFilterError(f"cluster_reads: {exc}") from exc


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"cluster_reads": cluster_reads}
