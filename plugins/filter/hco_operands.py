# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: hco_operands
short_description: Compute the operand objects HCO builds from a HyperConverged
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Returns the list of objects (KubeVirt, CDI, NetworkAddonsConfig, SSP, AAQ, MigController, FileRestoreOperator,
    PriorityClass and the spec-dependent Deployments and ConfigMaps) that the HyperConverged Cluster Operator
    computes from a C(hco.kubevirt.io/v1beta1) HyperConverged, for the chosen HCO release.
  - Uses the same engine as the M(virtinfra.hyperconverged.hco_render) action; see there for every option.
  - Invalid input fails with one message that lists every problem with its field path.
options:
  _input:
    description: The HyperConverged object as it would be submitted.
    type: dict
    required: true
  release:
    description: HCO release profile, C(1.20) (default) or C(1.14).
    type: str
    default: "1.20"
  operation:
    description: Admission operation to model.
    type: str
    choices: [create, update]
    default: create
  cluster:
    description: Cluster facts (platform, namespace, nodes, apiserver_tls_profile, base_domain).
    type: dict
  environment:
    description: Operator environment (kvm_emulation, smbios, machine_types, version, variables).
    type: dict
  status:
    description: HyperConverged status fields HCO reads.
    type: dict
  common_golden_images:
    description: Replacement for the shipped common DataImportCronTemplate list.
    type: list
    elements: dict
"""

EXAMPLES = r"""
- name: Render the operands of a HyperConverged for an OpenShift cluster
  ansible.builtin.set_fact:
    operands: "{{ hyperconverged | virtinfra.hyperconverged.hco_operands(cluster={'platform': 'openshift'}) }}"

- name: Names of the rendered objects, for HCO v1.14.0
  ansible.builtin.debug:
    msg: "{{ hyperconverged | virtinfra.hyperconverged.hco_operands(release='1.14') | map(attribute='metadata.name') }}"
"""

RETURN = r"""
_value:
  description: The rendered objects, in HCO's kind order.
  type: list
  elements: dict
"""

import typing as t

from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import render_kwargs


def hco_operands(hyperconverged: t.Any, release: str = "1.20", operation: str = "create",
                 cluster: dict | None = None, environment: dict | None = None,
                 status: dict | None = None, common_golden_images: list | None = None) -> list[dict]:
    kwargs = render_kwargs({"hyperconverged": hyperconverged, "release": release, "operation": operation,
                            "cluster": cluster, "environment": environment, "status": status,
                            "common_golden_images": common_golden_images})
    # Imported when called: to find one filter, Ansible loads every filter file of the collection in each task's
    # worker process, so an import at the top would cost every task that uses any filter of this collection.
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import (  # pylint: disable=import-outside-toplevel
        render,
    )

    try:
        return render(**kwargs).operands
    except RenderError as exc:
        details = "; ".join(f"{e.path}: {e.message}" for e in exc.errors)
        raise AnsibleFilterError(f"hco_operands: the HyperConverged is refused: {details}") from exc


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"hco_operands": hco_operands}
