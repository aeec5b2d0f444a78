# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import json

import pytest
import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import Refused
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _manifest_files as manifest_files


def cm(name: str, namespace: str | None = "apps", data: dict | None = None) -> dict:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data or {"k": "v"}}


def write(directory, objects, prune=True):
    plan = manifest_files.plan(directory, objects, prune=prune)
    assert plan.errors == []
    manifest_files.apply(plan)
    return plan


def test_one_file_per_object_with_an_index_and_no_change_on_a_rerun(tmp_path):
    plan = write(tmp_path, [cm("a"), cm("b", namespace=None)])
    assert plan.write == ["configmap-apps-a.yaml", "configmap-cluster-b.yaml"]
    assert yaml.safe_load((tmp_path / "configmap-apps-a.yaml").read_text()) == cm("a")
    assert json.loads((tmp_path / manifest_files.INDEX_NAME).read_text())["files"] == plan.write
    again = manifest_files.plan(tmp_path, [cm("a"), cm("b", namespace=None)])
    assert not again.changed and again.unchanged == plan.write


def test_a_rerun_with_nothing_changed_rewrites_no_file_not_even_the_index(tmp_path):
    write(tmp_path, [cm("a")])
    before = {path.name: path.stat().st_ino for path in tmp_path.iterdir()}
    write(tmp_path, [cm("a")])   # an atomic write replaces the inode: an unchanged inode is an untouched file
    assert {path.name: path.stat().st_ino for path in tmp_path.iterdir()} == before


def test_multiline_strings_are_block_scalars_and_keys_sorted(tmp_path):
    text = manifest_files.to_yaml({"b": 1, "a": {"script": "line one\nline two\n"}})
    assert text == "a:\n  script: |\n    line one\n    line two\nb: 1\n"


def test_only_files_it_wrote_are_removed(tmp_path):
    write(tmp_path, [cm("a"), cm("gone")])
    (tmp_path / "configmap-apps-theirs.yaml").write_text("theirs\n")
    plan = write(tmp_path, [cm("a")])
    assert plan.remove == ["configmap-apps-gone.yaml"]
    assert sorted(p.name for p in tmp_path.glob("*.yaml")) == ["configmap-apps-a.yaml", "configmap-apps-theirs.yaml"]
    assert json.loads((tmp_path / manifest_files.INDEX_NAME).read_text())["files"] == ["configmap-apps-a.yaml"]


def test_without_prune_earlier_files_stay_and_stay_owned(tmp_path):
    write(tmp_path, [cm("a"), cm("old")])
    plan = write(tmp_path, [cm("a")], prune=False)
    assert plan.remove == [] and (tmp_path / "configmap-apps-old.yaml").exists()
    assert write(tmp_path, [cm("a")]).remove == ["configmap-apps-old.yaml"]


def test_a_foreign_file_with_a_wanted_name_refuses_everything(tmp_path):
    (tmp_path / "configmap-apps-b.yaml").write_text("hand made\n")
    plan = manifest_files.plan(tmp_path, [cm("a"), cm("b")])
    assert len(plan.errors) == 1 and "was not written by this collection" in plan.errors[0]
    with pytest.raises(Refused):
        manifest_files.apply(plan)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["configmap-apps-b.yaml"]
    assert (tmp_path / "configmap-apps-b.yaml").read_text() == "hand made\n"


def test_a_foreign_file_with_the_same_content_is_adopted(tmp_path):
    (tmp_path / "configmap-apps-a.yaml").write_text(manifest_files.to_yaml(cm("a")))
    plan = write(tmp_path, [cm("a")])
    assert plan.unchanged == ["configmap-apps-a.yaml"] and plan.index_changed


def test_two_objects_for_one_file_are_refused_with_both_positions(tmp_path):
    plan = manifest_files.plan(tmp_path, [cm("a"), cm("a", data={"x": "y"})])
    assert plan.errors == [("objects[1] (v1 ConfigMap apps/a) would be written to configmap-apps-a.yaml, like "
                            "objects[0]: two objects with the same kind, namespace and name")]


