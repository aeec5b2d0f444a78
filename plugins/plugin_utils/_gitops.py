# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render mode's tree as a GitOps controller syncs it: the objects of each stage in the order a cluster must receive
them, each with Argo CD's sync wave, and the root kustomization that lists every file. PRIVATE; no Ansible imports.

Argo CD applies a lower wave before a higher one and waits for its objects to be healthy (argo-cd v2.14,
docs/user-guide/sync-waves.md); its dry run of a custom resource whose kind is not served yet fails the whole sync
unless the object says ``SkipDryRunOnMissingResource=true`` (docs/user-guide/sync-options.md), which every object
of a kind outside Kubernetes' own API groups here does: its operator may be installed by the same sync.
"""

from __future__ import annotations

import copy
import typing as t

WAVE = "argocd.argoproj.io/sync-wave"
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
SKIP_DRY_RUN = "SkipDryRunOnMissingResource=true"
# The stages in the order a cluster receives them, each with its wave; a Namespace goes first whatever its stage.
# The operators come before the instances they need to serve the site's kinds (kubernetes-nmstate's NMState).
WAVES: dict[str, int] = {"namespaces": -3, "operators": -2, "instances": -1, "prerequisites": 0, "kubevirt": 1,
                         "presets": 2}
# The stages layout: a folder per stage, named so that they sort in order. Flux applies one path as a whole (its
# kustomize-controller dry-runs every object before it applies any), so its order is a Kustomization per folder,
# each depending on the one before (fluxcd docs, Kustomization spec.dependsOn).
FOLDERS: dict[str, str] = {stage: f"{position:02d}-{stage}" for position, stage in enumerate(WAVES)}
# Kubernetes' own API groups (what an API server serves without any CRD): their kinds never miss.
BUILT_IN_GROUPS = frozenset({
    "", "admissionregistration.k8s.io", "apiextensions.k8s.io", "apps", "autoscaling", "batch", "certificates.k8s.io",
    "coordination.k8s.io", "discovery.k8s.io", "networking.k8s.io", "node.k8s.io", "policy",
    "rbac.authorization.k8s.io", "scheduling.k8s.io", "storage.k8s.io",
})
KUSTOMIZATION = "kustomization.yaml"


def is_custom(obj: t.Mapping[str, t.Any]) -> bool:
    """Whether the object's kind comes from a CRD (its group is not one of Kubernetes' own)."""
    api_version = str(obj.get("apiVersion") or "")
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    return group not in BUILT_IN_GROUPS


def tree(stages: t.Sequence[tuple[str, t.Sequence[t.Mapping[str, t.Any]]]], annotate: bool
         ) -> list[tuple[str, dict[str, t.Any]]]:
    """The objects of ``stages`` (name, objects; names from WAVES), each once, as copies with their stage (a
    Namespace's is "namespaces"); with ``annotate``, each with its sync wave and custom resources with SKIP_DRY_RUN."""
    seen: set[tuple[str, str, str, str]] = set()
    objects: list[tuple[str, dict[str, t.Any]]] = []
    for stage, members in stages:
        for member in members:
            metadata = member.get("metadata") or {}
            key = (str(member.get("apiVersion")), str(member.get("kind")), str(metadata.get("namespace") or ""),
                   str(metadata.get("name")))
            if key in seen:   # a Namespace two stages share
                continue
            seen.add(key)
            obj = copy.deepcopy(dict(member))
            placed = "namespaces" if obj.get("kind") == "Namespace" else stage
            if annotate:
                annotations = obj.setdefault("metadata", {}).setdefault("annotations", {})
                annotations[WAVE] = str(WAVES[placed])
                if is_custom(obj):
                    annotations[SYNC_OPTIONS] = SKIP_DRY_RUN
            objects.append((placed, obj))
    return objects


def kustomization(resources: t.Iterable[str]) -> dict[str, t.Any]:
    """A folder's kustomization: ``kubectl kustomize DIR`` yields the objects of every file and folder listed."""
    return {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "resources": sorted(name for name in resources if name != KUSTOMIZATION)}
