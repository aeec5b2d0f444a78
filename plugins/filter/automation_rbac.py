# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: automation_rbac
short_description: Least-privilege ServiceAccount, ClusterRole and binding for the automation account
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Turns the objects a run writes and the kinds it reads into RBAC rules that grant exactly the verbs the collection
    sends, where it sends them.
  - A cluster-scoped object is granted by name - C(create), C(get), C(patch) and, when O(delete) is true, C(delete)
    (prune, C(state=absent)) - plus C(list) on its kind (the pruner's labelled search, which names cannot limit).
  - A namespaced object is granted by a Role in its namespace (RV(_value.roles)), with C(list) there; the apply
    module lists namespace by namespace when a list across the cluster is forbidden.
  - Namespaces and CustomResourceDefinitions are never granted C(delete), since the collection never deletes them.
  - An entry without a name (C({apiVersion, kind})) is granted on its kind across the cluster, as nothing narrower
    is known.
  - Read kinds get C(get) and C(list) across the cluster. HyperConverged, Deployment (HCO detection),
    CustomResourceDefinition (the schemas custom resources are validated against) and Node (the site plans from the
    live Nodes) are always read.
options:
  _input:
    description: Objects or C({apiVersion, kind}) entries the run writes.
    type: list
    elements: dict
    required: true
  read:
    description: Objects or C({apiVersion, kind}) entries the run only reads (for example operands in HCO mode).
    type: list
    elements: dict
    default: []
  resources:
    description:
      - C(apiVersion/kind) -> C({resource}), the RV(virtinfra.hyperconverged.cluster_info#module:resources) of
        M(virtinfra.hyperconverged.cluster_info). Kinds missing here get the default plural and are listed in
        RV(_value.guessed).
    type: dict
    default: {}
  name:
    description: Name of the ServiceAccount, ClusterRole and ClusterRoleBinding.
    type: str
    default: virtinfra-hyperconverged
  namespace:
    description: Namespace of the ServiceAccount.
    type: str
    default: virtinfra-automation
  delete:
    description: Grant C(delete) on written kinds.
    type: bool
    default: true
  apply_sets:
    description:
      - Names of the apply sets the run writes. Their parent ConfigMaps (see M(virtinfra.hyperconverged.k8s_apply))
        may be read and updated by name, and created (Kubernetes cannot limit a create to names).
    type: list
    elements: str
    default: []
  parent_namespace:
    description: Namespace of the apply sets' parents and locks; their rules go into the Role there.
    type: str
"""

EXAMPLES = r"""
- name: RBAC for a run that writes these manifests
  ansible.builtin.set_fact:
    account: >-
      {{ manifests | virtinfra.hyperconverged.automation_rbac(resources=facts.resources, delete=false) }}
"""

RETURN = r"""
_value:
  description: The objects and what they grant.
  type: dict
  contains:
    objects:
      description: Namespace, ServiceAccount, ClusterRole, ClusterRoleBinding, and a Role and RoleBinding per namespace
        written to.
      type: list
      elements: dict
    namespaces:
      description: The Namespaces of the Roles (other than the account's), to create before the Roles.
      type: list
      elements: dict
    roles:
      description: Namespace -> the rules of the Role there.
      type: dict
    rules:
      description: The ClusterRole rules.
      type: list
      elements: dict
    guessed:
      description: Kinds whose resource name was not served and was derived from the kind.
      type: list
      elements: str
    written:
      description: C(apiVersion/kind) of the written kinds.
      type: list
      elements: str
    read:
      description: C(apiVersion/kind) of the read-only kinds.
      type: list
      elements: str
    kinds:
      description: Every kind involved as C({apiVersion, kind}), ready for the O(virtinfra.hyperconverged.cluster_info#module:kinds)
        option of M(virtinfra.hyperconverged.cluster_info).
      type: list
      elements: dict
"""

import typing as t

from ansible.errors import AnsibleFilterError


def automation_rbac(written: t.Any, read: t.Any = (), resources: t.Any = None, name: str = "virtinfra-hyperconverged",
                    namespace: str = "virtinfra-automation", delete: bool = True,
                    apply_sets: t.Any = (), parent_namespace: str | None = None) -> dict[str, t.Any]:
    # Imported when called: to find one filter, Ansible loads every filter file of the collection in each task's
    # worker process (hco_operands.py says more).
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.rbac import (  # pylint: disable=import-outside-toplevel
        RbacError,
    )
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.rbac import (
        automation_rbac as compute,
    )

    if not isinstance(written, (list, tuple)) or not isinstance(read, (list, tuple)):
        raise AnsibleFilterError("automation_rbac: the input and read= must be lists of objects or {apiVersion, kind}")
    if resources is not None and not isinstance(resources, dict):
        raise AnsibleFilterError("automation_rbac: resources= must be the cluster_info resources mapping")
    if not isinstance(apply_sets, (list, tuple)) or not all(isinstance(n, str) and n for n in apply_sets):
        raise AnsibleFilterError("automation_rbac: apply_sets= must be a list of apply-set names")
    try:
        return compute(written, read, resources, name=name, namespace=namespace, delete=bool(delete),
                       apply_sets=list(apply_sets), parent_namespace=parent_namespace or None)
    except RbacError as exc:
        raise AnsibleFilterError(f"automation_rbac: {exc}") from exc


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"automation_rbac": automation_rbac}
