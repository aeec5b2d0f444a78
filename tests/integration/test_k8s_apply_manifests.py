# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Manifest files read as kubectl reads them: the same file through ``kubectl apply --server-side`` and through
k8s_apply's ``src`` (ansible-playbook), on the same API server; what each stored is compared, never a copied table."""

from __future__ import annotations

import json
import pathlib

import pytest
from test_render_playbook import run_playbook

# Every plain scalar form whose reading differs between YAML 1.1 (PyYAML) and go-yaml v2 (kubectl), and some that
# agree; keys too. Stored in a custom resource that keeps unknown fields, so the server keeps the JSON type.
SCALARS = """\
  time: 1:30
  sexagesimal: 190:20:30
  octal: 017
  octal_o: 0o17
  not_octal: 08
  hex: 0x1F
  binary: 0b101
  neg_binary: -0b101
  underscored: 1_000
  plus: +12
  exponent: 1e3
  exponent_dot: 1.5E+3
  dot: .5
  float: 3.25
  big: 9223372036854775808
  bigger: 18446744073709551616
  huge: 1e400
  y_letter: y
  n_letter: N
  yes_word: Yes
  on_word: on
  off_word: OFF
  true_word: True
  mixed: tRUE
  nulls: ~
  empty:
  date: 2001-12-14
  datetime: 2001-12-14t21:59:43.10-05:00
  spaced_time: 2001-12-14 21:59:43.10
  hexfloat: 0x1p-2
  word: infinity
  equals: =
  quoted: '017'
  keys:
    y: a
    n: b
    017: c
    1e3: d
    1.5: e
    0x10: f
    true: g
    1e7: h
  binary_tag: !!binary aGVsbG8=
  local_tag: !Ref name
  merged:
    <<: {x: 1, y: 2}
    x: 3
  merged_after: {a: 1, <<: {a: 2}}
  merged_list: {<<: [{p: 1, q: 1}, {p: 2, r: 2}]}
  bare_tag: ! 123
  bare_tag_word: ! true
  float_tag: !!float 3
  str_tag: !!str 0x10
"""

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: scalars.manifests.virtinfra.io}
spec:
  group: manifests.virtinfra.io
  scope: Cluster
  names: {plural: scalars, singular: scalar, kind: Scalar, listKind: ScalarList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""


def scalar(name: str, extra: str = "") -> str:
    return f"apiVersion: manifests.virtinfra.io/v1\nkind: Scalar\nmetadata:\n  name: {name}\nspec:\n{SCALARS}{extra}"


def playbook(path: pathlib.Path, control_plane, src: list[str], apply_set: str) -> pathlib.Path:
    task = {"virtinfra.hyperconverged.k8s_apply": {"kubeconfig": str(control_plane.kubeconfig), "src": src,
                                                   "apply_set": apply_set, "apply_set_namespace": "default"},
            "name": "Apply the manifests", "register": "applied"}
    path.write_text(json.dumps([{"hosts": "localhost", "connection": "local", "gather_facts": False,
                                 "tasks": [task]}]))
    return path


def stored(control_plane, *what: str) -> dict:
    return json.loads(control_plane.kubectl_run("get", *what, "-o", "json").stdout)


@pytest.fixture(scope="module")
def scalar_kind(control_plane):
    control_plane.kubectl_run("apply", "--server-side", "-f", "-", input=CRD)
    control_plane.kubectl_run("wait", "--for=condition=Established", "crd/scalars.manifests.virtinfra.io",
                              "--timeout=60s")


def test_every_scalar_form_is_stored_as_kubectl_stores_it(tmp_path, control_plane, scalar_kind):
    theirs, ours = tmp_path / "kubectl.yaml", tmp_path / "ours"
    theirs.write_text(scalar("by-kubectl"))
    ours.mkdir()
    (ours / "scalar.yaml").write_text(scalar("by-k8s-apply"))
    control_plane.kubectl_run("apply", "--server-side", "-f", str(theirs))
    run = run_playbook(playbook(tmp_path / "play.yml", control_plane, [str(ours)], "scalars"))
    assert run.returncode == 0, run.stdout + run.stderr
    kubectl_spec = stored(control_plane, "scalar", "by-kubectl")["spec"]
    our_spec = stored(control_plane, "scalar", "by-k8s-apply")["spec"]
    assert our_spec == kubectl_spec
    # Not two readers agreeing on nothing: the forms YAML 1.1 reads otherwise are in what kubectl stored.
    assert (kubectl_spec["time"], kubectl_spec["octal_o"], kubectl_spec["not_octal"], kubectl_spec["y_letter"]) == \
        ("1:30", 15, 8, True)
    assert kubectl_spec["date"] == "2001-12-14" and kubectl_spec["keys"]["true"] in ("a", "g")
    again = run_playbook(playbook(tmp_path / "play.yml", control_plane, [str(ours)], "scalars"))
    assert again.returncode == 0 and "changed=0" in again.stdout, again.stdout


@pytest.mark.parametrize(("index", "value", "said"), [
    # A number JSON cannot carry.
    (0, ".inf", "unsupported value"), (1, "-.Inf", "unsupported value"), (2, ".nan", "unsupported value"),
    # A tag its value does not resolve to (go-yaml v2, resolve.go: a !!float takes an integer, nothing else).
    (3, "!!int 1.5", "cannot decode"), (4, "!!bool 1", "cannot decode"), (5, "!!int true", "cannot decode"),
    (6, "!!float yes", "cannot decode"),
])
def test_a_value_kubectl_refuses_is_refused_by_both_with_its_file_and_line(
        tmp_path, control_plane, scalar_kind, index, value, said):
    name = f"refused-{index}"
    path = tmp_path / "manifests" / "bad.yaml"
    path.parent.mkdir()
    path.write_text(f"apiVersion: manifests.virtinfra.io/v1\nkind: Scalar\nmetadata:\n  name: {name}\nspec:\n"
                    f"  ok: 1\n  bad: {value}\n")
    kubectl = control_plane.kubectl_run("apply", "--server-side", "-f", str(path), check=False)
    assert kubectl.returncode != 0 and said in kubectl.stderr, kubectl.stderr
    run = run_playbook(playbook(tmp_path / "play.yml", control_plane, [str(path)], name))
    assert run.returncode != 0
    assert f"{path}" in run.stdout and said in run.stdout and "(line 7, column 8)" in run.stdout, run.stdout
    assert control_plane.kubectl_run("get", "scalar", name, check=False).returncode != 0   # nothing written


def test_a_document_nested_thousands_deep_is_applied_as_kubectl_applies_it(tmp_path, control_plane, scalar_kind):
    # A flow list 5,000 deep: kubectl reads up to 10,000 levels; here up to 9,000 (depth.py), deeper named.
    deep = "[" * 5000 + "1" + "]" * 5000
    theirs, ours = tmp_path / "kubectl.yaml", tmp_path / "ours" / "deep.yaml"
    ours.parent.mkdir()
    header = "apiVersion: manifests.virtinfra.io/v1\nkind: Scalar\nmetadata:\n  name: {name}\nspec:\n"
    theirs.write_text(header.format(name="deep-by-kubectl") + f"  deep: {deep}\n")
    ours.write_text(header.format(name="deep-by-us") + f"  deep: {deep}\n")
    control_plane.kubectl_run("apply", "--server-side", "-f", str(theirs))
    run = run_playbook(playbook(tmp_path / "play.yml", control_plane, [str(ours)], "deep"))
    assert run.returncode == 0, run.stdout[-3000:]
    by_us, by_kubectl = (stored(control_plane, "scalar", name) for name in ("deep-by-us", "deep-by-kubectl"))
    assert by_us["spec"] == by_kubectl["spec"]
    # Deeper than an apply here carries: refused before anything is sent, the file named.
    too_deep = tmp_path / "deeper" / "deeper.yaml"
    too_deep.parent.mkdir()
    too_deep.write_text(header.format(name="deeper") + "  deep: " + "[" * 9500 + "1" + "]" * 9500 + "\n")
    refused = run_playbook(playbook(tmp_path / "play.yml", control_plane, [str(too_deep)], "deeper"))
    assert refused.returncode != 0
    assert f"{too_deep}" in refused.stdout and "levels deep" in refused.stdout, refused.stdout[-3000:]
    assert control_plane.kubectl_run("get", "scalar", "deeper", check=False).returncode != 0


def test_byte_order_marks_non_ascii_names_and_characters_past_the_bmp_arrive_intact(tmp_path, control_plane):
    text = "caf\u00e9 \U0001f600 \u4e2d\u6587"
    role_name = "r\u00f4le-\U0001f600"
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": role_name, "annotations": {"note": text}}, "rules": []}
    config = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "unicode-data", "namespace": "default"}, "data": {"text": text}}
    ours = tmp_path / "ours"
    ours.mkdir()
    # A byte-order mark before JSON and before YAML, as editors on Windows write them.
    (ours / "role.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(role, ensure_ascii=False).encode())
    (ours / "config.yaml").write_bytes(b"\xef\xbb\xbf" + json.dumps(config).encode())
    run = run_playbook(playbook(tmp_path / "play.yml", control_plane, [str(ours)], "unicode"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert stored(control_plane, "clusterrole", role_name)["metadata"]["annotations"]["note"] == text
    assert stored(control_plane, "configmap", "unicode-data", "-n", "default")["data"]["text"] == text
    # kubectl reads the same files (the BOMs included) into the same objects: its dry run finds the same values.
    for name, value in (("role.json", lambda o: o["metadata"]["annotations"]["note"]),
                        ("config.yaml", lambda o: o["data"]["text"])):
        dry = control_plane.kubectl_run("apply", "--server-side", "--dry-run=server", "--force-conflicts",
                                        "--field-manager=check",
                                        "-o", "json", "-f", str(ours / name))
        assert value(json.loads(dry.stdout)) == text
