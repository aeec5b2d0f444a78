# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Manifest files and directories read for k8s_apply's src (applied on a real API server: test_k8s_apply_src)."""

from __future__ import annotations

import json
import re
import textwrap

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.manifests import ManifestError, load, objects_of


def config_map(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "demo"}}


def names(manifests) -> list[str]:
    return [o["metadata"]["name"] for o in manifests.objects]


def test_a_directory_gives_its_manifests_in_name_order_and_skips_the_rest(tmp_path):
    (tmp_path / "b.yaml").write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: b1, namespace: demo}
        ---
        # a comment-only document is empty, and skipped
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: b2, namespace: demo}
        """))
    (tmp_path / "a.json").write_text(json.dumps([config_map("a1"), config_map("a2")]))
    listed = {"apiVersion": "v1", "kind": "List", "items": [config_map("c1"), config_map("c2")]}
    (tmp_path / "c.yml").write_text(json.dumps(listed))
    (tmp_path / "README.md").write_text("not a manifest")
    (tmp_path / ".hidden.yaml").write_text(json.dumps(config_map("hidden")))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deeper.yaml").write_text(json.dumps(config_map("deeper")))

    found = load([str(tmp_path)])

    assert found.errors == []
    assert names(found) == ["a1", "a2", "b1", "b2", "c1", "c2"]
    assert found.origins[0] == f"src[0] {tmp_path / 'a.json'}, document 1"
    assert found.origins[3] == f"src[0] {tmp_path / 'b.yaml'}, document 2"


def test_files_keep_the_order_given_and_a_file_may_be_named_twice(tmp_path):
    first, second = tmp_path / "z.yaml", tmp_path / "a.yaml"
    first.write_text(json.dumps(config_map("z")))
    second.write_text(json.dumps(config_map("a")))
    found = load([str(first), str(second), str(first)])
    assert names(found) == ["z", "a", "z"]   # the applier reports the duplicate, naming both places
    assert found.origins[2].startswith("src[2] ")


def test_a_document_that_is_not_an_object_is_kept_for_the_applier_to_refuse_with_its_origin(tmp_path):
    path = tmp_path / "odd.yaml"
    path.write_text("just a string\n---\n- 1\n- apiVersion: v1\n")
    found = load([str(path)])
    assert found.errors == []
    assert found.objects == ["just a string", 1, {"apiVersion": "v1"}]
    assert found.origins == [f"src[0] {path}, document 1", f"src[0] {path}, document 2",
                             f"src[0] {path}, document 2"]


def test_every_unreadable_input_is_reported_with_its_file_and_line(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(json.dumps(config_map("good")))
    broken_yaml = tmp_path / "broken.yaml"
    broken_yaml.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n   namespace: y\n")
    broken_json = tmp_path / "broken.json"
    broken_json.write_text('{"apiVersion": "v1",\n "kind": }')
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    (empty_dir / "notes.txt").write_text("")

    found = load([str(good), str(broken_yaml), str(broken_json), str(binary), str(empty_dir),
                  str(tmp_path / "missing.yaml"), "", "  "])

    assert names(found) == ["good"]
    by_option = {e["object"].split()[0]: e for e in found.errors}
    assert sorted(by_option) == [f"src[{i}]" for i in range(1, 8)]
    assert by_option["src[1]"]["object"] == f"src[1] {broken_yaml}"
    assert "is not valid YAML" in by_option["src[1]"]["message"] and "line 5" in by_option["src[1]"]["message"]
    assert "is not valid JSON" in by_option["src[2]"]["message"] and "line 2" in by_option["src[2]"]["message"]
    assert by_option["src[3]"]["message"].startswith("cannot be read")
    assert "has no .yaml, .yml, .json files" in by_option["src[4]"]["message"]
    assert "no such file or directory" in by_option["src[5]"]["message"]
    assert "empty value" in by_option["src[6]"]["message"] and "empty value" in by_option["src[7]"]["message"]
    assert all(e["index"] is None and e["path"] == "" for e in found.errors)


def test_yaml_is_read_safely(tmp_path):
    # A tag go-yaml does not know is dropped, as kubectl drops it: the node is read as the list it is, nothing runs.
    path = tmp_path / "tagged.yaml"
    path.write_text("apiVersion: !!python/object/apply:os.getcwd []\nkind: !Ref [a]\nname: !Sub x\n")
    found = load([str(path)])
    assert found.errors == [] and found.objects == [{"apiVersion": [], "kind": ["a"], "name": "x"}]


def test_a_relative_path_is_refused_even_where_the_working_directory_has_it(tmp_path, monkeypatch):
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "a.yaml").write_text(json.dumps(config_map("a")))
    monkeypatch.chdir(tmp_path)

    found = load(["manifests", str(tmp_path / "manifests")])

    assert names(found) == ["a"]   # the absolute path only
    message = ("is a relative path that was not found: on a local connection k8s_apply looks it up in the role's "
               "files/, then the playbook's files/ and directory; on a remote host give an absolute path")
    assert [(e["object"], e["message"]) for e in found.errors] == [("src[0] manifests", message)]


def test_a_url_and_a_kustomization_are_named_for_what_they_are(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    (tmp_path / "base" / "cm.yaml").write_text(json.dumps(config_map("kept")))

    found = load(["https://example.com/app.yaml", str(tmp_path / "base"), str(tmp_path / "base" / "kustomization.yaml")])

    assert names(found) == ["kept"]
    assert [(e["object"], e["message"].split(":")[0]) for e in found.errors] == [
        ("src[0] https://example.com/app.yaml", "is a URL"),
        (f"src[1] {tmp_path / 'base' / 'kustomization.yaml'}", "is a kustomization, which k8s_apply does not build"),
        (f"src[2] {tmp_path / 'base' / 'kustomization.yaml'}", "is a kustomization, which k8s_apply does not build")]


def test_a_vaulted_file_is_named_as_such_and_its_text_is_not_shown(tmp_path):
    vaulted = "$ANSIBLE_VAULT;1.1;AES256\n6231303539336433383036363539653164343661323033316634646336663365\n"
    (tmp_path / "secret.yaml").write_text(vaulted)

    found = load([str(tmp_path / "secret.yaml")])

    assert found.objects == []
    [error] = found.errors
    assert error["message"].startswith("is encrypted with Ansible Vault, which k8s_apply does not decrypt")
    assert "6231303539" not in error["message"]


def test_unreadable_entries_are_errors_never_skipped(tmp_path):
    (tmp_path / "a.yaml").write_text(json.dumps(config_map("a")))
    (tmp_path / "b.yaml").symlink_to(tmp_path / "gone.yaml")
    (tmp_path / "c.yaml").symlink_to(tmp_path / "c.yaml")
    (tmp_path / "notes.txt").symlink_to(tmp_path / "gone.txt")   # not a manifest name: not read, as kubectl
    found = load([str(tmp_path), str(tmp_path / "b.yaml")])
    assert names(found) == ["a"]
    assert [(e["object"], e["message"]) for e in found.errors] == [
        (f"src[0] {tmp_path / 'b.yaml'}", f"is a symbolic link to {tmp_path / 'gone.yaml'}, which does not exist"),
        (f"src[0] {tmp_path / 'c.yaml'}", "is a symbolic link loop"),
        (f"src[1] {tmp_path / 'b.yaml'}", f"is a symbolic link to {tmp_path / 'gone.yaml'}, which does not exist")]


def test_a_directory_of_only_broken_entries_is_not_called_empty(tmp_path):
    (tmp_path / "b.yaml").symlink_to(tmp_path / "gone.yaml")
    assert [e["message"] for e in load([str(tmp_path)]).errors] == [
        f"is a symbolic link to {tmp_path / 'gone.yaml'}, which does not exist"]


def test_aliases_are_measured_before_they_are_expanded(tmp_path):
    levels = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 10) + "]" for n in range(1, 9)]
    (tmp_path / "bomb.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n" + "\n".join(levels))
    (tmp_path / "loop.yaml").write_text("a: &a [*a]\n")
    (tmp_path / "fine.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: f}\n"
                                        "data: {copy: x}\nx-copy: *m\n")
    found = load([str(tmp_path)])
    assert names(found) == ["f"] and found.objects[0]["x-copy"] == {"name": "f"}
    messages = {e["object"].rsplit("/", 1)[-1]: e["message"] for e in found.errors}
    assert "more than 1,000,000 nodes" in messages["bomb.yaml"]
    assert "contains itself" in messages["loop.yaml"]


def test_expanded_size_counts_shared_nodes_as_often_as_they_are_used():
    import yaml

    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.manifests import (
        AliasBomb,
        expanded_size,
    )
    node = yaml.compose("a: &x [1, 2]\nb: *x\nc: *x\n")
    # mapping 1 + 3 keys + 3 x (sequence 1 + 2 scalars)
    assert expanded_size(node) == 1 + 3 + 3 * 3
    try:
        expanded_size(node, limit=10)
    except AliasBomb as exc:
        assert "more than 10 nodes" in str(exc)
    else:
        raise AssertionError("a document over the limit was accepted")


def test_content_starting_with_a_brace_is_json_whatever_the_file_is_called():
    # apimachinery's YAMLOrJSONDecoder sniffs the stream: a JSON object (or several) is read by JSON's rules, so
    # the \ud83d\ude00 pair that YAML refuses is one character, and a .json file holding YAML is read as YAML.
    expected = [{"a": "\U0001f600", "n": 1}, {"b": 2}]
    assert objects_of("a.yaml", '\ufeff {"a": "\\ud83d\\ude00", "n": 1.0}\n{"b": 2}') == expected
    assert objects_of("a.json", "- a: 1:30\n") == [{"a": "1:30"}]
    # A first object that is not JSON makes the stream YAML, as kubectl falls back to it; not in a .json file.
    assert objects_of("a.yaml", "{a: 1:30, b: y}\n---\n{c: 017}\n") == [{"a": "1:30", "b": True}, {"c": 15}]
    with pytest.raises(ManifestError, match="is not valid JSON: Expecting property name"):
        objects_of("a.json", "{a: 1}")
    # A list, which kubectl refuses, is read as JSON here: a list of objects.
    assert objects_of("a.yaml", '[{"a": "\\ud83d\\ude00"}]') == [{"a": "\U0001f600"}]


@pytest.mark.parametrize(("text", "where"), [
    ('{"a": "NaN",\n "b": NaN}', "NaN is not a number JSON can carry, and kubectl refuses it too (line 2, column 7)"),
    ('{"a": -Infinity}', "-Infinity is not a number JSON can carry"),
    ('{"a": 1e400}', "1e400 is not a number JSON can carry"),
])
def test_json_numbers_go_cannot_read_are_refused_with_their_line(text, where):
    with pytest.raises(ManifestError, match=re.escape(where)):
        objects_of("x.json", text)


def test_a_lone_surrogate_in_json_becomes_the_replacement_character_as_go_decodes_it():
    text = '{"a": "x\\ud800y", "\\udc00": "\\ud83d\\ude00"}'
    assert objects_of("a.json", text) == [{"a": "x\ufffdy", "\ufffd": "\U0001f600"}]


def test_json_objects_between_document_lines_read_as_kubectl_reads_them():
    # The file the latency bench gives kubectl: JSON objects joined by ---; a broken one named by its own line.
    assert objects_of("a.yaml", '{"a": 1}\n---\n{"b": 2}\n---\n{"c": y}\n') == [{"a": 1}, {"b": 2}, {"c": True}]
    with pytest.raises(ManifestError, match=r"is not valid YAML: .* \(line 4, column"):
        objects_of("a.yaml", '{"a": 1}\n---\n{"b": 2}\n{"c": [}\n')
