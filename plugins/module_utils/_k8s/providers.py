# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which operator (or platform) serves the kinds the site writes, to say what to install when one is missing.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

# API group -> what installs its CRDs.
PROVIDERS: dict[str, str] = {
    "hco.kubevirt.io": "the HyperConverged Cluster Operator (HCO)",
    "kubevirt.io": "KubeVirt (virt-operator)",
    "cdi.kubevirt.io": "the Containerized Data Importer operator (cdi-operator)",
    "networkaddonsoperator.network.kubevirt.io": "the cluster-network-addons-operator",
    "ssp.kubevirt.io": "the SSP operator",
    "aaq.kubevirt.io": "the application-aware-quota operator",
    "migrations.kubevirt.io": "the kubevirt-migration-operator",
    "filerestore.kubevirt.io": "the file-restore operator",
    "hostpathprovisioner.kubevirt.io": "the hostpath-provisioner-operator",
    "nmstate.io": "kubernetes-nmstate (its operator and an NMState)",
    "sriovnetwork.openshift.io": "the sriov-network-operator",
    "k8s.cni.cncf.io": "Multus (the NetworkAttachmentDefinition CRD)",
    "machineconfiguration.openshift.io": "OpenShift's Machine Config Operator",
    "security.openshift.io": "OpenShift (SecurityContextConstraints)",
    "console.openshift.io": "OpenShift's console",
    "route.openshift.io": "OpenShift (Routes)",
    "monitoring.coreos.com": "prometheus-operator",
    "operators.coreos.com": "OLM (Operator Lifecycle Manager)",
    "operator.openshift.io": "the OpenShift operator that owns it (for KubeDescheduler: the Kube Descheduler Operator)",
    "instancetype.kubevirt.io": "KubeVirt (virt-operator)",
}


def kinds_of(objects: t.Iterable[t.Mapping[str, t.Any]]) -> list[tuple[str, str]]:
    """Each (apiVersion, kind) once, in first-seen order."""
    seen: dict[tuple[str, str], None] = {}
    for obj in objects:
        seen.setdefault((str(obj.get("apiVersion")), str(obj.get("kind"))), None)
    return list(seen)


def install_lines(objects: t.Iterable[t.Mapping[str, t.Any]]) -> dict[str, str]:
    """Each kind of ``objects`` once, in first-seen order, keyed ``apiVersion/kind`` as the cluster_info module's
    ``served`` is, with the line that names what provides it."""
    lines = {}
    for api_version, kind in kinds_of(objects):
        group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
        provider = PROVIDERS.get(group, f"the operator that serves {group or 'the core API'}")
        lines[f"{api_version}/{kind}"] = f"{kind} ({api_version}): install {provider}"
    return lines


def unserved(objects: t.Iterable[t.Mapping[str, t.Any]], served: t.Mapping[str, bool]) -> list[str]:
    """One line per kind the server does not serve, naming what provides it; ``served`` is keyed
    ``apiVersion/kind`` (the cluster_info module's ``served``); a kind it does not list counts as served."""
    return [line for key, line in install_lines(objects).items() if not served.get(key, True)]
