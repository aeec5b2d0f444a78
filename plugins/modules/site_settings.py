#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: site_settings
short_description: Validate the site playbook's site_* settings, compute its plan and decide render or apply mode
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Runs on the controller, as the first step of the site playbook. Reads every variable whose name starts with
    C(site_) (inventory, group_vars, extra vars, AWX survey answers), checks each against the settings table
    (type, choices, range), then computes the node prerequisites and the HyperConverged from them, and reports every
    problem of all of it at once, each named by the variable the user wrote (C(site_vm_networks[0].namespace),
    C(hostvars[worker3].node_memory)); an unknown C(site_) name is refused with a "did you mean" suggestion.
    Nothing is written; in apply mode the cluster's Nodes are read (one paged LIST), nothing else.
  - The plan is made from the nodes as the cluster reports them where they can be known - the live Nodes in apply
    mode, C(site_nodes_snapshot) (the output of C(kubectl get nodes -o yaml)) in render mode - and from the inventory's
    C(node_*) facts otherwise, or where the cluster has no Node yet. Every AWX job slice then plans the same cluster
    objects. Each fact the inventory gives that a Node contradicts is named with both values in a warning.
  - The nodes' facts are checked too - a node that runs VMs without C(node_memory) while memory is overcommitted and
    no Node gives it, a C(node_*) host variable close to one the site reads (C(node_memroy)), labels that are not a
    mapping.
  - AWX survey answers arrive as C(site_survey_<setting>) strings (the survey in C(extensions/awx) has no defaults,
    since AWX sends every default as an extra var that would hide the inventory's value); an answered question wins
    over the setting, a blank one leaves it. Answers are converted to the setting's type (C("150") to 150,
    C("true") to true, YAML or JSON text to a list or mapping, C("100-200, 300") to VLAN ranges).
  - Relative kubeconfig and output paths are read from the directory C(ansible-playbook) runs in and returned
    absolute; each kubeconfig is checked (exists, YAML, has the context) and a problem names the path searched.
  - C(site_hyperconverged_spec) is the HyperConverged spec; the flat settings merge into it, and a flat setting
    that contradicts it is an error naming both.
  - Chooses the mode from C(site_action) and the credentials at hand (C(site_kubeconfig), or the environment
    variables an AWX Kubernetes credential injects, C(K8S_AUTH_KUBECONFIG) or C(K8S_AUTH_HOST) with
    C(K8S_AUTH_API_KEY)), and says why.
  - Returns C(config) with every setting (names without the C(site_) prefix), the mode and the composed
    HyperConverged and node-prerequisites spec, and C(nodes) with the nodes. It sets no facts, because from ansible-core
    2.20 on, reading facts as top-level variables is deprecated; register the result instead.
  - Also returns the plan it checked, as the later steps need it - C(prereqs), C(hyperconverged), C(expanded) and
    C(render), each what M(virtinfra.hyperconverged.node_prereqs), the P(virtinfra.hyperconverged.hco_preset#filter)
    filter and M(virtinfra.hyperconverged.hco_render) return for the site's inputs - and warns as they warn (a VM
    bridge only some nodes carry, an unknown HyperConverged field without C(site_strict)). The site playbook reads
    them instead of calling those three again in every run.
  - The table of settings, with defaults, is in the collection's site settings guide; the AWX survey in
    C(extensions/awx/site_survey.json) is generated from the same table.
attributes:
  check_mode:
    support: full
    description: Reads variables only.
  diff_mode:
    support: none
    description: Changes nothing.
  action:
    support: full
    description: Runs on the controller.
  async:
    support: none
    description: Returns at once.
  platform:
    support: full
    platforms: all
    description: Runs on the controller; in apply mode it reaches the API server from there.
  idempotent:
    support: full
    description: Reads variables, the environment and, in apply mode, the cluster's Nodes only.
