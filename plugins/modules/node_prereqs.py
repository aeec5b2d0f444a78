#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: node_prereqs
short_description: Compute the cluster objects for node prerequisites (swap, bridges, SR-IOV, local storage, OLM)
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Computes, on the controller and without a cluster, the objects a bare-metal KubeVirt cluster needs besides its
    operands, and the HyperConverged settings that go with them. Every section is validated first; a refusal lists
    every problem with its field path and returns no object. Every key is checked, at every depth the spec defines;
    an unknown one (C(polices), C(vlan) for C(vlans)) is refused at its path with the nearest known key, and its
    section is not checked further, so a typo gives one error.
  - C(swap) - swap size per node (C(RAM x (overcommit/100 - 1)), MiB rounded up, 0 at or below 100 percent) and the
    mechanism for the platform and version - vanilla Kubernetes gets a kubelet C(LimitedSwap) configuration (NodeSwap
    gate rules per version, cgroup v2 required from 1.30); OpenShift 4.16-4.19 the manual wasp-agent objects (least
    privilege), a KubeletConfig with C(failSwapOn=false) and a MachineConfig, one of each per MachineConfigPool the VM
    nodes are in (C(master) for the control plane of a compact or single-node cluster); an HCO that deploys
    wasp-agent itself (C(hco_version) 1.16 and later, the default from 4.20) gets no second one; 4.21
    and later never get a KubeletConfig with swap keys; C(autopilot) (HCO 1.18+) provisions the file autopilot
    activates and sets the HyperConverged annotation. wasp-agent and kubelet LimitedSwap are never combined. The
    MachineConfig separates provisioning from activation so swap survives a reboot.
  - C(networking) - nmstate NodeNetworkConfigurationPolicies for Linux bridges (VLAN trunks on the uplink, native
    VLAN, MTU, taking over the node IP with the NIC MAC and DHCP), bridge NetworkAttachmentDefinitions with the
    bridge-marker resource annotation, and a dedicated live-migration network (macvlan + whereabouts, range overlap
    checks) that also sets HyperConverged C(liveMigrationConfig.network).
  - C(sriov) - SriovNetworkNodePolicy and SriovNetwork objects checked with the sriov-network-operator's admission
    rules for the C(upstream) or C(openshift) flavour (resource names, supported NICs, pfNames VF ranges, numVfs
    bounds per vendor, overlaps with existing policies; a schedulable control-plane node is configured with a warning
    naming the drain and reboot, one tainted C(NoSchedule) is refused), and the NADs the operator will generate.
  - C(storage) - the single HostPathProvisioner CR (storage pools or pathConfig), placed where VMs run (the
    HyperConverged workloads placement), and one WaitForFirstConsumer StorageClass per pool.
  - C(olm) - Subscriptions and OperatorGroups with operator-pod placement (C(spec.config)), refusing the
    C(podAntiAffinity={}) trap and approval values OLM would misread.
attributes:
  check_mode:
    support: full
    description: Nothing is changed in any mode.
  diff_mode:
    support: none
    description: Nothing is changed.
  action:
    support: full
    description: Runs on the controller as an action plugin.
  async:
    support: none
    description: Computation takes milliseconds.
  platform:
    support: full
    platforms: all
    description: Needs no connection to the target.
  idempotent:
    support: full
    description: The same input always gives the same objects.
options:
  spec:
    description:
      - Keys C(platform) (C(kubernetes) or C(openshift)), C(version) (Kubernetes or OpenShift MAJOR.MINOR),
        C(nodes) (inventory, each C({name, labels, memory, disk_free, cgroup, runtime, nics, network_manager,
        iommu, cpu_vendor})), C(hco_namespace),
        C(hyperconverged) (for placement), and the sections C(swap), C(networking), C(sriov), C(storage), C(olm).
      - See the collection's guides (C(docs/docsite/rst/guide_*.rst)) for every key of every section.
    type: dict
    required: true
  create_namespaces:
    description:
      - Put a Namespace object first for every namespace the objects live in and do not declare, and for
        C(spec.hco_namespace) when given (the migration network lives there, and the site playbook lets this call
        own that namespace so that one apply set manages it).
    type: bool
    default: false
seealso:
  - module: virtinfra.hyperconverged.k8s_apply
  - module: virtinfra.hyperconverged.hco_render
"""

EXAMPLES = r"""
- name: Compute swap, bridge and storage objects for an OpenShift 4.18 cluster
  virtinfra.hyperconverged.node_prereqs:
    spec:
      platform: openshift
      version: "4.18"
      hco_namespace: openshift-cnv
      nodes: "{{ cluster_nodes }}"
      swap:
        overcommit_percent: 150
      networking:
        bridges:
          - name: br1
            ports: [eno2]
            vlans: [{min: 100, max: 200}]
            networks:
              - {name: vlan100-net, namespace: vms, vlan: 100}
        migration_network:
          nic: eno3
          range: 10.200.5.0/24
      storage:
        provisioner:
          storage_pools:
            - {name: local, path: /var/hpvolumes}
  register: prereqs
"""

RETURN = r"""
objects:
  description: The objects to apply, section by section.
  returned: success
  type: list
  elements: dict
delete_first:
  description:
    - Objects to delete before applying, because the cluster refuses to change them in place (an NNCP whose
      C(capture) changes) or an upgrade replaces them (wasp-agent 1.0 leftovers). Deleting a missing object is a no-op.
  returned: success
  type: list
  elements: dict
network_rollout:
  description: Per NNCP, C({policy, matching_nodes, nodes_at_once}) from the node inventory and C(maxUnavailable).
  returned: success
  type: list
  elements: dict
hyperconverged:
  description: Merge patch for the HyperConverged (overcommit percentage, migration network, autopilot annotation).
  returned: success
  type: dict
swap:
  description:
    - C({mechanism, overcommit_percent, nodes, swap_mib, kubelet_config, hyperconverged, encrypt, delete_first})
      plus C(activation) for the autopilot.
    - C(encrypt) tells the host role C(virtinfra.hyperconverged.swap) to encrypt the swap file (Kubernetes only).
  returned: when the swap section is given
  type: dict
generated_nads:
  description: The NetworkAttachmentDefinitions the SR-IOV operator will generate (for review, not applied).
  returned: success
  type: list
  elements: dict
storage_directories:
  description: Host directories of the hostpath-provisioner pools (for the host role).
  returned: success
  type: list
  elements: str
storage_volume_roots:
  description: Per pool, C({pool, path, volumes, snapshots}), where the CSI driver keeps its volumes (C(<path>/csi)).
  returned: success
  type: list
  elements: dict
storage_pool_claims:
  description: The PVCs the hostpath-provisioner operator creates for C(pvc_template) pools, one per node, each
    C({pool, node, name, storage, mount}).
  returned: success
  type: list
  elements: dict
errors:
  description: Every problem, each C({path, message, stage}).
  returned: failure
  type: list
  elements: dict
"""
