# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bad input: every problem reported with its path, never a traceback, never partial output."""

from __future__ import annotations

import copy
import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import pruned_messages, render

HC: dict[str, t.Any] = {
    "apiVersion": "hco.kubevirt.io/v1beta1",
    "kind": "HyperConverged",
    "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
    "spec": {},
}


def refused(**kwargs):
    with pytest.raises(RenderError) as caught:
        render(**kwargs)
    return {e.path: e.message for e in caught.value.errors}


def hc(**spec):
    obj = copy.deepcopy(HC)
    obj["spec"].update(spec)
    return obj


@pytest.mark.parametrize("value", [None, "a string", ["a", "list"], 42])
def test_non_mapping_is_refused(value):
    errors = refused(hyperconverged=value)
    assert "hyperconverged" in errors


def test_wrong_identity_reports_every_field():
    bad = {"apiVersion": "v1", "kind": "KubeVirt", "metadata": {"name": "other"}, "spec": {}}
    errors = refused(hyperconverged=bad)
    assert {"apiVersion", "kind", "metadata.name"} <= set(errors)


def test_name_matching_the_pattern_but_ignored_by_hco():
    obj = hc()
    obj["metadata"]["name"] = "my-kubevirt-hyperconverged"
    assert "only reconciles" in refused(hyperconverged=obj)["metadata.name"]


def test_unknown_release_lists_known_ones():
    errors = refused(hyperconverged=hc(), release="1.99")
    assert '"1.20"' in errors["release"] and '"1.14"' in errors["release"]


@pytest.mark.parametrize("patch", ["not json", '{"op": "add"}', '[{"op": "frobnicate", "path": "/spec/x"}]',
                                   '[{"op": "add", "path": "/metadata/labels/x", "value": "y"}]',
                                   '[{"op": "replace", "path": "/spec/nope", "value": 1}]'])
def test_malformed_jsonpatch_names_the_annotation(patch):
    obj = hc()
    obj["metadata"]["annotations"] = {"kubevirt.kubevirt.io/jsonpatch": patch}
    errors = refused(hyperconverged=obj)
    assert "metadata.annotations[kubevirt.kubevirt.io/jsonpatch]" in errors


def test_all_schema_and_webhook_problems_are_reported_at_once():
    obj = hc(
        tuningPolicy="fast",
        uninstallStrategy="Never",
        resourceRequirements={"vmiCPUAllocationRatio": 0},
        higherWorkloadDensity={"memoryOvercommitPercentage": 5},
        liveMigrationConfig={"bandwidthPerMigration": "lots"},
        kubeMacPoolConfiguration={"rangeStart": "02:00:00:00:00:00"},
        filesystemOverhead={"global": "2"},
    )
    errors = refused(hyperconverged=obj)
    for path in ("spec.tuningPolicy", "spec.uninstallStrategy", "spec.resourceRequirements.vmiCPUAllocationRatio",
                 "spec.higherWorkloadDensity.memoryOvercommitPercentage",
                 "spec.liveMigrationConfig.bandwidthPerMigration", "spec.kubeMacPoolConfiguration",
                 "spec.filesystemOverhead.global"):
        assert path in errors, path


