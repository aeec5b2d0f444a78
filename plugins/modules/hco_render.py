#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: hco_render
short_description: Compute the operand CRs the HyperConverged Cluster Operator builds from a HyperConverged
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Runs HCO's pipeline in Python, on the controller, without a cluster - CRD schema defaults and pruning, the v1beta1
    mutating webhook, the validating webhook, the v1beta1 to v1 conversion, one builder per operand, the four
    C(*/jsonpatch) annotations (with Go's decode-over-the-built-object semantics) and Go/Kubernetes normalisation
    (durations, canonical quantities, omitempty).
  - Returns the KubeVirt, CDI, NetworkAddonsConfig, SSP (OpenShift), AAQ (when enabled), MigController,
    FileRestoreOperator and PriorityClass objects, plus the secondary objects that depend on the spec
    (network-resources-injector Deployment; on OpenShift the console plugin and apiserver-proxy Deployments and
    the C(nginx-conf) ConfigMap).
  - Release behaviour comes from data tables, one per HCO release - C(1.14) (v1.14.0), C(1.15) (v1.15.2), C(1.16)
    (v1.16.0), C(1.17) (v1.17.3), C(1.18) (v1.18.1), C(1.19) (branch release-1.19) and C(1.20) (main at a named
    commit, before any 1.20 tag) - each checked against objects that release's own code built; see the release
    profiles guide.
  - A refused HyperConverged fails with O(ignore:msg) and RV(errors), which lists every problem, each with its field
    path, and returns no operands.
attributes:
  check_mode:
    support: full
    description: Nothing is changed in any mode; the same objects are computed.
  diff_mode:
    support: none
    description: Nothing is changed, so there is nothing to diff.
  action:
    support: full
    description: Runs on the controller as an action plugin.
  async:
    support: none
    description: Rendering takes milliseconds.
  platform:
    support: full
    platforms: all
    description: Needs no connection to the target.
  idempotent:
    support: full
    description: The same input always renders the same objects.
options:
  hyperconverged:
    description:
      - The HyperConverged object as it would be submitted (before defaults) - C(hco.kubevirt.io/v1beta1), or
        C(hco.kubevirt.io/v1) where the release serves it (1.18 on), converted as HCO converts it.
      - It must be named C(kubevirt-hyperconverged) and live in O(cluster.namespace).
    type: raw
    required: true
  release:
    description:
      - HCO release profile, one of C(1.14) to C(1.20); the HCO version (C(1.18.1), C(v1.18.1)) is accepted too.
      - An unknown release fails and lists the known ones.
    type: str
    default: "1.20"
  operation:
    description:
      - The admission operation to model. C(update) applies the update-only webhook behaviour
        (C(evictionStrategy) from C(status.infrastructureHighlyAvailable), no C(ksmConfiguration) default).
      - HCO's webhook dry-runs the SSP on C(create) on every platform, on C(update) only on OpenShift, where SSP
        runs. So a problem found while building the SSP (an C(ssp.kubevirt.io/jsonpatch) whose operations fail, two
        DataImportCronTemplates of one name, a customised common one without a source) refuses a C(create) anywhere
        and an C(update) on OpenShift, and is admitted on an C(update) on plain Kubernetes, as HCO admits it.
    type: str
    choices: [create, update, CREATE, UPDATE]
    default: create
  cluster:
    description: Facts about the cluster the HyperConverged is applied to.
    type: dict
    default: {}
    suboptions:
      platform:
        description: C(openshift) adds SSP, the console objects and the OpenShift-only defaults.
        type: str
        choices: [kubernetes, openshift]
        default: kubernetes
      namespace:
        description: The operator namespace (C(openshift-cnv) downstream).
        type: str
        default: kubevirt-hyperconverged
      nodes:
        description:
          - Every node as C({name, labels, architecture}); roles come from the C(node-role.kubernetes.io/*) labels.
          - Default is three control-plane and three worker amd64 nodes.
        type: list
        elements: dict
      apiserver_tls_profile:
        description: The OpenShift APIServer C(spec.tlsSecurityProfile), used when the HyperConverged sets none.
        type: dict
      base_domain:
        description: The OpenShift cluster base domain (KubeSecondaryDNS domain).
        type: str
        default: ""
      monitoring:
        description:
          - Whether the cluster has the PrometheusRule and ServiceMonitor CRDs (HCO deploys the observability
            controller only then). Default is true on OpenShift, false on plain Kubernetes.
        type: bool
  environment:
    description: The operator's environment, as the CSV sets it unless overridden here.
    type: dict
    default: {}
    suboptions:
      kvm_emulation:
        description: HCO's C(KVM_EMULATION).
        type: bool
      smbios:
        description: HCO's C(SMBIOS), as a mapping (family, manufacturer, product, sku, version) or YAML text.
        type: raw
      machine_types:
        description: Machine type per architecture (C(amd64), C(arm64), C(s390x); C(legacy) for C(MACHINETYPE)).
        type: dict
      version:
        description: C(HCO_KV_IO_VERSION), the version label and KubeVirt C(productVersion).
        type: str
      variables:
        description: Raw operator environment variables overriding the CSV values (a null value unsets one).
        type: dict
  status:
    description:
      - HyperConverged status fields HCO reads - C(dataImportSchedule), C(infrastructureHighlyAvailable), C(conditions).
      - Without C(dataImportSchedule) a schedule is derived from the namespace and name, so reruns are stable.
    type: dict
    default: {}
  common_golden_images:
    description: Replacement for the shipped common DataImportCronTemplate list (downstream builds ship their own).
    type: list
    elements: dict
  strict:
    description:
      - A field of the HyperConverged that the release's CRD does not define is dropped, as the API server prunes it,
        and reported as a warning with the nearest known field (C(spec.liveMigrationConfg) - did you mean
        C(liveMigrationConfig)?), the way C(kubectl) prints the server's unknown-field warnings.
      - With C(true) such a field fails the task instead, listing every one. The site playbook sets it (C(site_strict)).
    type: bool
    default: false
  managed_by:
    description:
      - The C(app.kubernetes.io/managed-by) label of every operand. HCO labels them C(hco-operator), and so does this
        module by default, so that operands can be compared with what HCO builds.
      - Where no HCO manages them (standalone mode), give the name of what does; the hyperconverged role and the
        site give C(virtinfra.hyperconverged), so that nobody takes them for HCO's.
    type: str
    version_added: 0.1.0
notes:
  - The engine is pure Python under C(plugins/module_utils/_hco) and runs on the controller.
  - Keys a jsonpatch adds that are not fields of the operand's Go type are dropped by HCO; this engine keeps them,
    because the operand type definitions are not available offline. Validate the result against the live CRD.
seealso:
  - plugin: virtinfra.hyperconverged.hco_operands
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Render the operands of the example HyperConverged
  virtinfra.hyperconverged.hco_render:
    hyperconverged:
      apiVersion: hco.kubevirt.io/v1beta1
      kind: HyperConverged
      metadata:
        name: kubevirt-hyperconverged
        namespace: kubevirt-hyperconverged
      spec:
        infra:
          nodePlacement:
            nodeSelector:
              node-role.kubernetes.io/infra: ""
        higherWorkloadDensity:
          memoryOvercommitPercentage: 150
    cluster:
      platform: openshift
  register: rendered

- name: Same spec, as HCO v1.14.0 computes it
  virtinfra.hyperconverged.hco_render:
    hyperconverged: "{{ hyperconverged }}"
    release: "1.14"
  register: rendered_114
"""

RETURN = r"""
operands:
  description: The complete objects, in HCO's kind order (KubeVirt, CDI, NetworkAddonsConfig, SSP, AAQ, ...).
  returned: success
  type: list
  elements: dict
hyperconverged:
  description:
    - The effective HyperConverged after CRD defaults and the mutating webhook, with the status HCO derives
      (C(TaintedConfiguration) condition, C(dataImportCronTemplates), C(dataImportSchedule)).
  returned: success
  type: dict
hco_warnings:
  description: The warnings HCO's webhook returns (deprecated or moved feature gates, highBurst). Also shown as warnings.
  returned: always
  type: list
  elements: str
unsafe_modifications:
  description: Operations per jsonpatch annotation (HCO's C(kubevirt_hco_unsafe_modifications) gauge).
  returned: success
  type: dict
  sample: {"kubevirt.kubevirt.io/jsonpatch": 2, "containerizeddataimporter.kubevirt.io/jsonpatch": 0}
tainted:
  description: Whether any jsonpatch annotation applies an operation (HCO's C(TaintedConfiguration) condition).
  returned: success
  type: bool
release:
  description: The release profile used.
  returned: success
  type: str
  sample: "1.20"
pruned_fields:
  description: Fields the CRD's structural schema drops silently (unknown to this release).
  returned: success
  type: list
  elements: str
errors:
  description: Every reason the HyperConverged is refused, each with its field path and the stage that refuses it.
  returned: failed
  type: list
  elements: dict
  sample: [{"path": "spec.certConfig.ca.duration", "message": "value is too small", "stage": "validating-webhook"}]
"""
