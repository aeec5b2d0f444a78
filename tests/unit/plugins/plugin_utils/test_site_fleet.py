# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site across a fleet: a cluster planned from the whole of itself, the repository its trees sit in, and the
fleet's summary."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_fleet as site_fleet

VALUES = {"gitops_path": "", "gitops_repo_url": "", "gitops_revision": "HEAD", "argocd_project": "default"}


def test_a_render_from_part_of_a_clusters_nodes_is_refused_apply_and_a_snapshot_plan_from_the_cluster():
    expected, present = ["w1", "w2", "w3"], ["w1"]
    [problem] = site_fleet.partial_inventory(expected, present, apply=False, snapshot=False)
    assert problem.startswith("fleet_nodes: this run's inventory holds 1 of the cluster's 3 nodes (w2, w3 missing")
    assert "site_nodes_snapshot" in problem
    assert site_fleet.partial_inventory(expected, present, apply=True, snapshot=False) == []
    assert site_fleet.partial_inventory(expected, present, apply=False, snapshot=True) == []
    assert site_fleet.partial_inventory(expected, expected, apply=False, snapshot=False) == []


def test_the_tree_path_comes_from_the_work_tree_and_its_origin_without_the_credential_it_holds(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://bot:s3cret@git.example.com/fleet.git\n'
        '\tfetch = +refs/heads/*:refs/remotes/origin/*\n')
    found, problems = site_fleet.repository(str(repo / "sites" / "virt"), VALUES, str(tmp_path / "elsewhere"))
    assert problems == []
    assert found == {"url": "https://git.example.com/fleet.git", "revision": "HEAD", "path": "sites/virt",
                     "project": "default"}
    outside, problems = site_fleet.repository("/srv/render", VALUES, str(tmp_path))
    assert outside == {} and problems[0].startswith("site_gitops_path: the render directory /srv/render is neither")
    assert "are not written: set site_gitops_path to it" in problems[0]
    given, problems = site_fleet.repository("/srv/render", {**VALUES, "gitops_path": "/virt/",
                                                            "gitops_repo_url": "ssh://git@example.com/f"}, "/x")
    assert problems == [] and given["path"] == "virt" and given["url"] == "ssh://git@example.com/f"


def test_the_host_play_prepares_the_nodes_of_a_cluster_planned_to_be_configured():
    planned = {"config": {"apply": True, "state": "present"}}
    assert site_fleet.prepares(planned)
    assert not site_fleet.prepares({"config": {"apply": True, "state": "absent"}})
    assert not site_fleet.prepares({"config": {"apply": False, "state": "present"}})
    assert not site_fleet.prepares({**planned, "failed": True})
    assert not site_fleet.prepares(None)
    assert site_fleet.cluster_of({"fleet_cluster": "east"}) == "east"
    assert site_fleet.cluster_of({}) == "localhost"


def test_the_fleet_summary_names_every_cluster_by_its_outcome():
    summary = {"msg": ["apply mode (hco): 3 prerequisite and 1 KubeVirt object(s) changed - a credential is set",
                       "release profile: 1.18 (HCO 1.18.1), from the cluster"]}
    outcomes = [
        site_fleet.Outcome("a", {"config": {}}, summary, None),
        site_fleet.Outcome("b", {"failed": True, "errors": ["site_release: x", "site_mode: y"]}, None, None),
        site_fleet.Outcome("c", {"config": {}}, {**summary, "failed": True}, "KubeVirt: forbidden"),
        site_fleet.Outcome("d", None, None, None),
        site_fleet.Outcome("e", {"config": {}}, None, None),
    ]
    lines, whole = site_fleet.report(outcomes, ["d-w1", "d-w2"])
    assert not whole
    assert lines == [
        "fleet: 5 cluster(s): 1 done, 1 failed, 1 refused, 1 stopped, 1 not in this run",
        ("a: apply mode (hco): 3 prerequisite and 1 KubeVirt object(s) changed - a credential is set; release profile: "
         "1.18 (HCO 1.18.1), from the cluster"),
        "b: refused before any write, 2 problem(s): site_release: x; site_mode: y",
        ("c: apply mode (hco): 3 prerequisite and 1 KubeVirt object(s) changed - a credential is set; release profile: "
         "1.18 (HCO 1.18.1), from the cluster; FAILED: KubeVirt: forbidden - its summary says what was written; run "
         "again with --limit c to resume (its lock and apply sets are its own)"),
        "d: not in this run (a sliced job or --limit): nothing done there",
        "e: planned; stopped before its cluster side (see its host play)",
        ("nodes not prepared: d-w1, d-w2: their cluster is not in this run (a sliced job holds only some hosts: "
         "slice by cluster - see the fleet guide)"),
    ]
    assert site_fleet.report(outcomes[:1], []) == (["fleet: 1 cluster(s): 1 done", lines[1]], True)
    assert site_fleet.report([], []) == (["fleet: no cluster (the inventory has no host in kubevirt_clusters)"], False)
    assert site_fleet.output("/r", "east") == "/r/clusters/east" and site_fleet.output("/r", None) == "/r"


def test_host_play_settings_the_clusters_disagree_on_are_named():
    assert site_fleet.rollout_warnings({"a": {}, "b": {"site_node_batch": "100%"}}) == []
    [warning] = site_fleet.rollout_warnings({"a": {"site_node_batch": 2}, "b": {}})
    assert warning.startswith("site_node_batch: the fleet's clusters set different values (a: 2, b: 100%)")
