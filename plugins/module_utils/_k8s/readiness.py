# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What "ready" means for an object of each kind, so that a stale status never passes for a fresh one.

Workloads as ``kubectl rollout status`` judges them (kubectl, pkg/polymorphichelpers/rollout_status.go:
DeploymentStatusViewer, DaemonSetStatusViewer, StatefulSetStatusViewer): the controller has observed the object's
generation, and updated, ready and available counts meet the spec. A condition counts only when it is not older
than the object's generation (its own ``observedGeneration``, or the status's). A ClusterServiceVersion by its
phase (OLM: Succeeded; Failed with its message).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

State = t.Literal["ready", "waiting", "failed"]


@dataclasses.dataclass(frozen=True)
class Verdict:
    state: State
    detail: str      # what it is waiting for, or why it failed; "" when ready


READY = Verdict("ready", "")
WORKLOADS = frozenset({"Deployment", "DaemonSet", "StatefulSet"})


def _generation_seen(obj: t.Mapping[str, t.Any]) -> str:
    generation = (obj.get("metadata") or {}).get("generation")
    observed = (obj.get("status") or {}).get("observedGeneration")
    if generation is not None and (observed is None or observed < generation):
        return f"its controller to observe generation {generation} (observed {observed})"
    return ""


def _first_short(*counts: tuple[int, int, str]) -> Verdict:
    """Waiting on the first count below what it should reach (have, should, what to say), else ready: the order in
    which kubectl's rollout status checks a workload (k8s.io/kubectl, pkg/polymorphichelpers/rollout_status.go)."""
    for have, should, said in counts:
        if have < should:
            return Verdict("waiting", said)
    return READY


def rollout(obj: t.Mapping[str, t.Any]) -> Verdict:
    kind = obj.get("kind")
    seen = _generation_seen(obj)
    if seen:
        return Verdict("waiting", seen)
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    if kind == "Deployment":
        want = spec.get("replicas", 1)
        updated, total = status.get("updatedReplicas", 0), status.get("replicas", 0)
        available = status.get("availableReplicas", 0)
        return _first_short((updated, want, f"{updated} of {want} replicas updated"),
                            (updated, total, f"{total - updated} old replicas pending termination"),
                            (available, updated, f"{available} of {updated} updated replicas available"))
    if kind == "DaemonSet":
        want = status.get("desiredNumberScheduled", 0)
        updated, available = status.get("updatedNumberScheduled", 0), status.get("numberAvailable", 0)
        return _first_short((updated, want, f"{updated} of {want} pods updated"),
                            (available, want, f"{available} of {want} updated pods available"))
    if kind == "StatefulSet":
        want = spec.get("replicas", 1)
        ready, updated = status.get("readyReplicas", 0), status.get("updatedReplicas", 0)
        if ((spec.get("updateStrategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"
                and status.get("updateRevision") != status.get("currentRevision")):
            return Verdict("waiting", f"{updated} of {want} pods at revision {status.get('updateRevision')}")
        return _first_short((ready, want, f"{ready} of {want} pods ready"))
    raise ValueError(f"{kind} has no rollout")


def condition(obj: t.Mapping[str, t.Any], kind: str, status: str = "True") -> Verdict:
    """The condition ``kind`` at ``status``, not older than the object's generation."""
    generation = (obj.get("metadata") or {}).get("generation")
    whole = (obj.get("status") or {}).get("observedGeneration")
    for item in (obj.get("status") or {}).get("conditions") or []:
        if item.get("type") != kind:
            continue
        observed = item.get("observedGeneration", whole)
        if generation is not None and observed is not None and observed < generation:
            return Verdict("waiting", f"condition {kind} to be reported for generation {generation} "
                                      f"(it is from {observed})")
        if str(item.get("status")) != status:
            reason = ": ".join(x for x in (item.get("reason"), item.get("message")) if x)
            return Verdict("waiting", f"condition {kind}={status} (now {item.get('status')}"
                                      + (f", {reason})" if reason else ")"))
        return READY
    return Verdict("waiting", f"condition {kind}={status} (not reported yet)")


def csv_phase(obj: t.Mapping[str, t.Any]) -> Verdict:
    status = obj.get("status") or {}
    phase = status.get("phase") or "(none yet)"
    if phase == "Succeeded":
        return READY
    detail = ": ".join(x for x in (status.get("reason"), status.get("message")) if x)
    if phase == "Failed":
        return Verdict("failed", f"phase Failed{' - ' + detail if detail else ''}")
    return Verdict("waiting", f"phase Succeeded (now {phase}{', ' + detail if detail else ''})")


def ready(obj: t.Mapping[str, t.Any]) -> Verdict:
    """Ready as the object's kind defines it: a rollout, a CSV phase, or a fresh Available (else Ready) condition."""
    kind = obj.get("kind")
    if kind in WORKLOADS:
        return rollout(obj)
    if kind == "ClusterServiceVersion":
        return csv_phase(obj)
    if kind == "CustomResourceDefinition":
        return condition(obj, "Established")
    types = {c.get("type") for c in (obj.get("status") or {}).get("conditions") or []}
    return condition(obj, "Available" if "Available" in types or "Ready" not in types else "Ready")
