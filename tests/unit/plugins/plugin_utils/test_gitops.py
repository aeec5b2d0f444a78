# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import copy

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops import FOLDERS, SKIP_DRY_RUN, SYNC_OPTIONS, WAVE, kustomization
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops import tree as placed


def tree(stages, annotate):
    return [obj for _stage, obj in placed(stages, annotate)]


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "vms"}}
POLICY = {"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": "br1"}}
STORAGE = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "hp"}}
KUBEVIRT = {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt",
            "metadata": {"name": "kv", "namespace": "kubevirt-hyperconverged", "annotations": {"mine": "x"}}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "vms"}}
PRESET = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
          "metadata": {"name": "small"}}


def annotations_of(obj):
    return obj["metadata"].get("annotations") or {}


def test_waves_follow_the_stages_and_namespaces_go_first():
    stages = [("prerequisites", [POLICY, NAMESPACE, STORAGE]), ("kubevirt", [KUBEVIRT, DEPLOYMENT]),
              ("presets", [PRESET])]
    given = copy.deepcopy(stages)
    objects = tree(stages, annotate=True)
    assert stages == given   # the inputs are not changed
    waves = {o["kind"]: int(annotations_of(o)[WAVE]) for o in objects}
    assert waves["Namespace"] < waves["NodeNetworkConfigurationPolicy"] == waves["StorageClass"]
    assert waves["StorageClass"] < waves["KubeVirt"] == waves["Deployment"] < waves["VirtualMachineClusterInstancetype"]
    assert annotations_of(next(o for o in objects if o["kind"] == "KubeVirt"))["mine"] == "x"   # kept


def test_only_custom_resources_skip_the_dry_run_of_a_kind_not_served_yet():
    objects = {o["kind"]: o for o in tree([("prerequisites", [NAMESPACE, POLICY, STORAGE, DEPLOYMENT, PRESET])], True)}
    skipping = {kind for kind, obj in objects.items() if annotations_of(obj).get(SYNC_OPTIONS) == SKIP_DRY_RUN}
    assert skipping == {"NodeNetworkConfigurationPolicy", "VirtualMachineClusterInstancetype"}


def test_without_annotations_the_objects_are_as_given_each_once():
    objects = tree([("prerequisites", [NAMESPACE, POLICY]), ("kubevirt", [NAMESPACE, KUBEVIRT])], annotate=False)
    assert objects == [NAMESPACE, POLICY, KUBEVIRT]


def test_the_kustomization_lists_the_object_files_only():
    assert kustomization(["b.yaml", "kustomization.yaml", "a.yaml"]) == {
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": ["a.yaml", "b.yaml"]}


def test_each_object_has_its_stage_and_a_namespace_the_first():
    stages = [("operators", [NAMESPACE, DEPLOYMENT]), ("prerequisites", [POLICY, NAMESPACE]), ("presets", [PRESET])]
    assert [(stage, obj["kind"]) for stage, obj in placed(stages, annotate=False)] == [
        ("namespaces", "Namespace"), ("operators", "Deployment"), ("prerequisites", "NodeNetworkConfigurationPolicy"),
        ("presets", "VirtualMachineClusterInstancetype")]


def test_the_stage_folders_sort_in_the_order_of_the_waves():
    assert list(FOLDERS.values()) == sorted(FOLDERS.values())
    assert list(FOLDERS) == ["namespaces", "operators", "instances", "prerequisites", "kubevirt", "presets"]
