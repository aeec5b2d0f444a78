# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HCO-managed wasp-agent objects (node-prereqs A.4/A.8 and vectors KC-12 to KC-15)."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render


def hyperconverged(percent=150, annotations=None, infra=None):
    spec = {"higherWorkloadDensity": {"memoryOvercommitPercentage": percent}}
    if infra is not None:
        spec["infra"] = {"nodePlacement": infra}
    return {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
            "metadata": {"name": "kubevirt-hyperconverged", "namespace": "openshift-cnv",
                         "annotations": annotations or {}}, "spec": spec}


def wasp(hc, platform="openshift", release="1.20"):
    operands = render(hyperconverged=hc, release=release, cluster={"platform": platform, "namespace": "openshift-cnv"},
                      environment={"variables": {"WASP_AGENT_IMAGE": "quay.io/example/wasp-agent:v1"}}).operands
    return {o["kind"]: o for o in operands
            if (o["metadata"].get("labels") or {}).get("app.kubernetes.io/component") == "wasp-agent"}


def test_deployed_above_100_percent_on_openshift():  # KC-14
    objects = wasp(hyperconverged())
    assert set(objects) == {"ServiceAccount", "SecurityContextConstraints", "DaemonSet"}
    daemonset = objects["DaemonSet"]
    assert (daemonset["metadata"]["namespace"], daemonset["metadata"]["name"]) == ("openshift-cnv", "wasp-agent")
    pod = daemonset["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["image"] == "quay.io/example/wasp-agent:v1" and container["imagePullPolicy"] == "IfNotPresent"
    assert container["securityContext"] == {"privileged": True}
    assert container["resources"] == {"requests": {"cpu": "100m", "memory": "50M"}}
    assert (pod["hostPID"], pod["hostUsers"], pod["serviceAccountName"], pod["priorityClassName"],
            pod["terminationGracePeriodSeconds"]) == (True, True, "wasp", "system-node-critical", 5)
    assert daemonset["spec"]["updateStrategy"] == {"type": "RollingUpdate",
                                                   "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert daemonset["spec"]["template"]["metadata"]["labels"]["name"] == "wasp-agent"
    assert objects["SecurityContextConstraints"]["users"] == ["system:serviceaccount:openshift-cnv:wasp"]
    assert "namespace" not in objects["SecurityContextConstraints"]["metadata"]


@pytest.mark.parametrize("percent, annotations, platform, release", [
    (100, None, "openshift", "1.20"),                                                 # SW-06
    (150, {"platform.kubevirt.io/autopilot": "foo, swap-enable"}, "openshift", "1.20"),  # KC-12
    (150, {"platform.kubevirt.io/autopilot": "true"}, "openshift", "1.20"),           # KC-13
    (150, None, "kubernetes", "1.20"),                                                # HCO registers it on OpenShift only
    (150, None, "openshift", "1.14"),                                                 # before HCO 1.16
])
def test_not_deployed(percent, annotations, platform, release):
    assert wasp(hyperconverged(percent, annotations), platform, release) == {}


def test_follows_the_infra_placement():  # KC-15
    infra = {"nodeSelector": {"node-role.kubernetes.io/infra": ""},
             "tolerations": [{"key": "infra", "operator": "Exists", "effect": "NoSchedule"}]}
    pod = wasp(hyperconverged(infra=infra))["DaemonSet"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"node-role.kubernetes.io/infra": ""}
    assert pod["tolerations"] == infra["tolerations"]
    assert "affinity" not in pod


def test_default_image_is_the_csv_pinned_digest():
    # node-prereqs.md, wasp-agent Image: HCO 1.20.0's CSV pins this digest (WASP_AGENT_VERSION v1.2.2).
    operands = render(hyperconverged=hyperconverged(), release="1.20",
                      cluster={"platform": "openshift", "namespace": "openshift-cnv"}).operands
    daemonset = next(o for o in operands if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "wasp-agent")
    assert daemonset["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "quay.io/openshift-virtualization/wasp-agent@sha256:"
        "daaf1bd032a32a99ef8e5c9d7d40d6732713b0cbfe49952d6d2ce5fa38e78294")
