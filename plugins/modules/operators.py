#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: operators
short_description: Install, place and upgrade the operators KubeVirt and the node prerequisites need
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Installs the operators whose kinds a site writes - from their release manifests on Kubernetes without OLM, or
    through OLM (OpenShift, or Kubernetes where OLM runs) - waits until they are ready, and upgrades them the way
    the KubeVirt guides require (one minor release at a time, KubeVirt before CDI). Everything is checked before the
    first write - each release file fetched, its checksum compared, every version step allowed - and every problem is
    reported at once.
  - B(Release manifests) - one apply set per operator (C(virtinfra-operator-<operator>)), so a later version prunes
    what it no longer ships and an object someone else created is never taken over silently (O(adopt)). An operator
    that watches its custom resource only in its own namespace (virt-operator, SSP, the migration and file-restore
    operators) is installed in O(namespace), where the operands are, with every reference to its namespace moved
    (HCO's layout). Objects that O(objects) also contains (the C(kubevirt-cluster-critical) PriorityClass of
    virt-operator's file) are left to the operands' apply set. After each operator the run waits for its
    Deployments, DaemonSets and StatefulSets to roll out and its CRDs to be Established; on an upgrade, for each
    existing operand CR to report the new version and a fresh C(Available).
  - B(OLM) - Namespace, OperatorGroup and Subscription (apply set C(virtinfra-operators-olm)) with the operator pods'
    placement in C(spec.config), which OLM reads only when it installs. HCO's package stands for the KubeVirt family
    (C(kubevirt-hyperconverged) in C(openshift-cnv) on OpenShift, C(community-kubevirt-hyperconverged) elsewhere).
  - B(Instances) - an operator that serves the kinds a site writes only once an instance of it exists
    (kubernetes-nmstate deploys its handler and the policy kinds for the C(NMState) named C(nmstate)) gets it in
    its own apply set, as O(objects) gives it (the site's C(NMState) with its DNS probe) or bare, and the run waits
    for it to be C(Available) and for the kinds it brings to be served.
    With O(approval=Manual) the run approves exactly the InstallPlan of the CSV in O(csvs) - the pinned
    C(startingCSV), or on an upgrade the next minor release - never one that goes past it. Then it waits for the CSV
    to be C(Succeeded) and the CRDs it owns to be Established.
  - While it waits, it prints what it waits for when the wait starts and at least every 30 seconds.
  - In check mode it reads the cluster, fetches and checks every file, and reports the plan (current version and
    target, per operator) and what each apply would change, without writing or waiting.
  - With O(state=absent), it removes what it installed, last installed first (only members of its apply sets;
    through OLM also the CSVs of the Subscriptions it removed). Namespaces are left in place and named.
attributes:
  action_group:
    description: Use C(group/virtinfra.hyperconverged.cluster) in C(module_defaults) to set the credentials once.
    support: full
    membership:
      - virtinfra.hyperconverged.cluster
  check_mode:
    support: full
    description: Reads, fetches and dry-runs; writes nothing and does not wait.
  diff_mode:
    support: full
    description: Each apply's diff is in RV(applied).
  action:
    support: full
    description: Runs on the controller, where it can print while it waits.
  async:
    support: none
    description: Waits print progress on the controller instead.
  platform:
    support: full
    platforms: posix
    description: The controller must reach the API server (and, for release manifests, their URLs).
  idempotent:
    support: full
    description: A second run with the same input changes nothing and makes no write request.
options:
  state:
    description: C(present) installs or upgrades; C(absent) removes what this module installed.
    type: str
    choices: [present, absent]
    default: present
  source:
    description: Where the operators come from.
    type: str
    choices: [olm, manifests]
    required: true
  platform:
    description: The cluster's platform (chooses OLM packages, namespaces and catalogs).
    type: str
    choices: [kubernetes, openshift]
    default: kubernetes
  release:
    description: The HCO release profile (C(1.14) to C(1.20)) whose operator versions are installed.
    type: str
    default: "1.20"
  operators:
    description:
      - The operators to install - C(kubevirt), C(cdi), C(cnao), C(ssp), C(aaq), C(migration), C(filerestore),
        C(hpp), C(nmstate), C(sriov). Default - those serving the kinds of O(objects).
    type: list
    elements: str
    default: []
  objects:
    description: The objects the site writes after this stage; they decide which operators are needed.
    type: list
    elements: dict
    default: []
  namespace:
    description: The operands' namespace (the HyperConverged's).
    type: str
    default: kubevirt-hyperconverged
  versions:
    description: Target version per operator (C({kubevirt - v1.8.0})), overriding the release profile's pins.
    type: dict
    default: {}
  manifests_dir:
    description:
      - A local directory with the release files, for air-gapped sites - C(<dir>/<operator>/<version>/<file>),
        the files named as upstream publishes them (C(kubevirt/v1.9.0/kubevirt-operator.yaml)); for an operator
        without an upstream file list, every C(*.yaml) there in name order.
    type: path
    default: ""
  manifests_url:
    description:
      - A URL pattern with C({operator}), C({version}) and C({file}), for a mirror. Default - upstream's release
        assets (C(https://github.com/kubevirt/kubevirt/releases/download/{version}/{file}) and the like).
    type: str
    default: ""
  checksums:
    description:
      - Expected checksums keyed C(<operator>/<file>), each C(sha256:<hex>). A file with a checksum is verified
        before anything is applied; a mismatch refuses the run with nothing written.
    type: dict
    default: {}
  approval:
    description: The Subscriptions' C(installPlanApproval).
    type: str
    choices: [Automatic, Manual]
    default: Automatic
  option_names:
    description:
      - What the caller's user calls each option, for the problems to name it in their words (the option, such as
        C(versions), to a name such as C(site_operators_versions)); an option not given keeps the operators role's
        variable name (C(operators_versions)).
    type: dict
    default: {}
  csvs:
    description:
      - The CSV to run, per Subscription (C(hco) or an operator name) - the C(startingCSV) on install, the next
        step on an upgrade. Required for each Subscription with O(approval=Manual).
    type: dict
    default: {}
  catalog_source:
    description: The CatalogSource (default C(redhat-operators) on OpenShift, C(operatorhubio-catalog) elsewhere).
    type: str
    default: ""
  catalog_namespace:
    description: Its namespace (default C(openshift-marketplace) on OpenShift, C(olm) elsewhere).
    type: str
    default: ""
  channel:
    description: The Subscriptions' channel.
    type: str
    default: stable
  placement:
    description:
      - The operator pods' placement through OLM, as the node prerequisites' C(olm) section takes it
        (C(node_selector), C(tolerations), C(affinity)).
    type: dict
    default: {}
  adopt:
    description: Take existing objects that no apply set manages into this one (a cluster where an operator was
      installed by hand); reported as C(adopted).
    type: bool
    default: false
  wait_timeout:
    description: Seconds each wait may take.
    type: int
    default: 900
extends_documentation_fragment:
  - virtinfra.hyperconverged.k8s_auth
notes:
  - SR-IOV's operator publishes no plain manifests (Helm chart or OLM only); the migration and file-restore
    operators ship only in HCO's bundle. With O(source=manifests) give their files in O(manifests_dir).
  - The hostpath-provisioner-operator needs cert-manager; the run refuses before writing when cert-manager's
    Issuer is not served.
seealso:
  - module: virtinfra.hyperconverged.k8s_apply
"""

EXAMPLES = r"""
- name: Air-gapped - KubeVirt and CDI from a local directory (<dir>/<operator>/<version>/<file>)
  virtinfra.hyperconverged.operators:
    source: manifests
    operators: [kubevirt, cdi]
    manifests_dir: "{{ mirror_dir }}"
    checksums: "{{ mirror_checksums }}"  # {kubevirt/kubevirt-operator.yaml - "sha256:<hex>"}, verified first
  register: installed

- name: OpenShift Virtualization through OLM, operator pods on infra nodes, Manual approval of one CSV
  virtinfra.hyperconverged.operators:
    source: olm
    platform: openshift
    operators: [kubevirt]
    approval: Manual
    csvs:
      hco: kubevirt-hyperconverged-operator.v4.17.3
    placement:
      node_selector: {node-role.kubernetes.io/infra: ""}
"""

RETURN = r"""
connection:
  description: Where the call connected and what chose it, as M(virtinfra.hyperconverged.k8s_apply) returns it.
  returned: when the connection could be set up
  type: dict
plan:
  description: Per operator, current version and target (C(KubeVirt (virt-operator) - v1.8.2 → v1.9.0)).
  returned: always
  type: list
  elements: str
applied:
  description: One entry per apply set - C(apply_set), C(changed), C(counts), C(objects) (those not unchanged),
    C(pruned), C(warnings); after a failure C(failed), C(errors) and what was C(written).
  returned: always
  type: list
  elements: dict
waited:
  description: What the run waited for and for how long, each C({what, seconds}).
  returned: always
  type: list
  elements: dict
installs:
  description: The operators (through OLM, the packages) not running before this run, which it installs.
  returned: with state present
  type: list
  elements: str
approved:
  description: The InstallPlans approved (C(namespace/name)).
  returned: with source olm
  type: list
  elements: str
notes:
  description: What was done on the way (an operator moved into the operands' namespace, an object left to the
    operands, an InstallPlan not approved, a Namespace left in place).
  returned: always
  type: list
  elements: str
instances:
  description: The instances written with their operators (see the description); a caller that also writes them
    (the site's node prerequisites) leaves them out.
  returned: with state present and operators to install
  type: list
  elements: dict
problems:
  description: Every problem that refused the run before its first write.
  returned: failure
  type: list
  elements: str
"""
