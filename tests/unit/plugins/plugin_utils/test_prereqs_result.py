# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prereqs' result, as the module and the site's plan build it from one render."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import render
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._prereqs_result import prereqs_result

NODES = [{"name": "w1", "memory": "64Gi", "labels": {"node-role.kubernetes.io/worker": ""}, "taints": []}]
BRIDGE = {"name": "br1", "ports": ["eno2"], "vlans": [{"min": 100, "max": 100}],
          "networks": [{"name": "net100", "namespace": "vms", "vlan": 100}]}
SPEC = {"platform": "kubernetes", "version": "1.33", "hco_namespace": "kubevirt-hyperconverged", "nodes": NODES,
        "networking": {"bridges": [{**BRIDGE, "node_selector": {"node-role.kubernetes.io/worker": ""}}]}}


def kinds(objects):
    return [(o["kind"], o["metadata"]["name"]) for o in objects]


def test_a_configuration_also_creates_the_namespaces_its_objects_live_in():
    rendered = render(SPEC)
    plain = prereqs_result(rendered, SPEC, "present", create_namespaces=False)
    with_namespaces = prereqs_result(render(SPEC), SPEC, "present", create_namespaces=True)
    assert ("Namespace", "vms") not in kinds(plain["objects"])
    assert ("Namespace", "vms") in kinds(with_namespaces["objects"])
    assert set(kinds(plain["objects"])) < set(kinds(with_namespaces["objects"]))
    assert plain["msg"] == f"computed {len(rendered['objects'])} objects"


def test_a_removal_adds_no_namespace_to_what_it_deletes():
    swap = {**{key: value for key, value in SPEC.items() if key != "networking"},
            "swap": {"overcommit_percent": 150, "node_selector": {"node-role.kubernetes.io/worker": ""},
                     "encrypt": False, "hco_version": "1.20", "mechanism": "wasp-agent"}}
    configured = prereqs_result(render(swap), swap, "present", create_namespaces=True)
    removal = prereqs_result(render(swap, "absent"), swap, "absent", create_namespaces=True)
    assert len(configured["objects"]) > len(render(swap)["objects"])   # and the namespaces they live in
    # What the removal deletes is exactly what the render marks: no namespace is added to it.
    assert removal["objects"] == [] and removal["delete"] == render(swap, "absent")["delete"] != []


def test_warnings_are_returned_only_when_there_are_some():
    bare = {key: value for key, value in SPEC.items() if key != "networking"}
    assert "warnings" not in prereqs_result(render(bare), bare, "present", False)
    selective = {**SPEC, "networking": {"bridges": [{**BRIDGE, "node_selector": {"bridge": "yes"}}]}}
    warned = prereqs_result(render(selective), selective, "present", False)
    assert any("exists only on the nodes its node_selector matches" in w for w in warned["warnings"])
