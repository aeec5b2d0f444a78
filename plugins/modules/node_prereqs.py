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
      - What to compute. Every key below is checked; an unknown one is refused at its path with the nearest known key.
      - The collection's guides (networking, SR-IOV, storage, OLM, memory overcommit) give every rule and an example.
    type: dict
    required: true
    suboptions:
      platform:
        description: The cluster's platform; it picks the swap mechanism and the SR-IOV flavour.
        type: str
        choices: [kubernetes, openshift]
        default: kubernetes
      version:
        description: Kubernetes or OpenShift C(MAJOR.MINOR), as text (C("4.18"), not 4.18).
        type: str
      nodes:
        description:
          - The nodes, as the inventory describes them - C(name), C(labels), C(taints), C(memory) (a quantity),
            C(disk_free), C(cgroup), C(runtime), C(nics), C(network_manager), C(iommu), C(cpu_vendor), C(provider).
          - C(provider) is the platform (C(baremetal), C(openstack)) or the node's C(spec.providerID); on a virtual
            platform (OpenStack, as the SR-IOV operator tells them) a policy may select a VF the cloud attached by
            C(netFilter).
        type: list
        elements: dict
      hco_namespace:
        description: The HyperConverged namespace (the live-migration network lives there).
        type: str
      hyperconverged:
        description: The HyperConverged, for the placement the hostpath-provisioner follows.
        type: dict
      swap:
        description: Swap for memory overcommit (guide - memory overcommit).
        type: dict
        suboptions:
          overcommit_percent:
            description: Memory overcommit in percent, at least 10; above 100 swap is sized per node.
            type: int
            default: 100
          mechanism:
            description: How swap is configured; C(auto) picks by platform and version.
            type: str
            choices: [auto, wasp-agent, limited-swap, autopilot]
            default: auto
          node_selector:
            description: Labels of the nodes that get swap.
            type: dict
            default: {node-role.kubernetes.io/worker: ""}
          pool:
            description:
              - OpenShift - a custom MachineConfigPool for the selected workers, when O(spec.swap.node_selector)
                leaves other workers out. Its nodes carry C(node-role.kubernetes.io/<pool>).
            type: str
          swap_behavior:
            description: Kubernetes - the kubelet's C(memorySwap.swapBehavior), checked per version.
            type: str
          feature_gates:
            description: Kubernetes - kubelet feature gates to set with swap, checked per version.
            type: dict
          hco_version:
            description: The HCO release (C(MAJOR.MINOR)); from 1.16 HCO deploys wasp-agent itself.
            type: str
          hco_api_version:
            description: The HyperConverged API version the overcommit setting is written for.
            type: str
            choices: [hco.kubevirt.io/v1beta1, hco.kubevirt.io/v1]
            default: hco.kubevirt.io/v1beta1
          swap_file:
            description: OpenShift - the swap file the MachineConfig provisions.
            type: str
          swap_device:
            description: Autopilot - C(file) or C(partition) (a GPT partition labelled C(OCPSWAP)).
            type: str
            choices: [file, partition]
            default: file
          encrypt:
            description: Kubernetes - the host role encrypts the swap file (plain dm-crypt, a random key per boot).
            type: bool
            default: false
          wasp:
            description: A manual wasp-agent deployment (OpenShift before HCO 1.16).
            type: dict
            suboptions:
              namespace:
                description: Its namespace.
                type: str
              image:
                description: Its image; else the C(wasp-agent) entry of O(spec.swap.wasp.csv) or O(spec.swap.wasp.related_images).
                type: str
              csv:
                description: The HCO ClusterServiceVersion, whose C(spec.relatedImages) names the image.
                type: dict
              related_images:
                description: C(spec.relatedImages) entries, C({name, image}).
                type: list
                elements: dict
              prometheus_rule:
                description: Whether to add the swap alerting PrometheusRule (default on OpenShift).
                type: bool
              extra_env:
                description: More environment variables for the agent (removed eviction variables are warned about).
                type: list
                elements: dict
              upgrade_from:
                description: C("1.0") deletes the 1.0 AlertingRule and KubeletConfig first.
                type: str
              previous_kubelet_config:
                description: The name of the 1.0 KubeletConfig to delete.
                type: str
      networking:
        description: Linux bridges (nmstate), VM networks, the live-migration network (guide - networking).
        type: dict
        suboptions:
          bridges:
            description: A NodeNetworkConfigurationPolicy per bridge, and its NetworkAttachmentDefinitions.
            type: list
            elements: dict
            suboptions:
              name:
                description: The bridge's name (a DNS label).
                type: str
                required: true
              policy_name:
                description: The policy's name (default C(<name>-policy)).
                type: str
              state:
                description: C(absent) emits a policy that removes the bridge from the nodes.
                type: str
                choices: [present, absent]
                default: present
              ports:
                description: The uplink NICs.
                type: list
                elements: str
              node_selector:
                description: Labels of the nodes that get the bridge.
                type: dict
              vlans:
                description: VLAN IDs or C({min, max}) ranges trunked on the uplink.
                type: list
                elements: raw
              native_vlan:
                description: The uplink's native VLAN.
                type: int
              mtu:
                description: The bridge's MTU.
                type: int
              stp:
                description: C(true), C(false) or C({enabled, hello_time, forward_delay, max_age, priority}).
                type: raw
              carries_node_ip:
                description: The uplink carries the node's IP - the bridge takes the NIC's MAC and keeps DHCP.
                type: bool
                default: false
              copy_mac:
                description: With O(spec.networking.bridges[].carries_node_ip), copy the NIC's MAC (C(false) is flagged).
                type: bool
                default: true
              static_ip:
                description: Refused - move static addresses with a hand-written policy in O(spec.networking.policies).
                type: raw
              max_unavailable:
                description: How many nodes nmstate configures at once (a count or a percentage).
                type: raw
              networks:
                description:
                  - NetworkAttachmentDefinitions on the bridge, C({name, namespace, vlan, vlan_trunk,
                    mac_spoof_check, hairpin, promiscuous, mtu, cni_type, resource_annotation}).
                type: list
                elements: dict
          policies:
            description: Hand-written NodeNetworkConfigurationPolicies, checked with nmstate's rules.
            type: list
            elements: dict
          existing_policies:
            description: The cluster's NNCPs, for nmstate's update rules (the prerequisites role reads them).
            type: list
            elements: dict
          migration_network:
            description: A dedicated live-migration network (macvlan and whereabouts).
            type: dict
            suboptions:
              name:
                description: The NetworkAttachmentDefinition's name.
                type: str
                default: migration-net
              namespace:
                description: Its namespace (default O(spec.hco_namespace)).
                type: str
              nic:
                description: The NIC on every node.
                type: str
                required: true
              range:
                description: The whereabouts range (a CIDR or C(START-END/PREFIX)).
                type: str
                required: true
              exclude:
                description: Addresses or CIDRs whereabouts leaves out.
                type: list
                elements: str
              mtu:
                description: The macvlan interface's MTU.
                type: int
              nic_mtu:
                description: The NIC's MTU, to check O(spec.networking.migration_network.mtu) against.
                type: int
          node_networks:
            description: The nodes' own networks (CIDRs) that the migration range must not overlap.
            type: list
            elements: str
          ovn_bridge_nics:
            description: NICs in OVN's C(br-ex), which no bridge may take.
            type: list
            elements: str
          bridge_cni_version:
            description: The bridge CNI plugin version on the nodes (VLAN trunk behaviour changed in v1.8.0).
            type: str
          dns_probe_host:
            description: Writes the NMState singleton with C(probeConfiguration.dns.host).
            type: str
          disconnected:
            description: A disconnected site (nmstate skips its DNS probe without O(spec.networking.dns_probe_host)).
            type: bool
            default: false
          nmstate_name:
            description: The NMState singleton's name.
            type: str
            default: nmstate
          recreate_changed_capture:
            description:
              - nmstate's webhook refuses to change the C(capture) of a policy on the cluster, and so does this
                module by default. C(true) deletes such a policy and creates it again instead (see RV(delete_first)).
            type: bool
            default: false
          nads:
            description:
              - NetworkAttachmentDefinitions from raw CNI configs, any plugin, for networks managed elsewhere (a bridge
                another policy creates, OVN localnet, macvlan...). Each C({name, namespace, config, resource_name,
                state}).
              - C(config) is the CNI config as a mapping or its JSON text, a single plugin or a conflist (C(plugins));
                it is checked as OpenShift's NAD admission and libcni load it, with the bridge plugin's own rules, and
                its name may differ from the NAD's. C(resource_name) sets the C(k8s.v1.cni.cncf.io/resourceName)
                annotation.
              - A whereabouts C(ipam) (C(range), C(range_start), C(range_end), C(exclude), C(ipRanges), C(gateway))
                is previewed in RV(address_preview).
              - C(state=absent) deletes the NAD, only if this collection's apply set created it.
            type: list
            elements: dict
      sriov:
        description: SR-IOV policies and networks, checked as the operator's webhook does (guide - SR-IOV).
        type: dict
        suboptions:
          flavour:
            description: Whose admission rules apply (default from O(spec.platform)).
            type: str
            choices: [upstream, openshift]
          operator_namespace:
            description: The SR-IOV operator's namespace.
            type: str
          supported_nics:
            description:
              - The cluster's supported-NIC ConfigMap C(data) (or a list of its values), each C(vendor pf-device
                vf-device); replaces the built-in list of the flavour, and its VF devices are what a virtual node's
                NIC may be.
            type: raw
          operator_config:
            description: The SriovOperatorConfig C(default) spec.
            type: dict
          existing_policies:
            description: The cluster's policies, for overlap checks (the prerequisites role reads them).
            type: list
            elements: dict
          node_states:
            description: C({node - [SriovNetworkNodeState interfaces]}), for PF names and link types.
            type: dict
          dev_mode:
            description: The operator's development mode (any NIC accepted).
            type: bool
            default: false
          allow_control_plane:
            description: Drop the warning and the refusal for control-plane nodes.
            type: bool
            default: false
          policies:
            description: SriovNetworkNodePolicy specs plus C(name) and optional C(namespace).
            type: list
            elements: dict
            suboptions:
              name:
                description: The policy's name.
                type: str
                required: true
              namespace:
                description: Its namespace (default the operator's).
                type: str
              state:
                description:
                  - C(absent) deletes the policy (only if this collection's apply set created it); nothing else of
                    the entry is needed or checked.
                type: str
                choices: [present, absent]
                default: present
              resourceName:
                description: The device plugin resource name.
                type: str
                required: true
              numVfs:
                description: VFs per PF.
                type: int
                required: true
              nicSelector:
                description: Which PFs.
                type: dict
                required: true
                suboptions:
                  vendor:
                    description: PCI vendor ID as text (C("8086"))
                    type: str
                  deviceID:
                    description: PCI device ID as text.
                    type: str
                  pfNames:
                    description: PF names, with VF ranges C(pf#start-end).
                    type: list
                    elements: str
                  rootDevices:
                    description: PF PCI addresses.
                    type: list
                    elements: str
                  netFilter:
                    description: An OpenStack network filter (exclusive with the others).
                    type: str
              nodeSelector:
                description: Labels of the nodes to configure.
                type: dict
                required: true
              deviceType:
                description: C(vfio-pci) (default, for VMs) or C(netdevice).
                type: str
              priority:
                description: 0-99 (default 99).
                type: int
              mtu:
                description: The PF's MTU.
                type: int
              isRdma:
                description: RDMA mode.
                type: bool
              linkType:
                description: C(eth) or C(ib).
                type: str
              eSwitchMode:
                description: C(legacy) or C(switchdev).
                type: str
              excludeTopology:
                description: Leave the VFs out of topology hints.
                type: bool
              externallyManaged:
                description: The PF's VFs are created outside the operator.
                type: bool
              needVhostNet:
                description: Mount /dev/vhost-net.
                type: bool
              vdpaType:
                description: C(virtio) or C(vhost) (switchdev only).
                type: str
              bridge:
                description: The bridge of a switchdev policy.
                type: dict
          networks:
            description:
              - SriovNetwork specs plus C(name) and optional C(namespace) - C(resourceName), C(networkNamespace),
                C(vlan), C(vlanQoS), C(vlanProto), C(spoofChk), C(trust), C(linkState), C(minTxRate), C(maxTxRate),
                C(ipam), C(capabilities), C(metaPlugins), C(logLevel), C(logFile), and C(state) (C(absent) deletes
                the network, only if this collection's apply set created it).
            type: list
            elements: dict
      storage:
        description: The hostpath-provisioner (guide - storage).
        type: dict
        suboptions:
          provisioner:
            description: The single HostPathProvisioner.
            type: dict
            suboptions:
              name:
                description: Its name.
                type: str
                default: hostpath-provisioner
              state:
                description:
                  - C(absent) deletes the HostPathProvisioner and its StorageClasses (only if this collection's apply
                    set created them); the host directories and the volumes in them are kept.
                type: str
                choices: [present, absent]
                default: present
              storage_pools:
                description: Pools, C({name, path, storage_class, default, pvc_template, snapshot_provider}).
                type: list
                elements: dict
              path_config:
                description: The legacy C({path}) form instead of pools.
                type: dict
              storage_class:
                description: The StorageClass of the legacy form.
                type: str
              default:
                description: Make that StorageClass the cluster default.
                type: bool
              volume_binding_mode:
                description: The StorageClasses' binding mode.
                type: str
                default: WaitForFirstConsumer
              image_pull_policy:
                description: The CR's C(imagePullPolicy).
                type: str
          provisioners:
            description: Refused when it holds more than one (the operator takes a single CR).
            type: list
            elements: dict
      olm:
        description: OLM subscriptions and their operator-pod placement (guide - OLM).
        type: dict
        suboptions:
          subscriptions:
            description:
              - C({name, namespace, source, source_namespace, channel, starting_csv, install_plan_approval, config,
                operator_group, subscription_name, target_namespaces}).
            type: list
            elements: dict
  create_namespaces:
    description:
      - Put a Namespace object first for every namespace the objects live in and do not declare, and for
        C(spec.hco_namespace) when given (the migration network lives there, and the site playbook lets this call
        own that namespace so that one apply set manages it).
    type: bool
    default: false
  state:
    description:
      - C(absent) computes and checks the same objects, then returns them all in RV(delete) and none in RV(objects),
        for the C(virtinfra.hyperconverged.prerequisites) role to delete what its apply set created. An NNCP that still
        configures an interface is refused (nmstate never reverts a deleted policy).
    type: str
    choices: [present, absent]
    default: present
  cluster_info:
    description:
      - The result of a M(virtinfra.hyperconverged.cluster_info) call whose C(read) lists the kinds the spec reads
        (filter C(virtinfra.hyperconverged.cluster_reads('prerequisites')) gives them). What the cluster has goes in
        beneath the spec, which wins where it gives a value - the live NodeNetworkConfigurationPolicies as
        C(networking.existing_policies) (a policy nmstate is still rolling out is not changed; one whose C(capture)
        changes is deleted and created again), the SriovNetworkNodePolicies as C(sriov.existing_policies) and the
        SriovNetworkNodeStates' C(status.interfaces) as C(sriov.node_states) by node.
      - A result without the read of a kind the spec needs is refused, not taken for a cluster without such objects.
      - The C(virtinfra.hyperconverged.prerequisites) role passes its C(prerequisites_cluster_info) or its own read here.
    type: dict
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
delete:
  description:
    - The objects the spec marks C(state=absent) (SR-IOV policies and networks, NetworkAttachmentDefinitions, the
      hostpath-provisioner CR and its StorageClasses), as references. The C(virtinfra.hyperconverged.prerequisites)
      role deletes each only where its apply set created it; an object someone else made is kept, with a warning.
  returned: success
  type: list
  elements: dict
address_preview:
  description:
    - Per whereabouts range of a NetworkAttachmentDefinition (the O(spec.networking.nads) and the migration network),
      C({nad, range, network, first, last, count}) with C(exclude) and C(range_start)/C(range_end) applied; a range
      with no address to hand out (a /31 or /32, or one fully excluded) is also a warning.
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
storage_names:
  description:
    - The names the hostpath-provisioner operator derives, so they can be found on the cluster
      C({daemonset, legacy_daemonset, pools}); per pool C({name, storage_pool_label, mount, csi_path, snapshots_path,
      claims}), names longer than 63 characters shortened with the operator's FNV-1a hash.
  returned: success
  type: dict
errors:
  description: Every problem, each C({path, message, stage}).
  returned: failure
  type: list
  elements: dict
"""