options:
  nodes:
    description: The inventory's nodes (C(name), C(memory), C(labels)), passed into the node-prerequisites spec.
    type: list
    elements: dict
    default: []
  nodes_group:
    description:
      - An inventory group whose hosts are the nodes, read from their C(node_memory), C(node_labels),
        C(node_taints) and C(node_provider) (C(openstack) for virtual machines, or the node's C(spec.providerID))
        variables; added to O(nodes). One pass over the inventory, so a site of hundreds of nodes
        costs no more than its variables.
    type: str
  kubeconfigs:
    description: Which kubeconfig settings must name a readable kubeconfig (when set).
    type: list
    elements: str
    choices: [kubeconfig, admin_kubeconfig]
    default: [kubeconfig]
"""

EXAMPLES = r"""
- name: Validate the site settings and choose the mode
  virtinfra.hyperconverged.site_settings:
    nodes_group: kubevirt_nodes
  register: site_settings

- name: Say which mode runs
  ansible.builtin.debug:
    msg: "{{ 'apply' if site_settings.config.apply else 'render' }} mode - {{ site_settings.mode_reason }}"
"""

RETURN = r"""
apply:
  description: Whether the site applies to a cluster (otherwise it renders).
  returned: success
  type: bool
mode_reason:
  description: Why that mode, e.g. C(a credential is set - K8S_AUTH_HOST and K8S_AUTH_API_KEY).
  returned: success
  type: str
errors:
  description: Every problem found, each starting with the variable's name.
  returned: failure
  type: list
  elements: str
config:
  description: The validated settings, the mode and the composed inputs of the plan (the site keeps it as C(site_config)).
  returned: success
  type: dict
sources:
  description: Where each setting's value came from - C(survey answer (site_survey_...)), C(extra vars),
    C(inventory or play vars), C(site_hyperconverged_spec.<path>) or C(default) - by setting name.
  returned: success
  type: dict
origins:
  description: The same as lines, C(site_overcommit_percent = 150 (inventory or play vars)); the site prints them
    with C(-v).
  returned: success
  type: list
  elements: str
nodes:
  description:
    - The nodes the plan is made for (the site keeps them as C(site_nodes)) - O(nodes), then in apply mode the
      cluster's Nodes (read once, before anything is written) or with C(site_nodes_snapshot) the snapshot's, otherwise
      the hosts of O(nodes_group) with their C(node_*) facts. C(config.nodes_from) says which.
    - Where the inventory's C(node_labels), C(node_taints), C(node_memory), C(node_architecture) or C(node_provider)
      disagree with a Node, a warning names both values; C(site_node_facts) says which is planned with. Hosts without
      a Node and Nodes without a host are named in warnings too.
  returned: success
  type: list
  elements: dict
tree:
  description:
    - In render mode, what the site writes, in the order a cluster must receive it - the operators
      (C(site_operators_source) - their Namespace, OperatorGroup and Subscription through OLM, or their release
      files' objects as the operators stage would apply them), the instances they need before they serve the site's kinds
      (kubernetes-nmstate's C(NMState)), the node prerequisites, the HyperConverged (hco mode) or the operands, and
      the preset's objects, each once - with Argo CD's C(argocd.argoproj.io/sync-wave) annotation by stage
      (Namespaces -3, operators -2, instances -1, node prerequisites 0, KubeVirt 1, the preset 2) and, on every
      custom resource, C(argocd.argoproj.io/sync-options=SkipDryRunOnMissingResource=true); without them where
      C(site_sync_waves) is false.
    - C(objects), the objects; C(folders), each object's stage folder in the stages layout (C(site_render_layout)),
      else empty; C(kustomized), every stage's folder in that layout.
  returned: in render mode
  type: dict
operators:
  description:
    - In render mode, what the tree holds of the operators - C(lines), one per Subscription or per operator with its
      version and object count; C(notes), what was moved or what the tree does not install (the summary prints
      both).
  returned: in render mode
  type: dict
requests:
  description: The API requests of the read of the Nodes, as every cluster call reports them (C(total), C(writes),
    C(by_method)).
  returned: in apply mode
  type: dict
prereqs:
  description:
    - The node prerequisites, as M(virtinfra.hyperconverged.node_prereqs) returns them for the settings' spec (with
      O(virtinfra.hyperconverged.node_prereqs#module:create_namespaces)), or for a removal (C(site_state=absent)) the
      spec C(config.removal_spec) with C(state=absent). The site keeps them as C(site_prereqs).
  returned: success
  type: dict
hyperconverged:
  description: The settings' HyperConverged with the prerequisites' patch merged into it (overcommit, migration
    network); the site keeps it as C(site_hyperconverged).
  returned: success
  type: dict
expanded:
  description: The P(virtinfra.hyperconverged.hco_preset#filter) filter's result for that HyperConverged and
    C(site_preset) (without a preset, the HyperConverged as C(hyperconverged) with no C(objects) and an empty
    C(report) and C(vm_defaults)); the site keeps it as C(site_expanded).
  returned: success
  type: dict
render:
  description: What M(virtinfra.hyperconverged.hco_render) returns for the expansion's HyperConverged, the nodes,
    C(site_release) and C(site_strict), with C(managed_by=virtinfra.hyperconverged) unless C(site_mode) is C(hco);
    the site keeps it as C(site_render).
  returned: success
  type: dict
reads:
  description:
    - What the site's one read of the cluster asks for, from the plan (the site keeps it as C(site_reads)) -
      C(kinds) and C(read) as M(virtinfra.hyperconverged.cluster_info) takes them (every kind a configuration
      writes and those the hyperconverged role checks; the live objects the prerequisites are checked against), and
      C(needs), for each ownership mode (C(hco), C(standalone)), the C(apiVersion/kind) keys of cluster_info's
      C(served) that must be served before the site writes anything, each with the line that says what to install
      for it (none for a removal).
  returned: success
  type: dict
"""
