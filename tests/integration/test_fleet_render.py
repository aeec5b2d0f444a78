# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render mode across the fleet of test_fleet.py (four topologies, platforms and releases): a tree per cluster, each
the very tree the site renders for that cluster alone; the Argo CD ApplicationSet whose elements are the trees, each
a path kustomize builds; per cluster in the stages layout, the GitOps guide's Flux chain (which test_gitops_flux.py
syncs with Flux's own code) pointed at that cluster's folders. A re-render writes nothing; a change to one cluster
changes only its tree; a run that holds part of the fleet leaves the fleet's files alone."""

from __future__ import annotations

import hashlib
import json
import pathlib
import subprocess

import yaml
from harness.control_plane import build
from test_fleet import FLEET, fleet_summary, recap, write_fleet
from test_gitops_tree import guide_files
from test_render_playbook import ROOT, run_playbook

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops import FOLDERS

STAGES = "sno"   # the cluster rendered in the stages layout (Flux); the others flat
ORIGIN = "https://ci-bot:not-for-files@git.example.com/platform/fleet.git"


def render_fleet(inventory: pathlib.Path, limit: str = "kubevirt_clusters,localhost"):
    return run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "--limit", limit, "--forks", "8",
                        cwd=inventory.parent)


def digests(root: pathlib.Path) -> dict[str, tuple[str, int]]:
    """Each file below root: its content's digest and its inode change time (a rewrite changes the latter)."""
    return {str(path.relative_to(root)): (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_ctime_ns)
            for path in sorted(root.rglob("*")) if path.is_file()}


def single_render(folder: pathlib.Path, out: pathlib.Path) -> None:
    """The cluster alone, as a one-cluster inventory gives it: its settings as the inventory's, its nodes as
    kubevirt_nodes."""
    settings = yaml.safe_load((folder / "cluster.yml").read_text())
    hosts = yaml.safe_load((folder / "nodes.yml").read_text())["hosts"]
    inventory = folder.parent.parent.parent / f"{folder.name}-alone.yml"
    inventory.write_text(yaml.safe_dump({"all": {"vars": {**settings, "site_action": "render"},
                                                 "children": {"kubevirt_nodes": {"hosts": hosts}}}}))
    done = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", f"site_render_dir={out}")
    assert done.returncode == 0, done.stdout[-4000:]


