# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.readiness import (
    condition,
    csv_phase,
    ready,
    rollout,
)


def deployment(generation=2, observed=2, want=3, **status):
    return {"kind": "Deployment", "metadata": {"generation": generation}, "spec": {"replicas": want},
            "status": {"observedGeneration": observed, **status}}


def test_deployment_needs_the_generation_observed_and_every_count():
    assert "observe generation 2" in rollout(deployment(observed=1, updatedReplicas=3, replicas=3,
                                                        availableReplicas=3)).detail
    assert rollout(deployment(updatedReplicas=2, replicas=3, availableReplicas=3)).detail == "2 of 3 replicas updated"
    assert "old replicas" in rollout(deployment(updatedReplicas=3, replicas=4, availableReplicas=3)).detail
    assert "available" in rollout(deployment(updatedReplicas=3, replicas=3, availableReplicas=2)).detail
    assert rollout(deployment(updatedReplicas=3, replicas=3, availableReplicas=3)).state == "ready"


def test_daemonset_and_statefulset():
    ds: dict[str, t.Any] = {
        "kind": "DaemonSet", "metadata": {"generation": 1},
        "status": {"observedGeneration": 1, "desiredNumberScheduled": 3, "updatedNumberScheduled": 3,
                   "numberAvailable": 2}}
    assert rollout(ds).detail == "2 of 3 updated pods available"
    ds["status"]["numberAvailable"] = 3
    assert rollout(ds).state == "ready"
    sts: dict[str, t.Any] = {
        "kind": "StatefulSet", "metadata": {"generation": 1}, "spec": {"replicas": 2},
        "status": {"observedGeneration": 1, "readyReplicas": 2, "updatedReplicas": 1, "currentRevision": "a",
                   "updateRevision": "b"}}
    assert "revision b" in rollout(sts).detail
    sts["status"]["currentRevision"] = "b"
    assert rollout(sts).state == "ready"
    with pytest.raises(ValueError):
        rollout({"kind": "ConfigMap"})


def test_a_condition_older_than_the_generation_does_not_count():
    obj: dict[str, t.Any] = {
        "metadata": {"generation": 3},
        "status": {"conditions": [{"type": "Available", "status": "True", "observedGeneration": 2}]}}
    assert "from 2" in condition(obj, "Available").detail
    obj["status"]["conditions"][0]["observedGeneration"] = 3
    assert condition(obj, "Available").state == "ready"
    # The status's observedGeneration stands in for conditions without one.
    stale = {"metadata": {"generation": 3}, "status": {"observedGeneration": 1,
                                                       "conditions": [{"type": "Ready", "status": "True"}]}}
    assert condition(stale, "Ready").state == "waiting"
    assert "not reported" in condition({"status": {}}, "Ready").detail
    assert "now False, Failing: broken" in condition(
        {"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "Failing", "message": "broken"}]}},
        "Ready").detail


def test_csv_phase():
    assert csv_phase({"status": {"phase": "Succeeded"}}).state == "ready"
    failed = csv_phase({"status": {"phase": "Failed", "reason": "InstallCheckFailed", "message": "no pods"}})
    assert failed.state == "failed" and "InstallCheckFailed: no pods" in failed.detail
    assert "now Installing" in csv_phase({"status": {"phase": "Installing"}}).detail
    assert "(none yet)" in csv_phase({}).detail


def test_ready_dispatches_by_kind():
    assert ready(deployment(updatedReplicas=3, replicas=3, availableReplicas=3)).state == "ready"
    assert ready({"kind": "ClusterServiceVersion", "status": {"phase": "Pending"}}).state == "waiting"
    crd = {"kind": "CustomResourceDefinition", "status": {"conditions": [{"type": "Established", "status": "True"}]}}
    assert ready(crd).state == "ready"
    only_ready = {"kind": "X", "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    assert ready(only_ready).state == "ready"
    assert ready({"kind": "X", "status": {}}).detail == "condition Available=True (not reported yet)"
