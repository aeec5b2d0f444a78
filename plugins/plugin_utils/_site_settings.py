# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site playbook's flat ``site_*`` settings: one table gives each setting's type, default, choices, range and
check. The values are read by _site_values, composed by _site_compose, and the AWX survey and the settings guide are
generated from it. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.names import DNS1123_LABEL, LABEL_VALUE, QUALIFIED_NAME
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.versions import PLATFORM
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import DEFAULT_RELEASE, known_releases
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.steps import check_overrides


@dataclasses.dataclass(frozen=True)
class Setting:
    name: str
    kind: str  # str, int, bool, list, dict, vlans
    default: t.Any
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    required: bool = False
    survey: bool = True  # credentials come from AWX credentials, not the survey
    check: t.Callable[[t.Any], str | None] | None = None

    @property
    def label(self) -> str:
        """The setting in words, as the survey asks for it."""
        return LABELS[self.name]


def _dns_label(value: t.Any) -> str | None:
    return None if DNS1123_LABEL.match(value) and len(value) <= 63 else "must be a DNS label (lower case, digits, '-')"


def _version(value: t.Any) -> str | None:
    return None if PLATFORM.match(value) else "must be MAJOR.MINOR, e.g. '1.33' or '4.19' (quote it in YAML)"


def _absolute(value: t.Any) -> str | None:
    return None if value.startswith("/") else "must be an absolute path"


def _cidr(value: t.Any) -> str | None:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return "must be a network in CIDR notation, e.g. 10.200.5.0/24"
    return None


def _address_range(value: t.Any) -> str | None:
    """A whereabouts range: CIDR or START-END/PREFIX (node_prereqs checks the ends)."""
    match = re.match(r"^([^-/\s]+)-[^-/\s]+/(\d+)\Z", value)
    if match and _cidr(f"{match.group(1)}/{match.group(2)}") is None:
        return None
    return None if _cidr(value) is None else "must be a network in CIDR notation (10.200.5.0/24) or START-END/PREFIX"


def _vendor(value: t.Any) -> str | None:
    return None if re.match(r"^[0-9a-f]{4}\Z", value) else "must be a 4-digit hexadecimal PCI vendor ID, e.g. '8086'"


def _cidrs(value: t.Any) -> str | None:
    bad = [v for v in value if not isinstance(v, str) or _cidr(v)]
    return f"every entry must be a network in CIDR notation; not: {', '.join(map(str, bad))}" if bad else None


def _labels(value: t.Any) -> str | None:
    """A node selector: Kubernetes label keys (qualified names) and label values, as the API server checks them
    (k8s.io/apimachinery pkg/util/validation IsQualifiedName, IsValidLabelValue)."""
    unquoted = [k for k, v in value.items() if not isinstance(v, str)]
    if unquoted:
        return f"label values must be strings (quote them); not: {', '.join(map(str, unquoted))}"
    keys = [k for k in value if len(k.split("/")[-1]) > 63 or not QUALIFIED_NAME.match(k)]
    if keys:
        return (f"{', '.join(repr(k) for k in keys)} is not a label key (an optional DNS-subdomain prefix and '/', "
                "then letters, digits, '-', '_', '.', starting and ending with a letter or digit)")
    values = [k for k, v in value.items() if len(v) > 63 or not LABEL_VALUE.match(v)]
    if values:
        return f"the value of {', '.join(repr(k) for k in values)} is not a label value (at most 63 characters)"
    return None


def _batch(value: t.Any) -> str | None:
    """Ansible's serial: a number of hosts or a percentage of them."""
    match = re.fullmatch(r"(\d+)(%?)", str(value).strip())
    if not match or int(match.group(1)) < 1 or (match.group(2) and int(match.group(1)) > 100):
        return f"must be a number of nodes (at least 1) or a percentage such as 25%, got {value!r}"
    return None


def _operator_versions(value: t.Any) -> str | None:
    problems = check_overrides(value, "")
    return "; ".join(p.lstrip(".") for p in problems) or None


def _checksums(value: t.Any) -> str | None:
    bad = [k for k, v in value.items() if "/" not in str(k) or not isinstance(v, str)]
    return (f"keys are <operator>/<file> and values sha256:<hex> strings; not: {', '.join(map(str, bad))}"
            if bad else None)


