# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The files that let one repository drive a fleet's rendered trees (``clusters/NAME/``): an Argo CD ApplicationSet
whose list generator has an element per cluster, and per cluster in the stages layout a chain of Flux
Kustomizations, one per stage folder, each depending on the one before. PRIVATE; no Ansible imports.

Argo CD's ApplicationSet list generator and its default template syntax, ``{{name}}`` parameters filled from each
element (argo-cd v2.14, docs/operator-manual/applicationset/Generators-List.md); the destination by the name Argo CD
knows the cluster by (its cluster Secret's ``name``). Flux's Kustomization ``dependsOn``, ``wait`` and
``healthChecks`` (fluxcd/kustomize-controller v1, docs/spec/v1/kustomizations.md): with ``wait`` Flux ignores
``healthChecks``, so the instances stage, whose NMState kstatus reads as ready at once, waits on the policies' CRD
instead.
"""

from __future__ import annotations

import dataclasses
import posixpath
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._flux_health import health_check_exprs
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops import FOLDERS

ARGOCD_NAMESPACE = "argocd"
APPLICATIONSET = "virt-fleet"
FLUX_NAMESPACE = "flux-system"
FLUX_SOURCE = "flux-system"
# The stage whose readiness kstatus cannot judge, and the object that says it is ready.
HEALTH_CHECKED = {"instances": {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                                "name": "nodenetworkconfigurationpolicies.nmstate.io"}}
# The kinds of each waiting stage whose status kstatus reads as ready too early (_flux_health), by group and kind.
HEALTH_EXPRESSIONS = {
    "operators": {("operators.coreos.com", "Subscription")},
    "prerequisites": {("nmstate.io", "NodeNetworkConfigurationPolicy"),
                      ("hostpathprovisioner.kubevirt.io", "HostPathProvisioner")},
    "kubevirt": {("hco.kubevirt.io", "HyperConverged"), ("kubevirt.io", "KubeVirt"), ("cdi.kubevirt.io", "CDI"),
                 ("networkaddonsoperator.network.kubevirt.io", "NetworkAddonsConfig"), ("ssp.kubevirt.io", "SSP")},
}


@dataclasses.dataclass(frozen=True)
class Member:
    """A cluster of the fleet as its GitOps files name it."""
    name: str
    # Argo CD's name of the cluster (its destination).
    destination: str
    stages: bool


@dataclasses.dataclass(frozen=True)
class Repository:
    url: str
    revision: str
    # Where the render's root sits in the repository ("" for its top).
    path: str
    project: str


def tree_path(repository: Repository, cluster: str) -> str:
    return posixpath.join(repository.path, "clusters", cluster) if repository.path else f"clusters/{cluster}"


def application_set(members: t.Sequence[Member], repository: Repository) -> dict[str, t.Any]:
    """One Application per cluster, each syncing its tree by its sync waves with server-side apply and retries (a
    wave whose kinds an earlier wave's operator serves only once it runs fails its first attempt)."""
    elements = [{"cluster": member.name, "destination": member.destination, "path": tree_path(repository, member.name)}
                for member in sorted(members, key=lambda item: item.name)]
    return {
        "apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
        "metadata": {"name": APPLICATIONSET, "namespace": ARGOCD_NAMESPACE},
        "spec": {
            "generators": [{"list": {"elements": elements}}],
            "template": {
                "metadata": {"name": "virt-{{cluster}}"},
                "spec": {
                    "project": repository.project,
                    "source": {"repoURL": repository.url, "targetRevision": repository.revision, "path": "{{path}}"},
                    "destination": {"name": "{{destination}}"},
                    "syncPolicy": {
                        "automated": {"prune": True, "selfHeal": True},
                        "syncOptions": ["ServerSideApply=true"],
                        "retry": {"limit": 10, "backoff": {"duration": "30s", "factor": 2, "maxDuration": "10m"}},
                    },
                },
            },
        },
    }


def flux_chain(member: Member, repository: Repository) -> list[dict[str, t.Any]]:
    """The cluster's Kustomizations, one per stage folder of its tree, in order."""
    chain: list[dict[str, t.Any]] = []
    previous = None
    for stage, folder in FOLDERS.items():
        name = f"virt-{folder}"
        spec: dict[str, t.Any] = {
            "interval": "10m", "retryInterval": "1m", "timeout": "10m",
            "path": "./" + posixpath.join(tree_path(repository, member.name), folder), "prune": True,
            "sourceRef": {"kind": "GitRepository", "name": FLUX_SOURCE},
        }
        if previous:
            spec["dependsOn"] = [{"name": previous}]
        if stage in HEALTH_CHECKED:
            spec["healthChecks"] = [HEALTH_CHECKED[stage]]
        else:
            spec["wait"] = True
        if stage in HEALTH_EXPRESSIONS:
            spec["healthCheckExprs"] = health_check_exprs(HEALTH_EXPRESSIONS[stage])
        chain.append({"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
                      "metadata": {"name": name, "namespace": FLUX_NAMESPACE}, "spec": spec})
        previous = name
    return chain
