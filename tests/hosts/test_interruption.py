# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The test hosts' builds and scenarios killed at their worst moment: nothing reaches the host, the next run works.

Run by scripts/host-tests (root, podman, debootstrap, QEMU). Every kill is a SIGKILL of the whole process group
of what we started, the way a CI time limit or the end of a session stops it.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time
import typing as t

import pytest
from harness.hygiene import alive

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD_IMAGES = ROOT / "tests" / "hosts" / "build-images"
CACHE = pathlib.Path(os.environ.get("VIRTINFRA_CACHE", pathlib.Path.home() / ".cache" / "virtinfra-hyperconverged"))
STANDIN_DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9), "tty": (5, 0)}

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("podman") is None,
                                reason="needs root and the host tools (scripts/host-tools install)")


def _wait_for(probe: t.Callable[[], t.Any], timeout: float, what: str,
              process: subprocess.Popen | None = None, log: pathlib.Path | None = None) -> t.Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        if process is not None and process.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log else ""
            raise AssertionError(f"{what}: the process ended (exit {process.returncode}) first\n{tail}")
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def _processes() -> t.Iterator[tuple[int, str]]:
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                yield int(entry.name), (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")


def _root(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/root")
    except OSError:
        return ""


def _parent(pid: int) -> int:
    return int(pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _kill_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=60)


def _mounts_below(mountinfo: pathlib.Path, directory: pathlib.Path) -> list[str]:
    prefix = str(directory)
    return [line.split()[4] for line in mountinfo.read_text().splitlines()
            if line.split()[4] == prefix or line.split()[4].startswith(prefix + "/")]


# ---------------------------------------------------------------- the image build

@pytest.fixture
def throwaway_namespace(tmp_path: pathlib.Path) -> t.Iterator[int]:
    """A mount namespace of its own whose /dev is a stand-in tmpfs (device nodes + a sentinel); yields its PID."""
    setup = ["mount -t tmpfs standin-dev /dev"]
    setup += [f"mknod -m 666 /dev/{name} c {major} {minor}" for name, (major, minor) in STANDIN_DEVICES.items()]
    setup += ["echo keep > /dev/sentinel", "exec sleep infinity"]
    holder = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "--", "sh", "-euc",
                               "; ".join(setup)], start_new_session=True)
    _wait_for(lambda: _in_namespace(holder.pid, "test", "-f", "/dev/sentinel").returncode == 0, 20,
              "the stand-in /dev")
    try:
        yield holder.pid
    finally:
        _kill_group(holder)


def _in_namespace(holder: int, *argv: str, **kwargs: t.Any) -> subprocess.CompletedProcess:
    return subprocess.run(["nsenter", f"--target={holder}", "--mount", "--", *argv], capture_output=True,
                          text=True, check=False, **kwargs)


def _standin_listing(holder: int) -> str:
    return _in_namespace(holder, "sh", "-c", "ls -ln /dev; cat /dev/sentinel").stdout