def _dicts(value: t.Any) -> str | None:
    return None if all(isinstance(v, dict) for v in value) else "every entry must be a mapping"


SETTINGS: tuple[Setting, ...] = (
    Setting("site_action", "str", "auto", "auto applies when a credential is set (site_kubeconfig, K8S_AUTH_KUBECONFIG, "
            "or K8S_AUTH_HOST with K8S_AUTH_API_KEY) and renders otherwise; render writes the manifests and applies "
            "nothing; apply refuses to run without a credential (in a pod, its service account is one for apply, never "
            "for auto).", choices=("auto", "render", "apply")),
    Setting("site_kubeconfig", "str", "", "Path of the kubeconfig the cluster side uses (an AWX Kubernetes credential "
            "sets K8S_AUTH_* instead).", survey=False),
    Setting("site_context", "str", "", "Context in that kubeconfig (default: its current context).", survey=False),
    Setting("site_render_dir", "str", "", "Render mode's output directory (default: ./rendered where "
            "ansible-playbook runs)."),
    Setting("site_sync_waves", "bool", True, "Render mode: each object carries Argo CD's sync wave (Namespaces, then the "
            "node prerequisites, KubeVirt, the preset) and each custom resource SkipDryRunOnMissingResource, so that a "
            "GitOps controller applies the tree in order; false leaves these annotations out."),
    Setting("site_render_layout", "str", "flat", "Render mode's layout: flat writes every file in the directory; stages "
            "writes a folder per stage (00-namespaces, 01-operators, 02-instances, 03-prerequisites, 04-kubevirt, "
            "05-presets), each with its kustomization.yaml, for a GitOps controller that orders by path (a Flux "
            "Kustomization per folder, each depending on the one before).", choices=("flat", "stages")),
    Setting("site_gitops_repo_url", "str", "", "Render mode in a fleet: the Git repository Argo CD syncs the trees "
            "from, for the fleet's ApplicationSet (default: the origin remote of the Git work tree that holds the "
            "render; without either, no ApplicationSet is written).", survey=False),
    Setting("site_gitops_revision", "str", "HEAD", "Render mode in a fleet: the revision the ApplicationSet's "
            "Applications sync.", survey=False),
    Setting("site_gitops_path", "str", "", "Render mode in a fleet: where site_render_dir sits in the repository "
            "(default: its path in the Git work tree that holds it, else below the directory ansible-playbook runs "
            "in).", survey=False),
    Setting("site_argocd_cluster", "str", "", "Render mode in a fleet: the name Argo CD knows this cluster by (its "
            "cluster Secret's name), the destination of its Application (default: the cluster's name in the fleet).",
            survey=False),
    Setting("site_argocd_project", "str", "default", "Render mode in a fleet: the Argo CD project of the "
            "Applications.", survey=False),
    Setting("site_descheduler", "bool", False, "Configure the Kube Descheduler Operator's KubeDescheduler "
            "(openshift-kube-descheduler-operator/cluster) for KubeVirt as the cluster's HCO release checks it (the "
            "devEnableEvictionsInBackground customization for 1.14, a KubeVirt profile from 1.15), so that HCO "
            "raises no HCOMisconfiguredDescheduler: only those fields, through server-side apply, never a field "
            "another manager set, and never deleted by the site."),
    Setting("site_platform", "str", "kubernetes", "Cluster platform.", choices=("kubernetes", "openshift")),
    Setting("site_platform_version", "str", None, "Kubernetes MAJOR.MINOR, or the OpenShift version on openshift.",
            required=True, check=_version),
    Setting("site_release", "str", DEFAULT_RELEASE, "HCO release whose defaults are computed (apply mode: the "
            "release the cluster runs, which a site_release set to another release must match).",
            choices=tuple(reversed(known_releases()))),
    Setting("site_release_mismatch", "str", "refuse", "When site_release names another release than the cluster "
            "runs: refuse before any write, or use-setting to compute with site_release anyway.",
            choices=("refuse", "use-setting")),
    Setting("site_mode", "str", "auto", "hco writes the HyperConverged for HCO; standalone writes the operands; auto "
            "picks hco where HCO runs (render mode: hco where site_operators_source is olm, which installs HCO; standalone "
            "otherwise).",
            choices=("auto", "hco", "standalone")),
    Setting("site_hco_namespace", "str", "kubevirt-hyperconverged", "Namespace of the HyperConverged and its "
            "operands.", check=_dns_label),
    Setting("site_preset", "str", "", "Preset applied to the HyperConverged (empty: none).", choices=("", "kkp")),
    Setting("site_state", "str", "present", "present configures the site; absent removes what the site created on "
            "the cluster, the KubeVirt side first (the HyperConverged or the operands, the preset's objects), then "
            "the node prerequisites (Namespaces, objects others made and the VM bridge's policy stay), and leaves the "
            "nodes as they are.", choices=("present", "absent")),
    Setting("site_remove_despite_vms", "bool", False, "With site_state absent: remove KubeVirt although "
            "VirtualMachines exist (false: the run stops before removing anything, naming them)."),
    Setting("site_adopt", "bool", False, "Take objects that already exist under the names the site writes (a "
            "KubeVirt installed by hand, objects another tool made) into the site's apply sets: they are then "
            "updated, and pruned when they leave the configuration. False: such an object stops the run before "
            "anything is written, named with who manages it."),
    Setting("site_strict", "bool", True, "Refuse a field of the HyperConverged that the release's CRD does not "
            "define (a typo); false drops it with a warning, as the API server would."),
    Setting("site_hyperconverged_spec", "dict", {}, "HyperConverged spec the flat settings merge into; a flat "
            "setting that contradicts it is an error.", survey=False),
    Setting("site_infra_node_selector", "dict", {}, "Node labels of the infrastructure nodes (spec.infra "
            "nodePlacement; empty: anywhere).", check=_labels),
    Setting("site_workload_node_selector", "dict", {"node-role.kubernetes.io/worker": ""}, "Node labels of the nodes "
            "that run VMs (spec.workloads nodePlacement, swap, bridges, SR-IOV).", check=_labels),
    Setting("site_node_facts", "str", "cluster", "Where the inventory's node_labels, node_taints or node_memory "
            "disagree with the live Node (apply mode, or site_nodes_snapshot): cluster plans from the Node, inventory "
            "from the inventory; each difference is a warning naming both values.", choices=("cluster", "inventory")),
    Setting("site_nodes_snapshot", "str", "", "Render mode: a file holding `kubectl get nodes -o yaml`, planned "
            "from as apply mode plans from the live Nodes (empty: the inventory's node_* facts).", survey=False),
    Setting("site_overcommit_percent", "int", 100, "Memory overcommit in percent (HyperConverged "
            "higherWorkloadDensity.memoryOvercommitPercentage); above 100 swap is sized per node.",
            minimum=10, maximum=1000),
    Setting("site_swap_file", "str", "/var/lib/virtinfra/kubevirt.swapfile", "Swap file on each VM node "
            "(Kubernetes).", check=_absolute),
    Setting("site_swap_activate", "bool", True, "Turn the swap file on now, not only at the next boot."),
    Setting("site_swap_encrypt", "bool", False, "Plain dm-crypt over the swap file with a random key per boot "
            "(Kubernetes only)."),
    Setting("site_swap_pool", "str", "", "OpenShift: a custom MachineConfigPool that gives swap to the VM workers "
            "only, when node_selector leaves other workers out (each must carry node-role.kubernetes.io/<pool>); "
            "empty: the worker pool (and master for control-plane VM nodes).",
            check=lambda value: None if value == "" else _dns_label(value)),
    Setting("site_vm_bridge", "str", "br1", "Linux bridge for the VM network.", check=_dns_label),
    Setting("site_vm_bridge_nic", "str", "", "NIC enslaved to the VM bridge (empty: no VM bridge)."),
    Setting("site_vm_vlans", "vlans", [], "VLANs trunked to the VMs: a list of IDs or {min, max} ranges, or text "
            "such as '100-200, 300'."),
    Setting("site_vm_networks", "list", [], "NetworkAttachmentDefinitions on the VM bridge: {name, namespace, "
            "vlan}.", check=_dicts),
    Setting("site_migration_nic", "str", "", "NIC of a dedicated live-migration network (empty: migrations use the "
            "pod network)."),
    Setting("site_migration_range", "str", "", "Address range of the migration network, CIDR or "
            "START-END/PREFIX (required with site_migration_nic).", check=_address_range),
    Setting("site_node_networks", "list", [], "Networks the nodes already use, which the migration range must not "
            "overlap.", check=_cidrs),
    Setting("site_sriov_nic", "str", "", "Physical function whose virtual functions are passed to VMs (empty: no "
            "SR-IOV)."),
    Setting("site_sriov_vendor", "str", "", "PCI vendor ID of that NIC, e.g. '8086' (empty: any).", check=_vendor),
    Setting("site_sriov_num_vfs", "int", 8, "Virtual functions per node.", minimum=1, maximum=256),
    Setting("site_sriov_resource", "str", "vm_sriov", "Resource name of the virtual functions."),
    Setting("site_sriov_network_namespace", "str", "default", "Namespace of the SR-IOV network's "
            "NetworkAttachmentDefinition.", check=_dns_label),
    Setting("site_hpp_pools", "list", [], "Hostpath-provisioner pools: {name, path, storage_class}.", check=_dicts),
    Setting("site_operators_source", "str", "none", "Where the operators come from, installed before anything else "
            "on the cluster: manifests (their release files; Kubernetes without OLM), olm (Subscriptions; OpenShift, "
            "or Kubernetes where OLM runs), or none (they must already run; the run stops before writing when one "
            "is missing).", choices=("none", "manifests", "olm")),
    Setting("site_operators_versions", "dict", {}, "Operator versions that override the release profile's pins, "
            "e.g. {kubevirt: v1.8.0} for one step of an upgrade.", check=_operator_versions),
    Setting("site_operators_manifests_dir", "str", "", "Local release files for air-gapped sites, "
            "<dir>/<operator>/<version>/<file> (empty: fetch them from site_operators_manifests_url).",
            check=lambda value: None if value == "" else _absolute(value)),
    Setting("site_operators_manifests_url", "str", "", "A mirror's URL pattern with {operator}, {version} and {file} "
            "(empty: the upstream release assets)."),
    Setting("site_operators_checksums", "dict", {}, "sha256:<hex> per <operator>/<file>, verified before anything "
            "is applied.", check=_checksums),
    Setting("site_operators_approval", "str", "Automatic", "OLM installPlanApproval; Manual approves exactly the "
            "InstallPlan of the CSV in site_operators_csvs.", choices=("Automatic", "Manual")),
    Setting("site_operators_csvs", "dict", {}, "OLM: the CSV to run per Subscription (hco, or an operator name): "
            "startingCSV on install, the next minor release on upgrade."),
    Setting("site_operators_catalog_source", "str", "", "OLM CatalogSource (empty: redhat-operators on OpenShift, "
            "operatorhubio-catalog elsewhere)."),
    Setting("site_operators_catalog_namespace", "str", "", "Namespace of that CatalogSource (empty: "
            "openshift-marketplace on OpenShift, olm elsewhere)."),
    Setting("site_operators_channel", "str", "stable", "OLM channel of the Subscriptions."),
    Setting("site_preflight_profile", "str", "production", "Preflight thresholds.",
            choices=("production", "testing")),
    Setting("site_preflight_enforce", "bool", False, "Fail on preflight problems instead of warning."),
    Setting("site_node_batch", "str", "100%", "Nodes prepared at once (the host play's serial): a number or a "
            "percentage; smaller batches roll swap and kubelet restarts through the cluster.", check=_batch),
    Setting("site_drift", "str", "revert", "What the cluster side does with a field someone changed on an object the "
            "site manages: revert writes the configured value back; report leaves it and lists it in the summary.",
            choices=("revert", "report")),
    Setting("site_node_max_fail_percentage", "int", 0, "Stop the rollout when more than this percentage of a batch "
            "fails (0: stop at the first failed node).", minimum=0, maximum=100),
    Setting("site_admin_kubeconfig", "str", "", "Admin kubeconfig for playbooks/automation_account.yml.",
            survey=False),
    Setting("site_admin_context", "str", "", "Context in the admin kubeconfig.", survey=False),
)
BY_NAME = {s.name: s for s in SETTINGS}

