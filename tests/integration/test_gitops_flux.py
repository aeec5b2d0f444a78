# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The GitOps guide's Flux layout in a ``flux bootstrap`` repository, synced by Flux's own code: every path built as
kustomize-controller builds it (github.com/fluxcd/pkg/kustomize's generator and SecureBuild), applied and waited for
as it applies and waits (github.com/fluxcd/pkg/ssa: ApplyAllStaged, kstatus, with the chain's healthCheckExprs read
by github.com/fluxcd/pkg/runtime/cel), stage by stage in the guide's dependsOn order, on a real API server with the
real controllers and kwok's nodes (tests/harness/flux_sync). virt-operator, kubernetes-nmstate's operator,
cdi-operator and cluster-network-addons-operator cannot run here: they are stood in for (setting the status each
would set), as in test_gitops_tree."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest
import yaml
from harness.go_tools import built
from test_gitops_tree import guide_files, render, stored
from test_operators import FakeConditionsOperator, connect
from test_render_playbook import ROOT
from test_site_operators import operator_settings, operators_stood_in, release_dir

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops import FOLDERS

# What `flux bootstrap --path=clusters/prod` commits: Flux's components (stood for by their Namespace) and the sync
# objects whose Kustomization reconciles ./clusters/prod.
GOTK_SYNC = """\
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m0s, ref: {branch: main}, url: ssh://git@example.com/platform/fleet}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m0s, path: ./clusters/prod, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
"""


@pytest.fixture(scope="module")
def flux_sync() -> pathlib.Path:
    return built("build-flux-sync")


def bootstrap_repository(repo: pathlib.Path) -> list[pathlib.Path]:
    """The repository flux bootstrap leaves, with the guide's six Kustomizations beside flux-system: their files."""
    system = repo / "clusters" / "prod" / "flux-system"
    system.mkdir(parents=True)
    (system / "gotk-components.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: flux-system}\n")
    (system / "gotk-sync.yaml").write_text(GOTK_SYNC)
    (system / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        "  - gotk-components.yaml\n  - gotk-sync.yaml\n")
    written = []
    for name, texts in sorted(guide_files().items()):
        if name.startswith("clusters/prod/"):
            (repo / name).write_text(texts[0])
            written.append(repo / name)
    return written


def test_the_guides_flux_layout_syncs_stage_by_stage_with_fluxs_own_build_apply_and_wait(
        flux_sync, tmp_path, empty_cluster):
    plane = empty_cluster
    repo = tmp_path / "repo"
    kustomizations = bootstrap_repository(repo)
    assert [path.name for path in kustomizations] == [f"virt-{folder}.yaml" for folder in FOLDERS.values()]
    flux_settings = yaml.safe_load(guide_files()["group_vars/all/gitops.yml"][1])
    out = repo / flux_settings["site_render_dir"]
    snapshot = tmp_path / "nodes.yaml"
    snapshot.write_text(plane.kubectl_run("get", "nodes", "-o", "yaml").stdout)
    settings = {**operator_settings(release_dir(tmp_path / "releases")), **flux_settings, "site_render_dir": str(out)}
    rendered = render(ROOT / "examples" / "inventory" / "hosts.yml", out, "-e", json.dumps(settings),
                      "-e", "site_platform_version=1.34", "-e", f"site_nodes_snapshot={snapshot}")
    workloads = [o for o in rendered if o["kind"] in ("Deployment", "DaemonSet")]
    assert workloads and any(o["kind"] == "NodeNetworkConfigurationPolicy" for o in rendered)

    # flux-system's own path (no kustomization.yaml: Flux generates one) takes flux-system and the six
    # Kustomizations, never the tree: it lives outside the bootstrap path.
    built = subprocess.run([str(flux_sync), "build", str(repo), "./clusters/prod"], capture_output=True, text=True,
                           check=False, timeout=300)
    assert built.returncode == 0, built.stderr
    objects = [d for d in yaml.safe_load_all(built.stdout) if d]
    assert sorted(o["kind"] for o in objects) == sorted(["Namespace", "GitRepository"] + ["Kustomization"] * 7)
    # The premise: a tree under the bootstrap path is taken whole by flux-system's generated kustomization.
    inside = repo / "clusters" / "prod" / "virt"
    shutil.copytree(out, inside)
    taken = subprocess.run([str(flux_sync), "build", str(repo), "./clusters/prod"], capture_output=True, text=True,
                           check=False, timeout=300)
    shutil.rmtree(inside)
    assert taken.returncode == 0 and "kind: NodeNetworkConfigurationPolicy" in taken.stdout, taken.stderr

    # Each stage as kustomize-controller reconciles it, in the guide's dependsOn order; every one on its first attempt.
    # The chain's health checks hold each stage until its operators report their operands Available: cdi-operator
    # and cluster-network-addons-operator, which cannot run here either, are stood in for too.
    conditions = [FakeConditionsOperator(connect(plane), "cdi-operator", "/apis/cdi.kubevirt.io/v1beta1/cdis",
                                         subresource=False),
                  FakeConditionsOperator(connect(plane), "cluster-network-addons-operator",
                                         "/apis/networkaddonsoperator.network.kubevirt.io/v1/networkaddonsconfigs")]
    for stand_in in conditions:
        stand_in.start()
    try:
        with operators_stood_in(plane):
            synced = subprocess.run([str(flux_sync), "--timeout", "240s", "--attempts", "2", "--retry-interval", "10s",
                                     "sync", str(plane.kubeconfig), str(repo), *map(str, kustomizations)],
                                    capture_output=True, text=True, check=False, timeout=1800)
    finally:
        for stand_in in conditions:
            stand_in.stop.set()
            stand_in.join()
    attempts = [json.loads(line) for line in synced.stdout.splitlines() if line.startswith("{")]
    assert synced.returncode == 0, synced.stdout[-4000:] + synced.stderr[-3000:]
    assert [(a["kustomization"], a["attempt"]) for a in attempts] == [
        (f"virt-{folder}", 1) for folder in FOLDERS.values()], attempts
    assert all(a["waited"] for a in attempts if a["applied"]), attempts   # each stage waited for something
    # The last stage reached, every object stored, every workload rolled out on kwok's nodes.
    assert [name for name, obj in ((o["metadata"]["name"], stored(plane, o)) for o in rendered) if obj is None] == []
    for workload in workloads:
        meta = workload["metadata"]
        rolled = plane.kubectl_run("rollout", "status", f"{workload['kind'].lower()}/{meta['name']}",
                                   "-n", meta["namespace"], "--timeout=120s", check=False)
        assert rolled.returncode == 0, (meta["name"], rolled.stdout + rolled.stderr)

    # In sync after the first sync: what the API server defaulted, the webhooks and controllers added and the stand-ins
    # reported since are not drift. kustomize-controller's next reconcile (ssa's dry-run diff of every object) finds
    # every object unchanged, and so writes nothing.
    again = subprocess.run([str(flux_sync), "--timeout", "120s", "--attempts", "1", "sync", str(plane.kubeconfig),
                            str(repo), *map(str, kustomizations)], capture_output=True, text=True, check=False,
                           timeout=900)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-3000:]
    entries = [entry for line in again.stdout.splitlines() if line.startswith("{")
               for entry in json.loads(line)["applied"] or []]
    assert len(entries) >= len(rendered), entries
    assert [entry for entry in entries if not entry.endswith(" unchanged")] == [], entries
