# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The seeded start (harness/etcd_seed.py): a new API server serves every CRD at once, and planes made from one
seed share nothing."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import yaml
from harness.control_plane import ControlPlane, build, shared_dir
from harness.etcd_seed import seed, seed_key, start_with_crds


def test_a_seeded_plane_serves_every_crd_and_keeps_its_writes_to_itself(control_plane, tmp_path):
    # What the CRD files declare, read here rather than taken from the seed's own record.
    declared = set()
    for path in (shared_dir() / "crds").glob("*.yaml"):
        for crd in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if crd:
                declared |= {(crd["spec"]["group"], v["name"], crd["spec"]["names"]["plural"])
                             for v in crd["spec"]["versions"] if v.get("served")}
    plane = ControlPlane(tmp_path / "seeded", build())
    try:
        start_with_crds(plane)
        # Served right away, without the wait for Established that install_crds ends with.
        listed = plane.kubectl_run("api-resources", "-o", "name").stdout.split()
        served = {(group, plural) for group, _version, plural in declared}
        assert {f"{plural}.{group}" for group, plural in served} <= set(listed)
        assert all(json.loads(plane.kubectl_run("get", "--raw", f"/apis/{group}/{version}").stdout)["resources"]
                   for group, version, _plural in declared)
        plane.kubectl_run("create", "configmap", "only-here", "-n", "default")
    finally:
        plane.stop()
    # The session's plane started from the same seed: the other plane's object is not in it, and a new plane
    # from the seed does not have it either (the seed itself was never written to).
    assert control_plane.kubectl_run("get", "configmap", "only-here", "-n", "default", check=False).returncode != 0
    again = ControlPlane(tmp_path / "again", build())
    try:
        start_with_crds(again)
        assert again.kubectl_run("get", "configmap", "only-here", "-n", "default", check=False).returncode != 0
    finally:
        again.stop()


def test_the_seed_follows_the_crds(tmp_path):
    crds = tmp_path / "crds"
    crds.mkdir()
    for path in sorted((shared_dir() / "crds").glob("*.yaml"))[:2]:
        (crds / path.name).write_bytes(path.read_bytes())
    before = seed_key(crds)
    (crds / "extra.yaml").write_text("# another file\n", encoding="utf-8")
    assert seed_key(crds) != before
    # The seed for the suite's CRDs is where the binaries are, so it goes when a new build replaces them.
    assert seed(build(), shared_dir() / "crds").parent == build().parent / "etcd-seeds"


def test_a_killed_runs_half_made_seed_is_removed_when_a_seed_is_made(tmp_path):
    crds = tmp_path / "crds"
    crds.mkdir()
    first = sorted((shared_dir() / "crds").glob("*.yaml"))[0]
    (crds / first.name).write_bytes(first.read_bytes())
    (crds / "this-test.yaml").write_text(f"# {tmp_path}\n", encoding="utf-8")   # a key no other run has
    left = build().parent / "etcd-seeds" / "seed-killed"
    left.mkdir(parents=True)
    made = seed(build(), crds)
    try:
        assert not left.exists()
        declared = yaml.safe_load(first.read_text(encoding="utf-8"))
        served = json.loads((made / "served.json").read_text(encoding="utf-8"))
        assert sorted(f"{declared['spec']['group']}/{v['name']}" for v in declared["spec"]["versions"] if v.get("served")) \
            == sorted(group_version for group_version, _plural in served)
    finally:
        shutil.rmtree(made)   # keyed by this test's own directory: no later run would use it


def test_a_failed_kubectl_step_says_what_kubectl_said(control_plane):
    # A harness step that fails under load (a seed's CRD install) must be diagnosable from the test report alone.
    with pytest.raises(subprocess.CalledProcessError, match="doesn't have a resource type \"nosuchkinds\""):
        control_plane.kubectl_run("get", "nosuchkinds")


def test_a_plane_whose_etcd_port_another_etcd_holds_starts_on_ports_of_its_own(control_plane, tmp_path):
    # A port chosen free can be taken by another plane's etcd before this one binds it; that etcd answers the health
    # check too, and an API server started against it would share another test's store.
    other = ControlPlane(tmp_path / "other", build(), etcd_port=control_plane.etcd_port)
    try:
        other.start()
        assert other.etcd_port != control_plane.etcd_port
        other.kubectl_run("create", "namespace", "only-in-the-other-plane")
        assert control_plane.kubectl_run("get", "namespace", "only-in-the-other-plane", check=False).returncode != 0
    finally:
        other.stop()