LABELS = {
    "site_action": "What to do (render the manifests or apply them)",
    "site_kubeconfig": "Kubeconfig file",
    "site_context": "Kubeconfig context",
    "site_render_dir": "Output directory of render mode",
    "site_sync_waves": "Argo CD sync waves in the rendered tree",
    "site_render_layout": "Rendered tree's layout (flat, or a folder per stage)",
    "site_descheduler": "Configure the Kube Descheduler for KubeVirt",
    "site_gitops_repo_url": "Git repository of the fleet's trees",
    "site_gitops_revision": "Git revision the fleet's Applications sync",
    "site_gitops_path": "Path of the render directory in the repository",
    "site_argocd_cluster": "Argo CD's name of this cluster",
    "site_argocd_project": "Argo CD project of the fleet's Applications",
    "site_platform": "Platform",
    "site_platform_version": "Kubernetes or OpenShift version",
    "site_release": "HCO release whose defaults are computed",
    "site_release_mismatch": "When site_release is not the release the cluster runs",
    "site_mode": "Who owns the KubeVirt operands (HCO or this collection)",
    "site_hco_namespace": "Namespace of KubeVirt",
    "site_preset": "Preset",
    "site_state": "Configure the site or remove it",
    "site_remove_despite_vms": "Remove KubeVirt although VirtualMachines exist",
    "site_adopt": "Take over existing objects of the same names",
    "site_strict": "Refuse unknown HyperConverged fields",
    "site_hyperconverged_spec": "HyperConverged spec",
    "site_infra_node_selector": "Labels of the infrastructure nodes",
    "site_workload_node_selector": "Labels of the nodes that run VMs",
    "site_node_facts": "Node facts from the cluster or the inventory",
    "site_nodes_snapshot": "Nodes snapshot file (kubectl get nodes -o yaml)",
    "site_overcommit_percent": "Memory overcommit (percent)",
    "site_swap_file": "Swap file path on the VM nodes",
    "site_swap_activate": "Turn swap on now",
    "site_swap_encrypt": "Encrypt swap",
    "site_swap_pool": "MachineConfigPool for swap (OpenShift)",
    "site_vm_bridge": "Name of the VM bridge",
    "site_vm_bridge_nic": "NIC of the VM bridge",
    "site_vm_vlans": "VLANs trunked to the VMs",
    "site_vm_networks": "VM networks on the bridge",
    "site_migration_nic": "NIC of the live-migration network",
    "site_migration_range": "Address range of the live-migration network",
    "site_node_networks": "Networks the nodes already use",
    "site_sriov_nic": "SR-IOV physical function (NIC)",
    "site_sriov_vendor": "PCI vendor ID of the SR-IOV NIC",
    "site_sriov_num_vfs": "SR-IOV virtual functions per node",
    "site_sriov_resource": "Resource name of the virtual functions",
    "site_sriov_network_namespace": "Namespace of the SR-IOV network",
    "site_hpp_pools": "Local storage pools (hostpath provisioner)",
    "site_operators_source": "Install the operators from (manifests, OLM, or none)",
    "site_operators_versions": "Operator versions overriding the release's",
    "site_operators_manifests_dir": "Local directory of the operators' release files",
    "site_operators_manifests_url": "Mirror URL pattern of the operators' release files",
    "site_operators_checksums": "Checksums of the operators' release files",
    "site_operators_approval": "OLM install plan approval",
    "site_operators_csvs": "OLM CSV per Subscription",
    "site_operators_catalog_source": "OLM catalog source",
    "site_operators_catalog_namespace": "Namespace of the OLM catalog source",
    "site_operators_channel": "OLM channel",
    "site_preflight_profile": "Preflight thresholds",
    "site_preflight_enforce": "Fail on preflight problems",
    "site_node_batch": "Nodes prepared at once",
    "site_drift": "Changes made by others: revert or report",
    "site_node_max_fail_percentage": "Failed nodes tolerated per batch (percent)",
    "site_admin_kubeconfig": "Admin kubeconfig file",
    "site_admin_context": "Admin kubeconfig context",
}

# Facts and variables the playbooks set themselves: never taken for a user's typo.
INTERNAL = frozenset({
    "site_account_read", "site_account_written", "site_cluster", "site_config", "site_expanded", "site_failed",
    "site_hyperconverged", "site_kubevirt", "site_kubevirt_rendered", "site_missing", "site_nodes", "site_plan",
    "site_plan_kubeconfigs", "site_prereqs", "site_reads", "site_render", "site_run_mode", "site_settings",
    "site_unchecked", "site_workload", "site_written", "site_summary", "site_batch_config",
    "site_descheduler_applied", "site_argocd_written",
})
