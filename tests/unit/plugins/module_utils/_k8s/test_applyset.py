# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pathlib

import pytest
import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import applyset

ROOT = pathlib.Path(__file__).resolve().parents[5]


def test_id_matches_the_value_kubectl_computes():
    # The expected value is the one kubectl's own applyset test asserts for this parent (test-foo, test-ns,
    # kind Foo, group foo.bar).
    assert applyset.applyset_id("test-foo", "test-ns", "Foo", "foo.bar") == \
        "applyset-f9Rk5tKHoB72oV1tU2iFKxDwL8MBZTjMHFQ8V9WNNlA-v1"


def test_id_of_a_core_secret_parent_is_url_safe_and_unpadded():
    value = applyset.applyset_id("hyperconverged", "kubevirt-hyperconverged")
    assert value.startswith("applyset-") and value.endswith("-v1")
    assert len(value) <= 63 and not set(value) & set("+/=")  # a valid label value


def test_group_kind_strings():
    assert applyset.group_kind("v1", "Namespace") == "Namespace"
    assert applyset.group_kind("kubevirt.io/v1", "KubeVirt") == "KubeVirt.kubevirt.io"
    assert applyset.split_group_kind("KubeVirt.kubevirt.io") == ("kubevirt.io", "KubeVirt")
    assert applyset.split_group_kind("Namespace") == ("", "Namespace")


def test_tooling_names_the_collection_version():
    galaxy = yaml.safe_load((ROOT / "galaxy.yml").read_text())
    assert f"{galaxy['namespace']}.{galaxy['name']}/v{galaxy['version']}" == applyset.TOOLING


@pytest.mark.parametrize("name", ["", "Upper", "under_score", "-lead", "a" * 254])
def test_bad_names_are_refused(name):
    assert applyset.name_problem(name)


def test_parent_records_kinds_sorted_and_other_namespaces_only():
    aset = applyset.ApplySet("ops", "home")
    parent = aset.parent(applyset.Record({"KubeVirt.kubevirt.io", "ConfigMap"}, {"home", "b", "a"}))
    meta = parent["metadata"]
    assert (parent["kind"], meta["name"], meta["namespace"]) == ("ConfigMap", "ops", "home")
    assert meta["labels"][applyset.ID_LABEL] == aset.id
    assert meta["annotations"] == {applyset.TOOLING_ANNOTATION: applyset.TOOLING,
                                   applyset.GROUP_KINDS_ANNOTATION: "ConfigMap,KubeVirt.kubevirt.io",
                                   applyset.NAMESPACES_ANNOTATION: "a,b"}
    alone = aset.parent(applyset.Record({"ConfigMap"}, {"home"}))
    assert applyset.NAMESPACES_ANNOTATION not in alone["metadata"]["annotations"]


def test_reading_our_parent_gives_back_its_record():
    aset = applyset.ApplySet("ops", "home")
    record = applyset.Record({"ConfigMap", "Deployment.apps"}, {"home", "elsewhere"})
    assert aset.read(aset.parent(record)) == (record, "")
    assert aset.read(None) == (applyset.Record(), "")


@pytest.mark.parametrize(("labels", "annotations", "says"), [
    ({}, {}, "is not the parent"),                                                   # a person's Secret
    ({applyset.ID_LABEL: "applyset-other-v1"}, {applyset.TOOLING_ANNOTATION: applyset.TOOLING}, "is not the parent"),
    ({applyset.ID_LABEL: "ID"}, {}, "is not the parent"),                             # no tooling
    ({applyset.ID_LABEL: "ID"}, {applyset.TOOLING_ANNOTATION: "kubectl/v1.31"}, "managed by kubectl/v1.31"),
])
def test_a_secret_that_is_not_our_parent_is_refused(labels, annotations, says):
    aset = applyset.ApplySet("ops", "home")
    labels = {k: (aset.id if v == "ID" else v) for k, v in labels.items()}
    record, problem = aset.read({"metadata": {"labels": labels, "annotations": annotations}})
    assert record == applyset.Record() and says in problem and "left alone" in problem


def test_union():
    small = applyset.Record({"ConfigMap"}, {"a"})
    big = small.union(applyset.Record({"Secret"}, {"b"}))
    assert big == applyset.Record({"ConfigMap", "Secret"}, {"a", "b"})