def test_an_index_entry_outside_the_directory_is_ignored(tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text("keep\n")
    work = tmp_path / "out"
    work.mkdir()
    (work / manifest_files.INDEX_NAME).write_text(json.dumps(
        {"written_by": manifest_files.INDEX_OWNER, "files": ["../outside.yaml"]}))
    write(work, [cm("a")])
    assert outside.read_text() == "keep\n"


def test_a_symlink_in_place_of_a_file_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("x\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "configmap-apps-a.yaml").symlink_to(target)
    assert "is not a regular file" in manifest_files.plan(out, [cm("a")]).errors[0]


def test_the_kustomization_is_written_owned_and_follows_the_objects(tmp_path):
    plan = manifest_files.plan(tmp_path, [cm("a"), cm("b")], kustomization=True)
    manifest_files.apply(plan)
    assert "kustomization.yaml" in json.loads((tmp_path / manifest_files.INDEX_NAME).read_text())["files"]
    assert yaml.safe_load((tmp_path / "kustomization.yaml").read_text())["resources"] == [
        "configmap-apps-a.yaml", "configmap-apps-b.yaml"]
    again = manifest_files.plan(tmp_path, [cm("a"), cm("b")], kustomization=True)
    assert again.write == [] and not again.changed
    fewer = manifest_files.plan(tmp_path, [cm("a")], kustomization=True)
    assert fewer.write == ["kustomization.yaml"] and fewer.remove == ["configmap-apps-b.yaml"]


def test_a_kustomization_someone_else_wrote_is_never_replaced(tmp_path):
    (tmp_path / "kustomization.yaml").write_text("resources: [mine.yaml]\n")
    plan = manifest_files.plan(tmp_path, [cm("a")], kustomization=True)
    assert len(plan.errors) == 1 and "kustomization.yaml exists and was not written by this collection" in plan.errors[0]


def test_folders_each_with_its_kustomization_and_the_root_listing_them(tmp_path):
    plan = manifest_files.plan(tmp_path, [cm("a"), cm("b"), cm("c")], kustomization=True,
                               folders=["01-x", "01-x", "02-y"], kustomized=["00-w", "01-x", "02-y"])
    assert plan.errors == []
    manifest_files.apply(plan)
    assert yaml.safe_load((tmp_path / "kustomization.yaml").read_text())["resources"] == ["00-w", "01-x", "02-y"]
    assert yaml.safe_load((tmp_path / "01-x" / "kustomization.yaml").read_text())["resources"] == [
        "configmap-apps-a.yaml", "configmap-apps-b.yaml"]
    assert yaml.safe_load((tmp_path / "00-w" / "kustomization.yaml").read_text())["resources"] == []
    owned = json.loads((tmp_path / manifest_files.INDEX_NAME).read_text())["files"]
    assert "01-x/configmap-apps-a.yaml" in owned and "00-w/kustomization.yaml" in owned
    assert not manifest_files.plan(tmp_path, [cm("a"), cm("b"), cm("c")], kustomization=True,
                                   folders=["01-x", "01-x", "02-y"], kustomized=["00-w", "01-x", "02-y"]).changed


def test_back_to_flat_the_folders_go_but_a_persons_file_keeps_its_folder(tmp_path):
    write_folders = manifest_files.plan(tmp_path, [cm("a"), cm("b")], kustomization=True, folders=["x", "y"])
    manifest_files.apply(write_folders)
    (tmp_path / "y" / "notes.txt").write_text("mine\n")
    flat = manifest_files.plan(tmp_path, [cm("a"), cm("b")], kustomization=True)
    assert flat.errors == [] and flat.remove == ["x/configmap-apps-a.yaml", "x/kustomization.yaml",
                                                 "y/configmap-apps-b.yaml", "y/kustomization.yaml"]
    manifest_files.apply(flat)
    assert not (tmp_path / "x").exists() and (tmp_path / "y" / "notes.txt").read_text() == "mine\n"
    names = sorted(p.name for p in tmp_path.glob("*.yaml"))
    assert names == ["configmap-apps-a.yaml", "configmap-apps-b.yaml", "kustomization.yaml"]


def test_a_folder_that_is_a_link_a_file_or_a_path_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "linked").symlink_to(elsewhere)
    (out / "plain").write_text("x\n")
    errors = manifest_files.plan(out, [cm("a"), cm("b")], folders=["linked", "plain"]).errors
    assert errors == [f"{out / 'linked'} is not a directory: nothing is written into it",
                      f"{out / 'plain'} is not a directory: nothing is written into it"]
    assert manifest_files.plan(out, [cm("a")], folders=["../up"]).errors == [
        "folders[0]: '../up' is not one folder name (letters, digits, '.', '_', '-')"]
    assert manifest_files.plan(out, [cm("a")], folders=["x", "y"]).errors == [
        "folders: 2 given for 1 objects; give one per object"]
    assert list(elsewhere.iterdir()) == []


def test_an_index_entry_in_a_folder_that_climbs_out_is_ignored(tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text("keep\n")
    work = tmp_path / "out"
    (work / "x").mkdir(parents=True)
    (work / manifest_files.INDEX_NAME).write_text(json.dumps(
        {"written_by": manifest_files.INDEX_OWNER, "files": ["x/../../outside.yaml", "/etc/passwd.yaml"]}))
    write(work, [cm("a")])
    assert outside.read_text() == "keep\n"