def test_a_fleet_renders_a_tree_per_cluster_and_the_files_that_drive_them(tmp_path):
    repo = tmp_path / "repo"
    inventory = write_fleet(repo / "inventory", None)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", ORIGIN], check=True)
    (inventory.parent / "group_vars" / "kubevirt_clusters.yml").write_text(
        f"site_action: render\nsite_render_dir: {repo / 'fleet'}\n")
    stages_file = inventory.parent / "clusters" / STAGES / "cluster.yml"
    stages_file.write_text(stages_file.read_text() + "site_render_layout: stages\n")
    first = render_fleet(inventory)
    assert first.returncode == 0, first.stdout[-6000:]
    lines = fleet_summary(first.stdout)
    assert lines[0] == f"fleet: {len(FLEET)} cluster(s): {len(FLEET)} done", lines
    root = repo / "fleet"

    # Each cluster's tree is the tree the site renders for it alone, byte for byte. Alone, the cluster's argocd/
    # holds Argo CD's health checks; in the fleet they are once at its root, the same file.
    for name in ("kkp", STAGES):
        alone = tmp_path / f"{name}-alone"
        single_render(inventory.parent / "clusters" / name, alone)
        own = {k: v[0] for k, v in digests(alone).items()}
        checks = "argocd/configmap-argocd-argocd-cm.yaml"
        assert own.pop(checks) == digests(root)[checks][0]
        assert [k for k in own if k.startswith("argocd/")] == ["argocd/.virtinfra-rendered.json"]
        own.pop("argocd/.virtinfra-rendered.json")
        assert own == {k: v[0] for k, v in digests(root / "clusters" / name).items()}, name

    # The ApplicationSet: an Application per cluster, from the repository the render sits in (no credential), at
    # each tree's path in it, to the cluster Argo CD knows by that name.
    appset_file = root / "argocd" / "applicationset-argocd-virt-fleet.yaml"
    appset = yaml.safe_load(appset_file.read_text())
    assert appset["spec"]["template"]["spec"]["source"]["repoURL"] == "https://git.example.com/platform/fleet.git"
    elements = appset["spec"]["generators"][0]["list"]["elements"]
    assert elements == [{"cluster": name, "destination": name, "path": f"fleet/clusters/{name}"}
                        for name in sorted(FLEET)]
    assert "not-for-files" not in "".join(path.read_text() for path in root.rglob("*") if path.is_file())
    kubectl = build() / "kubectl"
    for element in elements:
        built = subprocess.run([str(kubectl), "kustomize", str(repo / element["path"])], capture_output=True,
                               text=True, check=False)
        assert built.returncode == 0, built.stderr
        kinds = [doc["kind"] for doc in yaml.safe_load_all(built.stdout)]
        assert "KubeVirt" in kinds or "HyperConverged" in kinds, (element, kinds)

    # Argo CD's health checks for the trees' kinds, as argocd-cm keys (test_argocd_health runs them in Argo's VM).
    health = yaml.safe_load((root / "argocd" / "configmap-argocd-argocd-cm.yaml").read_text())
    assert "resource.customizations.health.hco.kubevirt.io_HyperConverged" in health["data"]

    # Flux: the guide's chain, pointed at the stages cluster's folders; no chain for a flat tree.
    assert sorted(path.name for path in (root / "flux").iterdir() if path.is_dir()) == [STAGES]
    chain = [yaml.safe_load((root / "flux" / STAGES / f"kustomization-flux-system-virt-{folder}.yaml").read_text())
             for folder in FOLDERS.values()]
    guide = [yaml.safe_load(texts[0]) for name, texts in sorted(guide_files().items())
             if name.startswith("clusters/prod/virt-")]
    assert [k["spec"].pop("path") for k in chain] == [f"./fleet/clusters/{STAGES}/{folder}" for folder in FOLDERS.values()]
    for kustomization in guide:
        kustomization["spec"].pop("path")
    assert chain == guide

    # Rendered again: nothing written anywhere.
    before = digests(root)
    again = render_fleet(inventory)
    assert again.returncode == 0 and all(changed == 0 for changed, _failed in recap(again.stdout).values()), \
        again.stdout[-4000:]
    assert digests(root) == before

    # One cluster's change changes its tree only.
    kkp_file = inventory.parent / "clusters" / "kkp" / "cluster.yml"
    kkp_file.write_text(kkp_file.read_text() + "site_overcommit_percent: 130\n")
    changed = render_fleet(inventory)
    assert changed.returncode == 0, changed.stdout[-4000:]
    after = digests(root)
    moved = sorted({path.split("/", 2)[1] if path.startswith("clusters/") else path
                    for path in set(after) | set(before) if after.get(path) != before.get(path)})
    assert moved == ["kkp"], moved

    # A run that holds part of the fleet renders its clusters and leaves the fleet's files alone.
    before = digests(root)
    part = render_fleet(inventory, "kkp,localhost")
    assert part.returncode == 0, part.stdout[-4000:]
    lines = fleet_summary(part.stdout)
    assert lines[0] == f"fleet: {len(FLEET)} cluster(s): 1 done, {len(FLEET) - 1} not in this run", lines
    assert not any(line.startswith("gitops:") for line in lines), lines
    assert digests(root) == before
    assert json.loads((root / "argocd" / ".virtinfra-rendered.json").read_text())["files"] == [
        appset_file.name, "configmap-argocd-argocd-cm.yaml"]
