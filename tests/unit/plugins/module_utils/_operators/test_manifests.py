# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import hashlib
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import catalog
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.manifests import Source, checksum_problem, parse, place, sources
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import ROLE_NAMES

KV = catalog.BY_KEY["kubevirt"]


def test_sources_from_a_directory_and_from_upstream(tmp_path):
    found, problem = sources(KV, "v1.9.0", str(tmp_path), "", ROLE_NAMES.__getitem__)
    assert problem is None
    assert found == [Source("kubevirt/kubevirt-operator.yaml", str(tmp_path / "kubevirt/v1.9.0/kubevirt-operator.yaml"))]
    found, _problem = sources(KV, "v1.9.0", "", "", ROLE_NAMES.__getitem__)
    assert found[0].location == "https://github.com/kubevirt/kubevirt/releases/download/v1.9.0/kubevirt-operator.yaml"
    found, _problem = sources(KV, "v1.9.0", "", "https://mirror/{operator}/{version}/{file}", ROLE_NAMES.__getitem__)
    assert found[0].location == "https://mirror/kubevirt/v1.9.0/kubevirt-operator.yaml"


def test_an_operator_without_upstream_files_needs_a_directory(tmp_path):
    _found, problem = sources(catalog.BY_KEY["migration"], "v0.1.0", "", "", ROLE_NAMES.__getitem__)
    assert "operators_manifests_dir/migration/v0.1.0/" in (problem or "")
    folder = tmp_path / "migration" / "v0.1.0"
    folder.mkdir(parents=True)
    (folder / "b.yaml").write_text("{}")
    (folder / "a.yml").write_text("{}")
    (folder / "notes.txt").write_text("")
    found, problem = sources(catalog.BY_KEY["migration"], "v0.1.0", str(tmp_path), "", ROLE_NAMES.__getitem__)
    assert [s.key for s in found] == ["migration/a.yml", "migration/b.yaml"] and problem is None


def test_checksums():
    source = Source("kubevirt/kubevirt-operator.yaml", "/x/kubevirt-operator.yaml")
    digest = hashlib.sha256(b"data").hexdigest()
    assert checksum_problem(source, b"data", f"sha256:{digest}", ROLE_NAMES.__getitem__) is None
    assert checksum_problem(source, b"data", digest.upper(), ROLE_NAMES.__getitem__) is None
    assert checksum_problem(source, b"data", None, ROLE_NAMES.__getitem__) is None
    wrong = checksum_problem(source, b"other", f"sha256:{digest}", ROLE_NAMES.__getitem__)
    assert wrong is not None and "/x/kubevirt-operator.yaml" in wrong and digest in wrong
    assert "unknown algorithm" in (checksum_problem(source, b"data", "crc:1", ROLE_NAMES.__getitem__) or "")


def test_parse_names_the_file_and_line():
    source = Source("k/f.yaml", "/x/f.yaml")
    objects, problems = parse(source, b"apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\n"
                                      b"apiVersion: v1\nkind: B\nmetadata: {name: b}\n")
    assert [o["kind"] for o in objects] == ["A", "B"] and problems == []
    _found, problems = parse(source, b"kind: [\n")
    assert len(problems) == 1 and problems[0].startswith("/x/f.yaml: is not valid YAML") and "line" in problems[0]
    _found, problems = parse(source, b"- 1\n")
    assert problems == ["/x/f.yaml: object 1: must be a mapping"]


def test_parse_refuses_what_the_apply_would_refuse_naming_file_and_object():
    """Every problem of the file at once, each as the apply's own input stage words it, before anything is written."""
    source = Source("m/x.yaml", "/rel/x.yaml")
    _found, problems = parse(source, b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n"
                                     b"apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n---\nkind: Secret\n")
    assert problems == ["/rel/x.yaml: object 2: metadata.name: required value",
                        "/rel/x.yaml: object 3: apiVersion: required value",
                        "/rel/x.yaml: object 3: metadata.name: required value"]


def test_parse_names_a_kustomization_left_among_the_release_files():
    source = Source("migration/kustomization.yaml", "/rel/migration/v1/kustomization.yaml")
    _found, problems = parse(source, b"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                     b"resources: [a.yaml]\n")
    assert len(problems) == 1
    assert problems[0].startswith("/rel/migration/v1/kustomization.yaml: object 1: is a kustomize Kustomization")


def test_place_moves_a_colocated_operator_and_every_reference_to_its_namespace():
    objects: list[dict[str, t.Any]] = [
        {"kind": "Namespace", "metadata": {"name": "kubevirt", "labels": {"kubevirt.io": ""}}},
        {"kind": "Deployment", "metadata": {"name": "virt-operator", "namespace": "kubevirt"}},
        {"kind": "ServiceAccount", "metadata": {"name": "sa"}},
        {"kind": "ClusterRoleBinding", "metadata": {"name": "b"},
         "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "kubevirt"},
                      {"kind": "Group", "name": "g"}]},
        {"kind": "ValidatingWebhookConfiguration", "metadata": {"name": "w"},
         "webhooks": [{"clientConfig": {"service": {"name": "s", "namespace": "kubevirt"}}}]},
        {"kind": "CustomResourceDefinition", "metadata": {"name": "c"},
         "spec": {"conversion": {"webhook": {"clientConfig": {"service": {"namespace": "kubevirt"}}}}}},
        {"kind": "PriorityClass", "metadata": {"name": "kubevirt-cluster-critical"}},
        {"kind": "ConfigMap", "metadata": {"name": "elsewhere", "namespace": "other"}},
    ]
    placed, notes = place(KV, objects, "kv", skip={("PriorityClass", "", "kubevirt-cluster-critical")})
    assert placed[0]["metadata"] == {"name": "kv", "labels": {"kubevirt.io": ""}}
    assert placed[1]["metadata"]["namespace"] == "kv" and placed[2]["metadata"]["namespace"] == "kv"
    assert placed[3]["subjects"][0]["namespace"] == "kv" and "namespace" not in placed[3]["subjects"][1]
    assert placed[4]["webhooks"][0]["clientConfig"]["service"]["namespace"] == "kv"
    assert placed[5]["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["namespace"] == "kv"
    assert [o["kind"] for o in placed][-1] == "ConfigMap" and placed[-1]["metadata"]["namespace"] == "other"
    assert len(placed) == 7 and len(notes) == 2
    assert objects[1]["metadata"]["namespace"] == "kubevirt"   # the input is not changed


def test_place_leaves_an_operator_in_its_own_namespace():
    placed, notes = place(catalog.BY_KEY["cdi"], [{"kind": "Deployment", "metadata": {"name": "cdi-operator"}}], "kv")
    assert placed[0]["metadata"]["namespace"] == "cdi" and notes == []
