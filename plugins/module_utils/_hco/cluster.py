# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Cluster facts HCO derives from nodes, and Kubernetes node-selector matching. PRIVATE."""

from __future__ import annotations

import collections
import dataclasses
import typing as t

CONTROL_PLANE_LABELS = ("node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master")
WORKER_LABEL = "node-role.kubernetes.io/worker"
ARBITER_LABEL = "node-role.kubernetes.io/arbiter"


def default_nodes() -> list[dict[str, t.Any]]:
    """Three control-plane and three worker amd64 nodes, the topology HCO's examples assume."""
    nodes = []
    for role, prefix in (("control-plane", "cp"), ("worker", "worker")):
        for index in range(3):
            name = f"{prefix}-{index}"
            labels = {f"node-role.kubernetes.io/{role}": "", "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name}
            if role == "control-plane":
                labels["node-role.kubernetes.io/master"] = ""
            nodes.append({"name": name, "labels": labels, "architecture": "amd64"})
    return nodes


def _requirement_matches(requirement: t.Mapping[str, t.Any], values_by_key: t.Mapping[str, str]) -> bool:
    key = requirement.get("key", "")
    operator = requirement.get("operator", "")
    values = requirement.get("values") or []
    present = key in values_by_key
    actual = values_by_key.get(key)
    if operator == "In":
        return present and actual in values
    if operator == "NotIn":
        return not present or actual not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt"):
        try:
            left, right = int(str(actual)), int(str(values[0]))
        except (ValueError, IndexError, TypeError):
            return False
        return present and (left > right if operator == "Gt" else left < right)
    return False


def node_matches(node: t.Mapping[str, t.Any], node_selector: t.Mapping[str, str], affinity: t.Any) -> bool:
    """What ``nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`` answers."""
    labels = node.get("labels") or {}
    if any(labels.get(k) != v for k, v in (node_selector or {}).items()):
        return False
    required = (((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution"))
    if required is None:
        return True
    fields = {"metadata.name": node.get("name", "")}
    for term in required.get("nodeSelectorTerms") or []:
        expressions = term.get("matchExpressions") or []
        match_fields = term.get("matchFields") or []
        if not expressions and not match_fields:
            continue  # an empty term matches no node
        if all(_requirement_matches(r, labels) for r in expressions) and all(
            _requirement_matches(r, fields) for r in match_fields
        ):
            return True
    return False


@dataclasses.dataclass(frozen=True)
class ClusterFacts:
    platform: str
    namespace: str
    base_domain: str
    control_plane_nodes: int
    worker_nodes: int
    workload_architectures: tuple[str, ...]
    control_plane_architectures: tuple[str, ...]
    default_architecture: str
    apiserver_tls_profile: t.Mapping[str, t.Any] | None
    # PrometheusRule and ServiceMonitor CRDs present (OpenShift ships them; plain Kubernetes usually does not).
    monitoring: bool = False
    #: nodes labelled node-role.kubernetes.io/arbiter (OpenShift's two-node with arbiter topology).
    arbiter_nodes: int = 0

    @property
    def is_openshift(self) -> bool:
        return self.platform == "openshift"

    @property
    def infrastructure_highly_available(self) -> bool:
        return self.worker_nodes >= 2

    @property
    def control_plane_exists(self) -> bool:
        return self.control_plane_nodes >= 1


def _has_workload_requirements(placement: t.Mapping[str, t.Any] | None) -> bool:
    if not placement:
        return False
    node_affinity = ((placement.get("affinity") or {}).get("nodeAffinity") or {})
    return bool(placement.get("nodeSelector")) or node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") is not None


def derive_facts(
    nodes: t.Sequence[t.Mapping[str, t.Any]],
    workloads_placement: t.Mapping[str, t.Any] | None,
    platform: str,
    namespace: str,
    base_domain: str,
    apiserver_tls_profile: t.Mapping[str, t.Any] | None,
    monitoring: bool | None = None,
) -> ClusterFacts:
    """Count roles and collect architectures as HCO's node watcher does."""
    workers = control_planes = arbiters = 0
    workload_count: collections.Counter[str] = collections.Counter()
    cp_arches: set[str] = set()
    use_placement = _has_workload_requirements(workloads_placement)
    for node in nodes:
        labels = node.get("labels") or {}
        arch = node.get("architecture") or ""
        is_worker = WORKER_LABEL in labels
        workers += is_worker
        arbiters += ARBITER_LABEL in labels
        if use_placement:
            is_workload = node_matches(node, (workloads_placement or {}).get("nodeSelector") or {},
                                       (workloads_placement or {}).get("affinity"))
        else:
            is_workload = is_worker
        if is_workload and arch:
            workload_count[arch] += 1
        if any(label in labels for label in CONTROL_PLANE_LABELS):
            control_planes += 1
            if arch:
                cp_arches.add(arch)
    workload_arches = tuple(sorted(workload_count))
    cp_sorted = tuple(sorted(cp_arches))
    if cp_sorted and cp_sorted[0] in workload_arches:
        default_arch = cp_sorted[0]
    else:
        default_arch = ""
        best = 0
        for arch in workload_arches:
            if workload_count[arch] > best:
                best, default_arch = workload_count[arch], arch
    return ClusterFacts(
        platform=platform,
        namespace=namespace,
        base_domain=base_domain,
        control_plane_nodes=control_planes,
        worker_nodes=workers,
        workload_architectures=workload_arches,
        control_plane_architectures=cp_sorted,
        default_architecture=default_arch,
        apiserver_tls_profile=apiserver_tls_profile,
        monitoring=platform == "openshift" if monitoring is None else bool(monitoring),
        arbiter_nodes=arbiters,
    )
