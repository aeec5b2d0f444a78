#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: cluster_info
short_description: Platform, version and HyperConverged Cluster Operator presence of a Kubernetes cluster
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Reads, in five requests or fewer, whether the cluster is OpenShift (it serves C(config.openshift.io/v1)
    ClusterVersion), its Kubernetes version, and whether HCO runs there - its CRD is served and a HyperConverged
    object or an HCO Deployment (label C(name=hyperconverged-cluster-operator)) exists.
  - The C(virtinfra.hyperconverged.hyperconverged) role uses it to choose between writing the HyperConverged CR
    (HCO present) and writing the operands itself.
attributes:
  action_group:
    description: Use C(group/virtinfra.hyperconverged.cluster) in C(module_defaults) to set the credentials once.
    support: full
    membership:
      - virtinfra.hyperconverged.cluster
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
    description: Runs where it can reach the API server.
options:
  kinds:
    description: Extra kinds to check, each C({apiVersion, kind}); RV(served) tells which the server serves.
    type: list
    elements: dict
    default: []
    suboptions:
      apiVersion:
        description: API version.
        type: str
        required: true
      kind:
        description: Kind.
        type: str
        required: true
  read:
    description:
      - Kinds whose objects to list (all namespaces), each C({apiVersion, kind}); RV(objects) holds them. A kind the
        server does not serve gives an empty list. Secrets are refused.
      - The node-prerequisites role reads the NodeNetworkConfigurationPolicies this way, so that a policy still
        in progress is not changed and a policy whose C(capture) changes is recreated.
    type: list
    elements: dict
    default: []
    suboptions:
      apiVersion:
        description: API version.
        type: str
        required: true
      kind:
        description: Kind.
        type: str
        required: true
extends_documentation_fragment:
  - virtinfra.hyperconverged.k8s_auth
  - virtinfra.hyperconverged.k8s_auth.call
seealso:
  - module: virtinfra.hyperconverged.k8s_apply
"""

EXAMPLES = r"""
- name: Find out whether HCO manages KubeVirt here
  virtinfra.hyperconverged.cluster_info:
    kinds:
      - {apiVersion: monitoring.coreos.com/v1, kind: PrometheusRule}
  register: cluster
"""

RETURN = r"""
platform:
  description: C(openshift) or C(kubernetes).
  returned: success
  type: str
version:
  description: C({git_version, major, minor}) of the API server.
  returned: success
  type: dict
hco:
  description: C({crd, hyperconvergeds, operator_deployments, present}).
  returned: success
  type: dict
served:
  description: C(apiVersion/kind) -> whether the server serves it, for O(kinds).
  returned: success
  type: dict
resources:
  description:
    - C(apiVersion/kind) -> C({resource, namespaced}) as discovery reports it, for the served O(kinds).
    - The resource (plural) name is what RBAC rules need, see the C(virtinfra.hyperconverged.automation_account) role.
  returned: success
  type: dict
  sample: {"kubevirt.io/v1/KubeVirt": {"resource": "kubevirts", "namespaced": true}}
objects:
  description: C(apiVersion/kind) -> list of objects (without managedFields), for O(read).
  returned: success
  type: dict
  sample: {"nmstate.io/v1/NodeNetworkConfigurationPolicy": []}
requests:
  description: HTTP requests this call made, C({total, writes, by_method}) as M(virtinfra.hyperconverged.k8s_apply)
    returns them (C(writes) is always 0).
  returned: always
  type: dict
connection:
  description: Where the call connected and what chose it, as M(virtinfra.hyperconverged.k8s_apply) returns it.
  returned: when the connection could be set up
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KUBERNETES_IMPORT_ERROR
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import AUTH_ARGUMENT_SPEC
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import run_info


def _kind_list() -> dict:
    """A list of {apiVersion, kind} (the kinds and read options)."""
    return dict(type="list", elements="dict", default=[], options=dict(
        apiVersion=dict(type="str", required=True), kind=dict(type="str", required=True)))


ARGUMENT_SPEC = dict(kinds=_kind_list(), read=_kind_list(), **AUTH_ARGUMENT_SPEC)
REQUIRED_ONE_OF: list = []


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    if KUBERNETES_IMPORT_ERROR is not None:
        module.fail_json(msg=missing_required_lib("kubernetes"), exception=str(KUBERNETES_IMPORT_ERROR))
    outcome = run_info(module.params)
    if outcome.failed:
        module.fail_json(**outcome.result)
    module.exit_json(**outcome.result)


if __name__ == "__main__":
    main()
