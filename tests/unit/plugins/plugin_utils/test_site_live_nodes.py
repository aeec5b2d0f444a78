# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_live_nodes import live_nodes

VALUES = {"nodes_snapshot": "", "kubeconfig": "", "context": "", "admin_kubeconfig": "", "admin_context": ""}


def test_render_mode_without_a_snapshot_plans_from_the_inventory():
    found = live_nodes(VALUES, False, {})
    assert found.nodes is None and found.problems == () and found.requests is None


def test_a_snapshot_is_read_and_named_as_the_source(tmp_path):
    path = tmp_path / "nodes.yaml"
    path.write_text("apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: w1}\n", encoding="utf-8")
    found = live_nodes({**VALUES, "nodes_snapshot": str(path)}, False, {})
    assert found.nodes is not None and [n.name for n in found.nodes] == ["w1"] and found.source == f"site_nodes_snapshot {path}"


def test_a_missing_or_broken_snapshot_is_a_problem_of_the_setting(tmp_path):
    missing = live_nodes({**VALUES, "nodes_snapshot": str(tmp_path / "none.yaml")}, False, {})
    assert missing.problems == (f"site_nodes_snapshot: cannot read {tmp_path / 'none.yaml'}: No such file or directory",)
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: ConfigMap\nmetadata: {name: x}\n", encoding="utf-8")
    assert live_nodes({**VALUES, "nodes_snapshot": str(broken)}, False, {}).problems[0].startswith(
        f"site_nodes_snapshot: {broken}: items[0]: kind 'ConfigMap' is not a Node")


def test_apply_mode_refuses_a_mistyped_tls_variable_naming_it_before_connecting():
    # The module's argument spec refuses K8S_AUTH_VERIFY_SSL=ture; the site's read of the Nodes, which runs before any
    # module, refuses it the same way instead of reading it as false. Nothing listens at the host: a connection made
    # anyway would be a different problem.
    environ = {"K8S_AUTH_HOST": "https://127.0.0.1:9", "K8S_AUTH_API_KEY": "t", "K8S_AUTH_VERIFY_SSL": "ture"}
    found = live_nodes(VALUES, True, environ)
    assert found.nodes is None and found.requests is None
    (problem,) = found.problems
    assert problem.startswith("K8S_AUTH_VERIFY_SSL: argument 'validate_certs'") and "not a valid boolean" in problem
