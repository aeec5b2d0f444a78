# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HCO alerts a configuration will raise, against HCO's rules at each release: the descheduler check
(v1.14.0 pkg/util/cluster.go RefreshDeschedulerCR; v1.15.2 to 03da3cff controllers/descheduler,
isDeschedulerMisconfigured), the duplicate wasp-agent rule (pkg/monitoring/observability/rules/alerts, its
expression), the golden-image metrics (controllers/handlers/golden-images, validateMultiArchDict) and the multi-arch
collector (pkg/monitoring/hyperconverged/collectors, getMultiArchBootImagesStatusCallback)."""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco import alerts
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import known_releases
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.alert_inputs import AlertInputs
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_alerts as site_alerts


@pytest.mark.parametrize(("release", "spec", "raised"), [
    ("1.14", {}, True),
    ("1.14", {"profileCustomizations": {"devEnableEvictionsInBackground": True}}, False),
    ("1.14", {"profiles": ["KubeVirtRelieveAndMigrate"]}, True),     # 1.14 reads the customization only
    ("1.15", {"profiles": ["DevKubeVirtRelieveAndMigrate"]}, False),
    ("1.16", {"profiles": ["KubeVirtRelieveAndMigrate"]}, False),
    ("1.16", {"profiles": ["LongLifecycle"]}, True),                 # LongLifecycle counts from 1.17
    ("1.17", {"profiles": ["LongLifecycle"]}, False),
    ("1.20", {"profiles": ["AffinityAndTaints", "KubeVirtRelieveAndMigrate"]}, False),
    ("1.20", {"profiles": ["AffinityAndTaints"],
              "profileCustomizations": {"devEnableEvictionsInBackground": True}}, True),
])
def test_the_descheduler_is_judged_by_the_releases_rule(release, spec, raised):
    line = site_alerts.descheduler(release, spec)
    assert (line is not None) == raised, line
    if line is not None:
        assert line.startswith("HCOMisconfiguredDescheduler: KubeDescheduler openshift-kube-descheduler-operator/cluster")
    assert site_alerts.descheduler(release, None) is None   # none there (or its kind not served): HCO checks nothing


def test_a_second_wasp_agent_is_named_and_the_hco_alert_only_where_its_rule_counts():
    found = (("kubevirt-hyperconverged", "hyperconverged-cluster-operator"), ("wasp", "kubectl-client-side-apply"))
    [line] = site_alerts.wasp_agents("1.16", True, 150, "kubevirt-hyperconverged", None, found)
    assert line.startswith("DuplicateWaspAgentDSDetected: DaemonSet wasp/wasp-agent (created by "
                           "kubectl-client-side-apply) runs beside the one HCO 1.16 deploys in kubevirt-hyperconverged")
    # Without overcommit HCO deploys none, and the rule does not fire.
    assert site_alerts.wasp_agents("1.16", True, 100, "kubevirt-hyperconverged", None, found[1:]) == []
    # Before 1.16 the site deploys its own in wasp: another one elsewhere fights it (no HCO alert exists for it).
    [other] = site_alerts.wasp_agents("1.15", True, 150, "kubevirt-hyperconverged", "wasp",
                                      (("wasp", "virtinfra.hyperconverged"), ("swap-tools", "helm")))
    assert other.startswith("wasp-agent: DaemonSet swap-tools/wasp-agent (created by helm) runs beside the one in wasp")


def test_golden_image_alerts_follow_the_status_hco_computes():
    entries: list[dict[str, t.Any]] = [
        {"metadata": {"name": "fedora"}, "status": {"originalSupportedArchitectures": "amd64,arm64"}},
        {"metadata": {"name": "custom"}, "status": {}},
        {"metadata": {"name": "s390-only"}, "status": {
            "originalSupportedArchitectures": "s390x",
            "conditions": [{"type": "Deployed", "status": "False", "reason": "UnsupportedArchitectures"}]}}]
    enabled = {"featureGates": {"enableMultiArchBootImageImport": True}}
    lines = site_alerts.golden_images("1.20", enabled, entries, {"amd64", "arm64"})
    assert [line.split(":", 1)[0] for line in lines] == ["HCOGoldenImageWithNoArchitectureAnnotation",
                                                         "HCOGoldenImageWithNoSupportedArchitecture"]
    assert "custom" in lines[0] and "s390-only" in lines[1]
    [disabled] = site_alerts.golden_images("1.20", {}, entries, {"amd64", "arm64"})
    assert disabled.startswith("HCOMultiArchGoldenImagesDisabled: the workload nodes are amd64, arm64")
    assert site_alerts.golden_images("1.20", {}, entries, {"amd64"}) == []
    assert site_alerts.golden_images("1.20", {}, [], {"amd64", "arm64"}) == []   # no golden image: no metric
    assert site_alerts.golden_images("1.15", {}, entries, {"amd64", "arm64"}) == []   # the alerts came in 1.16


def test_a_healthy_configuration_predicts_nothing_and_standalone_mode_no_hco_alert():
    render = {"hyperconverged": {"metadata": {"namespace": "kubevirt-hyperconverged"}, "spec": {}, "status": {}},
              "unsafe_modifications": {"kubevirt.kubevirt.io/jsonpatch": 0}}
    healthy = AlertInputs({"profiles": ["KubeVirtRelieveAndMigrate"]}, (("kubevirt-hyperconverged", "hco"),))
    kwargs: dict[str, t.Any] = {"release": "1.20", "render": render, "nodes": [], "workload_selector": {},
                                "overcommit": 150, "own_wasp_namespace": None}
    assert site_alerts.predict(hco_mode=True, inputs=healthy, **kwargs) == []
    tainted = {**render, "unsafe_modifications": {"kubevirt.kubevirt.io/jsonpatch": 2}}
    [line] = site_alerts.predict(**{**kwargs, "render": tainted}, hco_mode=True, inputs=healthy)
    assert line.startswith("UnsupportedHCOModification: the HyperConverged's kubevirt.kubevirt.io/jsonpatch "
                           "annotation holds 2 jsonpatch operation(s)")
    misconfigured = AlertInputs({"profiles": []}, ())
    assert site_alerts.predict(hco_mode=False, inputs=misconfigured, **kwargs) == []


def test_the_alert_table_covers_every_release_profile():
    for release in known_releases():
        names = [alert.name for alert in alerts.of_release(release)]
        assert "HCOMisconfiguredDescheduler" in names and release in alerts.DESCHEDULER_PROFILES
        assert all(alert.how for alert in alerts.of_release(release))
    assert ("DuplicateWaspAgentDSDetected" in [a.name for a in alerts.of_release("1.16")]
            and "DuplicateWaspAgentDSDetected" not in [a.name for a in alerts.of_release("1.15")])
