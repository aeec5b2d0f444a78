# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A customised common DataImportCronTemplate, as HCO v1.20.0 builds it (controllers/handlers/golden-images/
golden_images.go: customizeCommonDICT takes the HC entry's annotations, spec and namespace, not its labels;
customizeCommonDictAnnotations lets the HC entry's architecture annotation win only when it changes the *registry*
source)."""

from __future__ import annotations

import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

ARCH = "ssp.kubevirt.io/dict.architectures"
REGISTRY = {"registry": {"url": "docker://quay.io/containerdisks/fedora:latest"}}
COMMON = {"metadata": {"name": "fedora-image-cron", "labels": {"common": "label"},
                       "annotations": {ARCH: "amd64,arm64,s390x", "common": "annotation"}},
          "spec": {"managedDataSource": "fedora", "schedule": "0 */12 * * *",
                   "template": {"spec": {"source": REGISTRY, "storage": {"resources": {"requests": {"storage": "5Gi"}}}}}}}
NODES = [{"name": f"w{i}", "architecture": arch, "labels": {"node-role.kubernetes.io/worker": ""}}
         for i, arch in enumerate(("amd64", "arm64"))]


def customised(source: dict[str, t.Any], annotations: dict[str, str] | None = None,
               labels: dict[str, str] | None = None) -> dict[str, t.Any]:
    meta: dict[str, t.Any] = {"name": "fedora-image-cron"}
    if annotations is not None:
        meta["annotations"] = annotations
    if labels is not None:
        meta["labels"] = labels
    return {"metadata": meta, "spec": {"managedDataSource": "fedora", "schedule": "0 1 * * *", "template": {
        "spec": {"source": source, "storage": {"resources": {"requests": {"storage": "9Gi"}}}}}}}


def ssp_dict(entry: dict[str, t.Any], multi_arch: bool = True) -> dict[str, t.Any]:
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
          "spec": {"dataImportCronTemplates": [entry],
                   "featureGates": {"enableMultiArchBootImageImport": multi_arch}}}
    result = render(hyperconverged=hc, release="1.20", cluster={"platform": "openshift", "nodes": NODES},
                    common_golden_images=[COMMON])
    ssp = next(o for o in result.operands if o["kind"] == "SSP")
    (found,) = [d for d in ssp["spec"]["commonTemplates"]["dataImportCronTemplates"]
                if d["metadata"]["name"] == "fedora-image-cron"]
    return found


@pytest.mark.parametrize("source", [{"http": {"url": "https://example.org/fedora.qcow2"}},
                                    {"s3": {"url": "s3://bucket/fedora"}}, {"blank": {}}, {}, REGISTRY])
def test_without_a_changed_registry_the_common_architectures_stay(source):
    found = ssp_dict(customised(source, {ARCH: "s390x", "mine": "yes"}))
    # The common template's list, filtered to the workload architectures; the HC entry's other annotations kept.
    assert found["metadata"]["annotations"][ARCH] == "amd64,arm64"
    assert found["metadata"]["annotations"]["mine"] == "yes"
    assert found["spec"]["template"]["spec"]["storage"]["resources"]["requests"]["storage"] == "9Gi"


def test_a_changed_registry_makes_the_hc_entry_s_architectures_win_or_their_absence():
    other = {"registry": {"url": "docker://example.org/fedora:40"}}
    assert ssp_dict(customised(other, {ARCH: "arm64,s390x"}))["metadata"]["annotations"][ARCH] == "arm64"
    assert ARCH not in ssp_dict(customised(other, {"mine": "yes"}))["metadata"]["annotations"]
    assert ARCH not in ssp_dict(customised(other))["metadata"]["annotations"]


def test_the_hc_entry_s_labels_are_not_taken():
    found = ssp_dict(customised(REGISTRY, labels={"mine": "label"}))
    assert found["metadata"].get("labels") == {"common": "label"}


def rendered(entries: list[dict[str, t.Any]], operation: str, platform: str,
             annotations: dict[str, str] | None = None) -> t.Any:
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged",
                       "annotations": annotations or {}},
          "spec": {"dataImportCronTemplates": entries}}
    return render(hyperconverged=hc, release="1.20", operation=operation, cluster={"platform": platform},
                  common_golden_images=[COMMON])


def refusal(*args: t.Any, **kwargs: t.Any) -> dict[str, str]:
    with pytest.raises(RenderError) as caught:
        rendered(*args, **kwargs)
    return {e.path: e.message for e in caught.value.errors}


# HCO's webhook dry-runs the SSP on CREATE on every platform, and on UPDATE only where SSP runs (OpenShift): a
# problem found while building it refuses exactly there (HCO's webhook validator: validateCreate builds it,
# validateUpdate passes isOpenshift to checkOperands).
ADMITS_SSP_PROBLEMS = [("create", "kubernetes", False), ("create", "openshift", False),
                       ("update", "openshift", False), ("update", "kubernetes", True)]


@pytest.mark.parametrize(("operation", "platform", "admitted"), ADMITS_SSP_PROBLEMS)
def test_a_customised_common_dict_without_a_source(operation, platform, admitted):
    entry = customised(REGISTRY)
    del entry["spec"]["template"]["spec"]["source"]
    if admitted:
        rendered([entry], operation, platform)
        return
    errors = refusal([entry], operation, platform)
    assert list(errors) == ["spec.dataImportCronTemplates[0].spec.template.spec.source"]
    assert "required when customising the common DataImportCronTemplate fedora-image-cron" in \
        errors["spec.dataImportCronTemplates[0].spec.template.spec.source"]


@pytest.mark.parametrize(("operation", "platform", "admitted"), ADMITS_SSP_PROBLEMS)
def test_two_dicts_with_one_name(operation, platform, admitted):
    entries = [customised(REGISTRY), customised(REGISTRY)]
    if admitted:
        rendered(entries, operation, platform)
    else:
        assert "defined twice" in refusal(entries, operation, platform)["spec.dataImportCronTemplates[1].metadata.name"]


@pytest.mark.parametrize(("operation", "platform", "admitted"), ADMITS_SSP_PROBLEMS)
def test_an_ssp_jsonpatch_whose_operations_fail(operation, platform, admitted):
    patch = '[{"op": "replace", "path": "/spec/noSuchField/x", "value": 1}]'
    annotations = {"ssp.kubevirt.io/jsonpatch": patch}
    if admitted:
        rendered([], operation, platform, annotations)
    else:
        assert refusal([], operation, platform, annotations)


@pytest.mark.parametrize(("transition", "heartbeat", "written"), [
    ("2026-11-26T03:02:03.123+02:00", "2026-11-26T01:02:03.9Z", ("2026-11-26T01:02:03Z", "2026-11-26T01:02:03Z")),
    ("0001-01-01T00:00:00Z", "0999-06-01T01:02:03,5+24:00", (None, "0999-05-31T01:02:03Z")),
])
def test_dict_template_condition_times_are_written_back_as_go_writes_them(transition, heartbeat, written):
    entry = customised({"registry": {"url": "docker://example.org/mine:1"}})
    entry["metadata"]["name"] = "my-own"
    entry["spec"]["template"]["status"] = {"conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": transition, "lastHeartbeatTime": heartbeat}]}
    result = rendered([entry], "create", "openshift")
    ssp = next(o for o in result.operands if o["kind"] == "SSP")
    (mine,) = [d for d in ssp["spec"]["commonTemplates"]["dataImportCronTemplates"] if d["metadata"]["name"] == "my-own"]
    condition = mine["spec"]["template"]["status"]["conditions"][0]
    assert (condition["lastTransitionTime"], condition["lastHeartbeatTime"]) == written


@pytest.mark.parametrize(("operation", "platform", "admitted"), ADMITS_SSP_PROBLEMS)
def test_a_patch_on_architecture_dicts_is_refused_where_the_webhook_sees_no_node(operation, platform, admitted):
    # With multi-arch import on, the webhook pod knows no node, so it drops every architecture-annotated DICT before
    # the SSP patch applies; a patch that addresses them fails there, though the reconciler (which knows the nodes)
    # would apply it.
    patch = ('[{"op": "replace", "path": "/spec/commonTemplates/dataImportCronTemplates/0/spec/schedule", '
             '"value": "1 1 * * *"}]')
    hc: dict[str, t.Any] = {
        "apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
        "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged",
                     "annotations": {"ssp.kubevirt.io/jsonpatch": patch}},
        "spec": {"featureGates": {"enableMultiArchBootImageImport": True}}}

    def run(multi_arch: bool = True) -> t.Any:
        hc["spec"]["featureGates"]["enableMultiArchBootImageImport"] = multi_arch
        return render(hyperconverged=hc, release="1.20", operation=operation,
                      cluster={"platform": platform, "nodes": NODES}, common_golden_images=[COMMON])

    run(multi_arch=False)   # without multi-arch import the webhook keeps the DICT: the patch applies
    if admitted:
        run()
        return
    with pytest.raises(RenderError) as caught:
        run()
    assert "ssp.kubevirt.io/jsonpatch" in str(caught.value)


@pytest.mark.parametrize("operation", ["create", "update"])
@pytest.mark.parametrize("platform", ["kubernetes", "openshift"])
def test_a_condition_time_go_cannot_parse_is_refused_by_the_mutating_webhook(operation, platform):
    # The API server's date-time check admits a lower-case t or z; Go's RFC 3339 parser does not, so HCO's webhook
    # cannot decode the HyperConverged and refuses it, whatever else it holds.
    entry = customised({"registry": {"url": "docker://example.org/mine:1"}})
    entry["spec"]["template"]["status"] = {"conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-26t01:02:03Z",
         "lastHeartbeatTime": "2026-11-26T01:02:03z"}]}
    errors = refusal([entry], operation, platform)
    where = "spec.dataImportCronTemplates[0].spec.template.status.conditions[0]"
    assert errors == {f"{where}.lastTransitionTime": 'parsing time "2026-11-26t01:02:03Z" as '
                                                     '"2006-01-02T15:04:05Z07:00": cannot parse "t01:02:03Z" as "T"',
                      f"{where}.lastHeartbeatTime": 'parsing time "2026-11-26T01:02:03z" as '
                                                    '"2006-01-02T15:04:05Z07:00": cannot parse "z" as "Z07:00"'}
