# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import hashlib
import pathlib

import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import bundles, catalog
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import Settings

OPERATOR = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "op", "namespace": "kubevirt"},
            "spec": {"selector": {"matchLabels": {"a": "b"}}}}


def read(location: str) -> bytes:
    return pathlib.Path(location).read_bytes()


def release(root: pathlib.Path, key: str, version: str, name: str, *objects: dict) -> pathlib.Path:
    folder = root / key / version
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(yaml.safe_dump_all(objects))
    return folder / name


def test_through_olm_each_package_in_its_own_namespace_with_placement_and_the_pinned_csv():
    settings = Settings(source="olm", platform="openshift", release="1.20", operators=("kubevirt", "nmstate"),
                        namespace="openshift-cnv", csvs={"hco": "kubevirt-hyperconverged-operator.v4.20.0"},
                        placement={"node_selector": {"node-role.kubernetes.io/infra": ""}}, approval="Manual")
    through = bundles.through_olm(settings)
    assert through.problems == ()
    kinds = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in through.objects]
    assert kinds == [("Namespace", None, "openshift-cnv"), ("OperatorGroup", "openshift-cnv", "openshift-cnv-group"),
                     ("Subscription", "openshift-cnv", "kubevirt-hyperconverged"),
                     ("Namespace", None, "openshift-nmstate"),
                     ("OperatorGroup", "openshift-nmstate", "openshift-nmstate-group"),
                     ("Subscription", "openshift-nmstate", "kubernetes-nmstate-operator")]
    groups = [o for o in through.objects if o["kind"] == "OperatorGroup"]
    assert [g["spec"] for g in groups] == [{"targetNamespaces": ["openshift-cnv"]},
                                           {"targetNamespaces": ["openshift-nmstate"]}]
    hco = through.objects[2]["spec"]
    assert hco["startingCSV"] == "kubevirt-hyperconverged-operator.v4.20.0"
    assert hco["installPlanApproval"] == "Manual" and hco["source"] == "redhat-operators"
    assert hco["config"] == {"nodeSelector": {"node-role.kubernetes.io/infra": ""}}
    assert "startingCSV" not in through.objects[5]["spec"]


def test_release_objects_placed_with_their_namespace_and_every_bad_file_named(tmp_path):
    release(tmp_path, "kubevirt", "v1.9.0", "kubevirt-operator.yaml", OPERATOR)
    settings = Settings(source="manifests", platform="kubernetes", release="1.20", operators=("kubevirt",),
                        namespace="kv", manifests_dir=str(tmp_path))
    placed, problems, notes = bundles.release_objects(settings, catalog.BY_KEY["kubevirt"], "v1.9.0", read)
    assert problems == [] and [o["kind"] for o in placed] == ["Namespace", "Deployment"]
    assert placed[0]["metadata"]["name"] == "kv" and placed[1]["metadata"]["namespace"] == "kv"
    assert notes == ["KubeVirt (virt-operator): installed in kv (its files say kubevirt), where its operand lives"]
    # A checksum that does not match, a kustomization left beside an operator read as "every *.yaml", a missing
    # file: each named, nothing returned for them.
    wrong = Settings(source="manifests", platform="kubernetes", release="1.20", operators=("kubevirt",),
                     namespace="kv", manifests_dir=str(tmp_path),
                     checksums={"kubevirt/kubevirt-operator.yaml": "sha256:" + hashlib.sha256(b"x").hexdigest()})
    _placed, problems, _notes = bundles.release_objects(wrong, catalog.BY_KEY["kubevirt"], "v1.9.0", read)
    assert len(problems) == 1 and "kubevirt-operator.yaml: sha256 is" in problems[0]
    release(tmp_path, "migration", "v0.1.0", "operator.yaml", OPERATOR)
    kustomization = tmp_path / "migration" / "v0.1.0" / "kustomization.yaml"
    kustomization.write_text("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n")
    _placed, problems, _notes = bundles.release_objects(settings, catalog.BY_KEY["migration"], "v0.1.0", read)
    assert problems == [(f"{kustomization}: object 1: is a kustomize Kustomization, not a Kubernetes object; remove "
                        "the file from the release files' directory (every *.yaml there is applied)")]
    _placed, problems, _notes = bundles.release_objects(settings, catalog.BY_KEY["cdi"], "v1.66.0", read)
    assert len(problems) == 1 and problems[0].startswith("CDI (cdi-operator): ") and "cdi-operator.yaml" in problems[0]


def test_the_instance_is_the_sites_own_where_it_has_one():
    nmstate = catalog.BY_KEY["nmstate"]
    bare = Settings(source="manifests", platform="kubernetes", release="1.20", operators=("nmstate",), namespace="kv")
    assert bundles.instance(bare, nmstate) == {"apiVersion": "nmstate.io/v1", "kind": "NMState",
                                               "metadata": {"name": "nmstate"}}
    probe = {"apiVersion": "nmstate.io/v1", "kind": "NMState", "metadata": {"name": "nmstate"},
             "spec": {"probeConfiguration": {"dns": {"host": "dns.example"}}}}
    given = Settings(source="manifests", platform="kubernetes", release="1.20", operators=("nmstate",),
                     namespace="kv", instances=(probe,))
    assert bundles.instance(given, nmstate) == probe
    assert bundles.instance(given, catalog.BY_KEY["kubevirt"]) is None


def test_rendered_release_files_then_instances_and_what_is_missing_named(tmp_path):
    for key, version in (("kubevirt", "v1.9.0"), ("nmstate", "v0.82.0")):
        for name in catalog.BY_KEY[key].files:
            release(tmp_path, key, version, name, {**OPERATOR, "metadata": {"name": f"{key}-{name[:-5]}".lower(
            ).replace("_", "-").replace(".", "-"), "namespace": catalog.BY_KEY[key].namespace}})
    settings = Settings(source="manifests", platform="kubernetes", release="1.20", operators=("kubevirt", "nmstate"),
                        namespace="kv", manifests_dir=str(tmp_path))
    found = bundles.rendered(settings, read)
    assert found.problems == ()
    assert [i["kind"] for i in found.instances] == ["NMState"]
    assert found.lines == ("KubeVirt (virt-operator) v1.9.0: 2 object(s) from its release files",
                           "kubernetes-nmstate v0.82.0: 7 object(s) from its release files")
    unpinned = Settings(source="manifests", platform="kubernetes", release="1.20", operators=("migration",),
                        namespace="kv", manifests_dir=str(tmp_path))
    assert bundles.rendered(unpinned, read).problems == (
        "kubevirt-migration-operator: the release profile pins no version of it; set operators_versions.migration",)
