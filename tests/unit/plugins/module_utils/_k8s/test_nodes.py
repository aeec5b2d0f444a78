# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import json

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.nodes import CHUNK_SIZE, NodesError, listed, node_of, snapshot


def node(name, **status):
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {"providerID": f"kubevirt://{name}", "taints": [{"key": "k", "effect": "NoSchedule"}]},
            "status": {"capacity": {"memory": "263856120Ki", "cpu": "64"}, "allocatable": {"memory": "250Gi"},
                       "nodeInfo": {"architecture": "arm64"},
                       "addresses": [{"type": "Hostname", "address": name}, {"type": "InternalIP", "address": "10.0.0.7"},
                                     {"type": "InternalIP", "address": "fd00::7"}], **status}}


class Pages:
    """An API server's paged LIST of Nodes as apimachinery answers it: ``limit`` items and a ``continue`` token while
    more are left; ``expire`` answers 410 to the token of that page once."""

    def __init__(self, count, expire=None):
        self.items = [node(f"n{index:03d}") for index in range(count)]
        self.expire, self.queries = expire, []

    def request(self, method, path, query=None):
        assert (method, path) == ("GET", "/api/v1/nodes")
        self.queries.append(dict(query or {}))
        start = int((query or {}).get("continue") or 0)
        if self.expire is not None and start == self.expire:
            self.expire = None
            raise KubeError("The provided continue parameter is too old", status=410)
        limit = (query or {}).get("limit") or len(self.items)
        page = self.items[start:start + limit]
        more = start + limit < len(self.items)
        return {"kind": "NodeList", "metadata": {"continue": str(start + limit)} if more else {}, "items": page}


def test_a_node_is_read_as_the_site_and_the_inventory_need_it():
    read = node_of({**node("w1"), "kind": "Node"}, "w1")
    assert (read.memory, read.architecture, read.provider) == ("263856120Ki", "arm64", "kubevirt://w1")
    assert read.address("InternalIP") == "10.0.0.7" and read.address("ExternalIP") is None
    assert read.planned() == {"name": "w1", "labels": {"kubernetes.io/hostname": "w1"},
                              "taints": [{"key": "k", "effect": "NoSchedule"}], "memory": "263856120Ki",
                              "architecture": "arm64", "provider": "kubevirt://w1"}


def test_the_list_is_read_page_by_page_as_kubectl_reads_it():
    pages = Pages(CHUNK_SIZE * 2 + 1)
    found = listed(pages)
    assert len(found) == CHUNK_SIZE * 2 + 1 and len({n.name for n in found}) == len(found)
    assert [q.get("continue") for q in pages.queries] == [None, str(CHUNK_SIZE), str(CHUNK_SIZE * 2)]
    assert all(q["limit"] == CHUNK_SIZE for q in pages.queries)


def test_an_expired_page_token_reads_the_whole_list_again_without_pages():
    pages = Pages(CHUNK_SIZE + 3, expire=CHUNK_SIZE)
    found = listed(pages)
    assert len(found) == CHUNK_SIZE + 3   # nothing counted twice
    assert pages.queries[-1] == {}


def test_another_error_is_raised():
    class Forbidden:
        def request(self, *_args, **_kwargs):
            raise KubeError('nodes is forbidden: User "limited" cannot list resource "nodes"', status=403)

    with pytest.raises(KubeError, match="forbidden"):
        listed(Forbidden())


def test_a_snapshot_is_what_kubectl_get_nodes_prints():
    listing = {"apiVersion": "v1", "kind": "List", "items": [{**node("b"), "apiVersion": "v1", "kind": "Node"},
                                                             {**node("a"), "apiVersion": "v1", "kind": "Node"}]}
    assert [n.name for n in snapshot("nodes.json", json.dumps(listing))] == ["a", "b"]
    text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: w1}\n"
    assert [n.memory for n in snapshot("nodes.yaml", text)] == [None]


@pytest.mark.parametrize(("text", "said"), [
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "kind 'ConfigMap' is not a Node"),
    ("", "no Node in it"),
    ("kind: Node\nmetadata: {}\n", "items[0].metadata.name: required"),
    ("kind: Node\nmetadata: {name: a}\nspec: {taints: oops}\n", "items[0].spec.taints: must be a list of taints"),
    ("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: a}\n", "items[1]: Node a is listed twice"),
    ("kind: Node\nmetadata: {name: [\n", "snap.yaml"),
])
def test_a_bad_snapshot_is_named_with_its_file(text, said):
    with pytest.raises(NodesError) as caught:
        snapshot("snap.yaml", text)
    assert said in str(caught.value) and "snap.yaml" in str(caught.value)