def test_webhook_rules_are_all_reported():
    obj = hc(
        certConfig={"ca": {"duration": "5m", "renewBefore": "1m"}, "server": {"duration": "24h", "renewBefore": "12h"}},
        tlsSecurityProfile={"type": "Custom"},
        mediatedDevicesConfiguration={"mediatedDevicesTypes": ["a"], "mediatedDeviceTypes": ["b"]},
        workloads={"nodePlacement": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Bogus"}]}]}}}}},
    )
    errors = refused(hyperconverged=obj)
    assert {"spec.certConfig.ca.duration", "spec.certConfig", "spec.tlsSecurityProfile.custom",
            "spec.mediatedDevicesConfiguration.mediatedDevicesTypes", "spec.workloads.nodePlacement.affinity"} <= set(errors)


def test_wrong_type_is_an_error_not_a_crash():
    errors = refused(hyperconverged=hc(liveMigrationConfig="fast", featureGates={"downwardMetrics": "yes"}))
    assert "spec.liveMigrationConfig" in errors and "spec.featureGates.downwardMetrics" in errors


def test_bad_tuning_annotation():
    obj = hc(tuningPolicy="annotation")
    obj["metadata"]["annotations"] = {"hco.kubevirt.io/tuningPolicy": '{"qps": 0, "burst": 10}'}
    assert "qps" in refused(hyperconverged=obj)["metadata.annotations[hco.kubevirt.io/tuningPolicy]"]


def test_duplicate_dict_names_refused_on_every_platform():
    template = {"metadata": {"name": "same"}, "spec": {"managedDataSource": "x", "schedule": "",
                                                       "template": {"spec": {}}}}
    errors = refused(hyperconverged=hc(dataImportCronTemplates=[template, copy.deepcopy(template)]))
    assert any("defined twice" in m for m in errors.values())


def test_bad_cluster_and_environment_arguments():
    errors = refused(hyperconverged=hc(), cluster={"platform": "mesos", "nodes": "three"},
                     environment={"machine_types": "q35", "colour": "blue"}, operation="delete")
    assert {"cluster.platform", "cluster.nodes", "environment.machine_types", "environment.colour",
            "operation"} <= set(errors)


def test_unknown_fields_are_pruned_like_the_api_server():
    result = render(hyperconverged=hc(notAField=1, featureGates={"madeUpGate": True}))
    assert "spec.notAField" in result.pruned and "spec.featureGates.madeUpGate" in result.pruned
    assert "notAField" not in result.hyperconverged["spec"]


def test_same_input_same_output():
    assert render(hyperconverged=hc()).as_dict() == render(hyperconverged=hc()).as_dict()


@pytest.mark.parametrize("release", ["1.14", "1.20"])
def test_pruned_fields_are_named_with_the_nearest_known_field(release):
    rendered = render(hc(liveMigrationConfg={}, featureGates={"fooBar": True},
                         liveMigrationConfig={"parallelMigrationsPerClustr": 3},
                         workloads={"nodePlacement": {"nodeSelecter": {"a": "b"}}}), release=release)
    dropped = "unknown field (the API server would drop it)"
    assert sorted(pruned_messages(release, rendered.pruned)) == [
        f"spec.featureGates.fooBar: {dropped}",
        f"spec.liveMigrationConfg: {dropped} (did you mean liveMigrationConfig?)",
        f"spec.liveMigrationConfig.parallelMigrationsPerClustr: {dropped} (did you mean parallelMigrationsPerCluster?)",
        f"spec.workloads.nodePlacement.nodeSelecter: {dropped} (did you mean nodeSelector?)",
    ]


@pytest.mark.parametrize("claim", ["storage", "pvc"])
@pytest.mark.parametrize("quantity", ["2e3Mi", "10 Gi", "1.5.0Gi", "-"])
def test_a_dict_storage_quantity_the_api_server_refuses_is_refused_with_its_path(claim, quantity):
    # The HyperConverged CRD gives a DICT's storage requests the quantity pattern (CDI's DataVolumeSpec); the engine
    # once canonicalised such a value and crashed.
    entry = {"metadata": {"name": "my-dict"}, "spec": {
        "schedule": "0 */12 * * *", "managedDataSource": "my",
        "template": {"spec": {"source": {"registry": {"url": "docker://example.org/img"}},
                              claim: {"resources": {"requests": {"storage": quantity}}}}}}}
    errors = refused(hyperconverged=hc(dataImportCronTemplates=[entry]), release="1.20")
    path = f"spec.dataImportCronTemplates[0].spec.template.spec.{claim}.resources.requests.storage"
    assert list(errors) == [path] and f'"{quantity}"' in errors[path]


def test_a_dict_template_field_the_crd_does_not_define_is_pruned_as_the_api_server_would():
    entry = {"metadata": {"name": "my-dict"}, "spec": {
        "schedule": "0 */12 * * *", "managedDataSource": "my",
        "template": {"spec": {"source": {"registry": {"url": "docker://example.org/img"}},
                              "storage": {"resourcez": {}, "storageClassName": "local"}}}}}
    result = render(hyperconverged=hc(dataImportCronTemplates=[entry]), release="1.20")
    assert result.pruned == ["spec.dataImportCronTemplates[0].spec.template.spec.storage.resourcez"]
