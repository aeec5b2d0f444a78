# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site settings composed into what the engine and the prerequisites take: the HyperConverged and the
node-prerequisites spec. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.merge import merge
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_values import Settings, effective


def compose(settings: Settings, nodes: list[dict[str, t.Any]]) -> tuple[dict[str, t.Any], dict[str, t.Any]]:
    """The HyperConverged (spec from site_hyperconverged_spec, placement from the flat settings that were given) and
    the node-prerequisites spec; a section whose settings are empty (no bridge NIC, no SR-IOV NIC, no pools) is left
    out rather than planned with blanks."""
    values = effective(settings)
    placement: dict[str, t.Any] = {}
    if "site_infra_node_selector" in settings.given:
        placement["infra"] = {"nodePlacement": {"nodeSelector": values["infra_node_selector"]}}
    if "site_workload_node_selector" in settings.given:
        placement["workloads"] = {"nodePlacement": {"nodeSelector": values["workload_node_selector"]}}
    hyperconverged = {
        "apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
        "metadata": {"name": "kubevirt-hyperconverged", "namespace": values["hco_namespace"]},
        "spec": merge(placement, values["hyperconverged_spec"]),
    }
    vm_nodes = values["workload_node_selector"]
    spec: dict[str, t.Any] = {
        "platform": values["platform"], "version": values["platform_version"],
        "hco_namespace": values["hco_namespace"], "nodes": nodes, "hyperconverged": hyperconverged,
        # hco_version: whether HCO deploys wasp-agent itself follows the release whose operands are computed.
        "swap": {"overcommit_percent": values["overcommit_percent"], "node_selector": vm_nodes,
                 "encrypt": values["swap_encrypt"], "hco_version": values["release"]},
    }
    if values["swap_pool"]:
        spec["swap"]["pool"] = values["swap_pool"]
    networking: dict[str, t.Any] = {}
    if values["vm_bridge_nic"]:
        networking["bridges"] = [{"name": values["vm_bridge"], "ports": [values["vm_bridge_nic"]],
                                  "vlans": values["vm_vlans"], "node_selector": vm_nodes,
                                  "networks": values["vm_networks"]}]
    if values["migration_nic"]:
        networking["migration_network"] = {"nic": values["migration_nic"], "range": values["migration_range"]}
    if networking:
        spec["networking"] = {"node_networks": values["node_networks"], **networking}
    if values["sriov_nic"]:
        nic_selector: dict[str, t.Any] = {"pfNames": [values["sriov_nic"]]}
        if values["sriov_vendor"]:
            nic_selector = {"vendor": values["sriov_vendor"], **nic_selector}
        spec["sriov"] = {
            "policies": [{"name": "vm-vfs", "resourceName": values["sriov_resource"], "nodeSelector": vm_nodes,
                          "numVfs": values["sriov_num_vfs"], "nicSelector": nic_selector}],
            "networks": [{"name": "sriov-vm", "resourceName": values["sriov_resource"],
                          "networkNamespace": values["sriov_network_namespace"]}]}
    if values["hpp_pools"]:
        spec["storage"] = {"hyperconverged": hyperconverged, "provisioner": {"storage_pools": values["hpp_pools"]}}
    return hyperconverged, spec


def for_removal(prereqs_spec: dict[str, t.Any]) -> tuple[dict[str, t.Any], list[str]]:
    """The prerequisites a removal deletes, and what it keeps and why: the VM bridge stays, since nmstate never
    reverts a deleted policy (the bridge would stay on the nodes, unmanaged); the networking guide removes it."""
    spec = {**prereqs_spec}
    notes = []
    networking = dict(spec.get("networking") or {})
    for bridge in networking.pop("bridges", []):
        notes.append(f"the VM bridge {bridge['name']} (its NodeNetworkConfigurationPolicy and networks) is kept: "
                     "nmstate does not undo a deleted policy on the nodes; remove the bridge as the networking guide "
                     "describes")
    if networking.get("migration_network") or networking.get("policies") or networking.get("nads"):
        spec["networking"] = networking
    else:
        spec.pop("networking", None)
    return spec, notes
