# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render mode's tree as a GitOps controller takes it: ``kubectl kustomize`` of the directory yields exactly the
rendered objects, for the example inventory and every topology, and applying it wave by wave (Argo CD's order) with
``kubectl apply --server-side`` on the real API server stores each object as rendered. No operator runs here: the
tree holds no operator yet, and the custom resources are stored as the API server stores them."""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest
import yaml
from harness.control_plane import build
from test_render_playbook import ROOT, run_playbook
from test_topologies import TOPOLOGIES

INVENTORIES = [ROOT / "examples" / "inventory" / "hosts.yml", *sorted(TOPOLOGIES.glob("*.yml"))]
WAVE = "argocd.argoproj.io/sync-wave"


def render(inventory: pathlib.Path, out: pathlib.Path, *extra: str) -> list[dict]:
    done = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory), "-e", f"site_render_dir={out}", *extra)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return [yaml.safe_load(path.read_text()) for path in sorted(out.glob("*.yaml")) if path.name != "kustomization.yaml"]


def canonical(objects: list[dict]) -> list[str]:
    return sorted(json.dumps(obj, sort_keys=True) for obj in objects)


@pytest.mark.parametrize("inventory", INVENTORIES, ids=lambda p: p.stem)
def test_kubectl_kustomize_yields_exactly_the_rendered_objects(inventory, tmp_path):
    rendered = render(inventory, tmp_path / "tree")
    built = subprocess.run([str(build() / "kubectl"), "kustomize", str(tmp_path / "tree")], capture_output=True,
                           text=True, check=False, timeout=120)
    assert built.returncode == 0, built.stderr
    assert canonical([d for d in yaml.safe_load_all(built.stdout) if d]) == canonical(rendered)
    assert all(WAVE in obj["metadata"].get("annotations", {}) for obj in rendered)


@pytest.mark.parametrize("mode", ["standalone", "hco"])
def test_applied_wave_by_wave_the_tree_lands_as_rendered(mode, tmp_path, empty_control_plane):
    plane = empty_control_plane
    out = tmp_path / "tree"
    rendered = render(ROOT / "examples" / "inventory" / "hosts.yml", out, "-e", f"site_mode={mode}")
    by_wave: dict[int, list[pathlib.Path]] = {}
    for path in sorted(out.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        obj = yaml.safe_load(path.read_text())
        by_wave.setdefault(int(obj["metadata"]["annotations"][WAVE]), []).append(path)
    assert sorted(by_wave)[0] == -3 and all(
        yaml.safe_load(p.read_text())["kind"] == "Namespace" for p in by_wave[-3])
    for wave in sorted(by_wave):   # Argo CD's order: each wave after the one before it
        plane.kubectl_run("apply", "--server-side", f"--field-manager=gitops-{mode}",
                          *[f"-f={path}" for path in by_wave[wave]])
    for obj in rendered:
        meta = obj["metadata"]
        where = ["-n", meta["namespace"]] if meta.get("namespace") else []
        # The version as rendered (kubectl would read the HyperConverged at the CRD's preferred version, v1).
        group, _slash, version = obj["apiVersion"].rpartition("/")
        resource = f"{obj['kind'].lower()}.{version}.{group}" if group else obj["kind"].lower()
        stored = json.loads(plane.kubectl_run("get", resource, meta["name"], *where, "-o", "json").stdout)
        assert stored["metadata"]["annotations"][WAVE] == meta["annotations"][WAVE]
        if obj["kind"] == "HyperConverged":
            # Stored as v1, which HCO's conversion webhook converts to (it cannot run here: without it the API
            # server prunes the v1beta1 fields v1 does not have). That it was stored is what this test can show.
            continue
        for key in ("spec", "data"):
            if key in obj and key in stored:
                assert _contains(stored[key], obj[key]), (obj["kind"], meta["name"], key)
    kinds = {obj["kind"] for obj in rendered}
    assert ("HyperConverged" in kinds) == (mode == "hco") and ("KubeVirt" in kinds) == (mode == "standalone")


def _contains(stored, rendered) -> bool:
    """Every value rendered is stored (the API server adds defaults of its own)."""
    if isinstance(rendered, dict):
        return isinstance(stored, dict) and all(k in stored and _contains(stored[k], v) for k, v in rendered.items())
    if isinstance(rendered, list):
        return isinstance(stored, list) and len(stored) == len(rendered) and all(
            _contains(s, r) for s, r in zip(stored, rendered))
    return stored == rendered


def test_with_olm_the_tree_holds_the_hyperconverged_and_no_operand_beside_it(tmp_path):
    # site_mode auto in render mode follows the operators source: through OLM the site installs HCO, which builds
    # the operands, so the tree holds the HyperConverged and never standalone operands HCO would fight over.
    out = tmp_path / "tree"
    done = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(ROOT / "examples" / "inventory" / "hosts.yml"),
                        "-e", f"site_render_dir={out}", "-e", "site_operators_source=olm")
    assert done.returncode == 0, done.stdout[-3000:]
    kinds = {yaml.safe_load(p.read_text())["kind"] for p in out.glob("*.yaml")}
    assert "HyperConverged" in kinds and not kinds & {"KubeVirt", "CDI", "NetworkAddonsConfig", "SSP"}
    assert "rendered for hco mode: site_mode auto and site_operators_source olm" in done.stdout
