# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A new control plane that starts with the CRDs already in its etcd: a copy of a seed data directory.

Installing the 30 CRDs into a new API server (kubectl apply, then the wait for Established) cost about 4 of its
9 CPU seconds and 3 of its 11 s, and the test suite starts about twenty API servers on two busy cores. The seed is
the etcd data directory of a control plane that installed the CRDs and was then stopped; it is made once per
binaries and CRD set, kept beside the binaries (removed with them), and copied into each new work directory before
etcd starts. etcd takes its ports from its flags, so the copy serves on the new plane's own ports.

The API server reads the CRDs from etcd as it starts; start_with_crds returns once each CRD's group version lists
its resource, as the plane after install_crds did.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import pathlib
import shutil
import ssl
import tempfile
import time
import urllib.request

from harness.control_plane import ControlPlane, shared_dir

SERVED = "served.json"   # in the seed: what the CRDs serve, [group/version, plural] pairs


def seed_key(crd_dir: pathlib.Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(crd_dir.glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def seed(bindir: pathlib.Path, crd_dir: pathlib.Path) -> pathlib.Path:
    """The seed for these binaries and CRDs, made under a lock when it is missing (parallel workers wait)."""
    root = bindir.parent / "etcd-seeds"
    root.mkdir(exist_ok=True)
    path = root / seed_key(crd_dir)
    with open(root / ".lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (path / SERVED).exists():
            # Under the lock no other run is making one: a work directory here is a killed run's.
            for left in root.glob("seed-*"):
                shutil.rmtree(left, ignore_errors=True)
            _make(bindir, crd_dir, path)
    return path


def _make(bindir: pathlib.Path, crd_dir: pathlib.Path, path: pathlib.Path) -> None:
    work = pathlib.Path(tempfile.mkdtemp(prefix="seed-", dir=path.parent))
    try:
        plane = ControlPlane(work / "plane", bindir)
        try:
            plane.start()
            plane.install_crds(crd_dir)
            crds = json.loads(plane.kubectl_run("get", "crd", "-o", "json").stdout)["items"]
        finally:
            plane.stop()   # etcd is stopped before its directory is kept
        served = sorted({(f"{crd['spec']['group']}/{version['name']}", crd["spec"]["names"]["plural"])
                         for crd in crds for version in crd["spec"]["versions"] if version.get("served")})
        (plane.workdir / "etcd" / SERVED).write_text(json.dumps(served), encoding="utf-8")
        if path.exists():
            shutil.rmtree(path)   # a seed left half-made by a killed run
        (plane.workdir / "etcd").rename(path)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def start_with_crds(plane: ControlPlane, crd_dir: pathlib.Path | None = None, timeout: float = 120) -> ControlPlane:
    """plane.start() then plane.install_crds(crd_dir), the CRDs from a copy of the seed."""
    crd_dir = crd_dir or shared_dir() / "crds"
    source = seed(plane.bindir, crd_dir)
    plane.workdir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, plane.workdir / "etcd", ignore=shutil.ignore_patterns(SERVED))
    plane.start()
    waiting = json.loads((source / SERVED).read_text(encoding="utf-8"))
    deadline = time.monotonic() + timeout
    while waiting:
        waiting = [pair for pair in waiting if not _lists(plane, *pair)]
        if waiting and time.monotonic() > deadline:
            raise RuntimeError(f"the seeded API server did not serve {waiting} within {timeout}s")
        if waiting:
            time.sleep(0.2)
    return plane


def _lists(plane: ControlPlane, group_version: str, plural: str) -> bool:
    request = urllib.request.Request(f"{plane.server}/apis/{group_version}",
                                     headers={"Authorization": f"Bearer {plane.admin_token}"})
    context = ssl.create_default_context(cafile=str(plane.workdir / "certs" / "apiserver.crt"))
    context.check_hostname = False
    try:
        with urllib.request.urlopen(request, timeout=5, context=context) as response:
            return any(resource["name"] == plural for resource in json.load(response)["resources"])
    except (OSError, ValueError):   # not listening yet, or the group version not served yet (404)
        return False
