# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Resources, scope and the labels this run applies."""

from __future__ import annotations

from k8s_fakes import SET, FakeAPI, context

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.applyset import PART_OF_LABEL
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.fields import FINGERPRINT_ANNOTATION
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Desired
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.resolve import label, resolve


def obj(kind: str, api_version: str = "v1", namespace: str | None = None, index: int = 0) -> Desired:
    metadata = {"name": "x", **({"namespace": namespace} if namespace else {})}
    return Desired(index, {"apiVersion": api_version, "kind": kind, "metadata": metadata}, api_version, kind, "x",
                   namespace)


def test_scope_and_namespace_come_from_discovery_and_the_namespace_option():
    items = [obj("ConfigMap"), obj("Namespace", namespace="ns", index=1), obj("Widget", "x.io/v1", index=2),
             obj("ConfigMap", index=3)]
    targets, problems = resolve(context(FakeAPI(), namespace="default"), items[:3])
    assert targets[0].namespace == "default" and targets[0].desired["metadata"]["namespace"] == "default"
    assert "namespace" not in items[0].desired["metadata"]       # the parsed record is never changed
    assert [(p.index, p.path, p.message) for p in problems] == [
        (1, "metadata.namespace", "Namespace is cluster-scoped"), (2, "kind", "not served: Widget in x.io/v1")]
    assert [p.message for p in resolve(context(FakeAPI()), items[3:])[1]] == ["required value for a namespaced kind"]


def test_a_kind_defined_by_a_crd_of_the_same_input_waits_for_it():
    crd = Desired(0, {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                      "metadata": {"name": "widgets.x.io"},
                      "spec": {"group": "x.io", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Cluster",
                               "versions": [{"name": "v1", "served": True, "storage": True,
                                             "schema": {"openAPIV3Schema": {"type": "object"}}}]}},
                  "apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets.x.io")
    widget = obj("Widget", "x.io/v1", index=1)
    (_crd, waiting), problems = resolve(context(FakeAPI()), [crd, widget])
    assert [p.index for p in problems] == [0]   # the fixed discovery here does not serve CRDs themselves
    assert waiting.deferred == "its CustomResourceDefinition is created by this run"


def test_labels_and_fingerprint_follow_membership():
    given = obj("ConfigMap", namespace="ns")
    member, shared = label(given, SET), label(given, SET, member=False)
    assert "labels" not in given.desired["metadata"]
    assert member.desired["metadata"]["labels"][PART_OF_LABEL] == SET.id
    assert PART_OF_LABEL not in shared.desired["metadata"]["labels"]
    fingerprints = {i.desired["metadata"]["annotations"][FINGERPRINT_ANNOTATION] for i in (member, shared)}
    assert len(fingerprints) == 2
    secret = label(Desired(0, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}, "v1", "Secret", "s"),
                   None)
    assert "annotations" not in secret.desired["metadata"]   # no content hash of a Secret