def test_image_build_killed_inside_chroot_leaves_no_mount_and_the_next_build_works(
        throwaway_namespace: int, tmp_path: pathlib.Path) -> None:
    holder = throwaway_namespace
    main_cache = pathlib.Path(subprocess.run([str(BUILD_IMAGES)], check=True, capture_output=True,
                                             text=True).stdout.strip().splitlines()[-1])
    scratch_root = tmp_path / "hosts"
    scratch = scratch_root / main_cache.name
    scratch.mkdir(parents=True)
    subprocess.run(["cp", "-a", "--reflink=auto", str(main_cache / "deb12"), str(scratch / "deb12")], check=True)
    env = dict(os.environ, VIRTINFRA_HOSTS_CACHE=str(scratch_root), VIRTINFRA_BUILD_STAGES="vm")
    standin_before = _standin_listing(holder)
    build = subprocess.Popen(["nsenter", f"--target={holder}", "--mount", "--", str(BUILD_IMAGES)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    # The worst moment: apt-get running inside the chroot, with proc, sysfs and the /dev bind mounted below it.
    def chroot_apt() -> int | None:
        return next((pid for pid, cmdline in _processes()
                     if cmdline.startswith("apt-get install") and _root(pid).startswith(str(scratch))), None)

    try:
        apt = _wait_for(chroot_apt, 300, "apt-get inside the chroot", build)
        # Mount points as the shell that set up the chroot sees them (the chrooted apt-get sees them from inside).
        live = _mounts_below(pathlib.Path(f"/proc/{_parent(apt)}/mountinfo"), scratch)
        assert any(m.endswith("/dev") for m in live) and any(m.endswith("/proc") for m in live), live
    finally:
        _kill_group(build)

    _wait_for(lambda: not alive(apt), 30, "the killed build to go")
    assert _mounts_below(pathlib.Path(f"/proc/{holder}/mountinfo"), scratch) == []
    assert _mounts_below(pathlib.Path("/proc/self/mountinfo"), scratch) == []
    assert _standin_listing(holder) == standin_before

    rebuild = _in_namespace(holder, str(BUILD_IMAGES), env=env, timeout=900)
    assert rebuild.returncode == 0, rebuild.stderr[-3000:]
    assert (scratch / "vm" / "disk.img").stat().st_size > 0
    assert not (scratch / "vm.tmp").exists()
    assert _standin_listing(holder) == standin_before
    assert _mounts_below(pathlib.Path(f"/proc/{holder}/mountinfo"), scratch) == []


def test_build_refuses_to_remove_a_directory_with_a_mount_below_it(
        throwaway_namespace: int, tmp_path: pathlib.Path) -> None:
    holder = throwaway_namespace
    main_cache = pathlib.Path(subprocess.run([str(BUILD_IMAGES)], check=True, capture_output=True,
                                             text=True).stdout.strip().splitlines()[-1])
    scratch = tmp_path / "hosts" / main_cache.name
    leftover = scratch / "vm.tmp" / "root" / "dev"
    leftover.mkdir(parents=True)
    (scratch / "deb12").mkdir()
    # A bind of the stand-in /dev below the leftover build directory, as an old build killed mid-chroot left it.
    assert _in_namespace(holder, "mount", "--bind", "/dev", str(leftover)).returncode == 0
    env = dict(os.environ, VIRTINFRA_HOSTS_CACHE=str(tmp_path / "hosts"), VIRTINFRA_BUILD_STAGES="vm")
    refused = _in_namespace(holder, str(BUILD_IMAGES), env=env, timeout=60)
    assert refused.returncode != 0
    assert "refusing to remove" in refused.stderr and str(leftover) in refused.stderr
    assert "keep" in _standin_listing(holder)
    assert _in_namespace(holder, "umount", str(leftover)).returncode == 0


# ---------------------------------------------------------------- the scenarios

def _molecule(scenario: str, *command: str, log: pathlib.Path) -> subprocess.Popen:
    env = dict(os.environ, MOLECULE_EPHEMERAL_DIRECTORY=str(CACHE / "molecule" / scenario))
    with log.open("ab") as output:
        return subprocess.Popen([str(pathlib.Path(sys.executable).with_name("molecule")), *command, "-s", scenario],
                                cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=output,
                                stderr=subprocess.STDOUT, start_new_session=True)


def _podman_names() -> set[str]:
    listing = subprocess.run(["podman", "ps", "-a", "--format", "{{.Names}}"], capture_output=True, text=True,
                             check=True)
    return set(listing.stdout.split())


def _destroy(scenario: str, log: pathlib.Path) -> None:
    destroy = _molecule(scenario, "destroy", log=log)
    destroy.wait(timeout=600)
    assert destroy.returncode == 0, log.read_text(errors="replace")[-3000:]


@pytest.fixture
def destroyed(tmp_path: pathlib.Path) -> t.Iterator[t.Callable[[str], None]]:
    """Destroys a scenario first and again at the end whatever happened (the test's own destroy is what it tests).

    First, because molecule keeps its state across a reboot or a killed session while the hosts are gone: with a
    stale "created", `molecule create` skips and the test would watch nothing start.
    """
    scenarios: list[str] = []

    def destroy_first(scenario: str) -> None:
        scenarios.append(scenario)
        _destroy(scenario, tmp_path / "first-destroy.log")

    yield destroy_first
    for scenario in scenarios:
        _molecule(scenario, "destroy", log=tmp_path / "final-destroy.log").wait(timeout=600)


def test_podman_scenario_killed_mid_converge_is_cleaned_by_the_next_run(tmp_path: pathlib.Path, destroyed: t.Callable[[str], None]) -> None:
    destroyed("podman")
    hosts = {"kvhost1", "kvhost2"}
    log = tmp_path / "molecule.log"
    run = _molecule("podman", "converge", log=log)
    try:
        _wait_for(lambda: hosts <= _podman_names(), 300, "the podman test hosts", run, log)
    finally:
        _kill_group(run)
    assert hosts <= _podman_names()          # left behind by the kill
    _destroy("podman", log)
    assert not hosts & _podman_names()


def test_site_scenario_killed_with_its_api_server_running_is_cleaned_by_the_next_run(tmp_path: pathlib.Path, destroyed: t.Callable[[str], None]) -> None:
    destroyed("site")
    state = CACHE / "molecule" / "site" / "control-plane" / "state.json"
    with contextlib.suppress(FileNotFoundError):
        state.unlink()
    log = tmp_path / "molecule.log"
    run = _molecule("site", "converge", log=log)
    try:
        _wait_for(lambda: state.exists() and json.loads(state.read_text()).get("apiserver_pid"), 600,
                  "the site API server", run, log)
        recorded = json.loads(state.read_text())
    finally:
        _kill_group(run)
    servers = [recorded["etcd_pid"], recorded["apiserver_pid"]]
    _destroy("site", log)
    assert not any(alive(pid) for pid in servers)
    assert not {"kvworker1", "kvinfra1"} & _podman_names()


def test_qemu_guest_left_by_a_killed_run_is_stopped_through_its_monitor(tmp_path: pathlib.Path, destroyed: t.Callable[[str], None]) -> None:
    destroyed("qemu")
    guest_dir = CACHE / "molecule" / "qemu"
    pid_file = guest_dir / "qemu.pid"
    with contextlib.suppress(FileNotFoundError):
        pid_file.unlink()
    log = tmp_path / "molecule.log"
    run = _molecule("qemu", "create", log=log)
    try:
        pid = _wait_for(lambda: pid_file.exists() and int(pid_file.read_text().strip() or 0), 300, "QEMU", run, log)
    finally:
        _kill_group(run)
    assert alive(pid)                         # -daemonize: the guest outlives the killed run
    _destroy("qemu", log)
    assert not alive(pid)
    assert not (guest_dir / "qmp.sock").exists()
