# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The test harness leaves nothing behind: its servers die with the run however it ends, and the hygiene check
sees what a test leaves."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest
from harness import children, hygiene
from harness.control_plane import ControlPlane, build
from harness.hygiene import alive

HERE = pathlib.Path(__file__).resolve().parent


def _probe(tmp_path: pathlib.Path, test: str, out: pathlib.Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """One test of harness_probe.py in a pytest of its own (the integration suite's conftest, no xdist)."""
    return subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                             f"--basetemp={tmp_path / 'probe'}", f"{HERE / 'harness_probe.py'}::{test}"],
                            env=dict(env or os.environ, VIRTINFRA_PROBE_OUT=str(out)), cwd=HERE.parent.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _hold_control_plane(tmp_path: pathlib.Path) -> tuple[subprocess.Popen, dict[str, int], pathlib.Path]:
    out = tmp_path / "pids.json"
    probe = _probe(tmp_path, "test_hold_the_control_plane", out)
    deadline = time.monotonic() + 300
    while not out.exists():
        assert probe.poll() is None, probe.communicate()[0][-3000:]
        assert time.monotonic() < deadline, "the probe's control plane did not start"
        time.sleep(0.3)
    pids = json.loads(out.read_text())
    state = pathlib.Path(pids.pop("state"))
    assert all(alive(pid) for pid in pids.values())
    return probe, pids, state


def _gone(pids: dict[str, int], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids.values()):
            return True
        time.sleep(0.2)
    return False


def test_sigterm_of_the_test_run_stops_its_servers(tmp_path: pathlib.Path) -> None:
    probe, pids, state = _hold_control_plane(tmp_path)
    probe.send_signal(signal.SIGTERM)
    output = probe.communicate(timeout=120)[0]
    assert _gone(pids), output[-2000:]
    # The fixture's finaliser stopped them (it records the stop), not only the parent-death signal.
    assert json.loads(state.read_text())["apiserver_pid"] == 0, output[-2000:]


def test_sigkill_of_the_test_run_takes_its_servers_with_it(tmp_path: pathlib.Path) -> None:
    probe, pids, state = _hold_control_plane(tmp_path)
    probe.kill()            # the pytest process alone: no finaliser runs, the kernel's parent-death signal acts
    probe.communicate(timeout=60)
    assert _gone(pids)
    assert json.loads(state.read_text())["apiserver_pid"] == pids["apiserver"]   # no finaliser ran


def _marked(marker: str) -> dict[int, int]:
    """pid -> session id of every process whose command line names ``marker`` (Ansible's forks keep it)."""
    found = {}
    for entry in pathlib.Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found[int(entry.name)] = int(children.stat(entry.name)[3])
    return found


def _hold_playbook(tmp_path: pathlib.Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """A probe whose playbook's task is running in Ansible's worker: a fork of ansible-playbook that made itself a
    session leader, which a SIGKILL of ansible-playbook would leave behind."""
    out = tmp_path / "marker.json"
    probe = _probe(tmp_path, "test_hold_a_playbook", out, env)
    deadline = time.monotonic() + 120
    while not (out.exists() and any(pid == sid for pid, sid in _marked(json.loads(out.read_text())["marker"]).items())):
        assert probe.poll() is None, probe.communicate()[0][-3000:]
        assert time.monotonic() < deadline, "the probe's playbook did not reach its task"
        time.sleep(0.2)
    return probe, json.loads(out.read_text())["marker"]


def _none_left(marker: str, timeout: float = 30) -> dict[int, int]:
    deadline = time.monotonic() + timeout
    while (left := _marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:   # leave the machine clean even when the assertion fails
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


def test_sigterm_of_the_test_run_ends_its_playbook_and_the_playbooks_workers(tmp_path: pathlib.Path) -> None:
    probe, marker = _hold_playbook(tmp_path)
    probe.send_signal(signal.SIGTERM)
    output = probe.communicate(timeout=120)[0]
    assert _none_left(marker) == {}, output[-2000:]


def test_sigkill_of_the_test_run_ends_its_playbook_and_the_playbooks_workers(tmp_path: pathlib.Path) -> None:
    probe, marker = _hold_playbook(tmp_path)
    probe.kill()            # no handler runs: the kernel's parent-death signal (SIGTERM) reaches ansible-playbook
    probe.communicate(timeout=60)
    assert _none_left(marker) == {}


def test_a_pytest_run_by_hand_keeps_its_temporary_files_in_a_directory_it_removes(tmp_path: pathlib.Path) -> None:
    """Outside scripts/test (no VIRTINFRA_RUN_TMP), a run whose test ends a playbook with a signal leaves nothing in
    the TMPDIR it was given: not the pymp-* directory of the playbook's multiprocessing manager, nor its own."""
    # Not in tmp_path: the manager's Unix socket path in it must stay within 108 bytes.
    given = pathlib.Path(tempfile.mkdtemp(prefix="given-"))
    try:
        env = {name: value for name, value in os.environ.items() if name != "VIRTINFRA_RUN_TMP"}
        env["TMPDIR"] = str(given)
        probe, marker = _hold_playbook(tmp_path, env)
        run_directories = list(given.iterdir())
        probe.send_signal(signal.SIGTERM)
        output = probe.communicate(timeout=120)[0]
        assert _none_left(marker) == {}, output[-2000:]
        assert [d.name.startswith("virtinfra-") for d in run_directories] == [True], run_directories
        assert list(given.iterdir()) == [], output[-2000:]
    finally:
        shutil.rmtree(given, ignore_errors=True)


def test_what_a_test_orphans_is_adopted_by_the_test_run_and_ends_with_it(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "marker.json"
    probe = _probe(tmp_path, "test_leave_an_orphan", out)
    deadline = time.monotonic() + 60
    while not (out.exists() and _marked(json.loads(out.read_text())["marker"])):
        assert probe.poll() is None, probe.communicate()[0][-3000:]
        assert time.monotonic() < deadline, "the probe did not leave its orphan"
        time.sleep(0.2)
    marker = json.loads(out.read_text())["marker"]
    try:
        orphans = list(_marked(marker))
        assert len(orphans) == 1, orphans
        assert int(children.stat(orphans[0])[1]) == probe.pid   # adopted by the test run, not by init
        probe.send_signal(signal.SIGTERM)
        output = probe.communicate(timeout=120)[0]
        assert _none_left(marker) == {}, output[-2000:]
    finally:   # a failure above leaves neither the probe nor its orphan
        probe.kill()
        probe.communicate()
        _none_left(marker, timeout=0)


def test_a_detached_control_plane_outlives_a_signal_to_the_group_that_started_it(tmp_path: pathlib.Path) -> None:
    """The molecule site scenario starts its servers from an Ansible task. Ansible's worker is a process-group
    leader and, stopped at the end of the playbook while still alive, signals its whole group (os.killpg): a group
    that took the servers along, intermittently, between prepare and check."""
    workdir = tmp_path / "plane"
    script = ("import pathlib, sys; from harness.control_plane import ControlPlane, build; "
              "ControlPlane(pathlib.Path(sys.argv[1]), build(), detached=True).start()")
    starter = subprocess.Popen([sys.executable, "-c", script, str(workdir)], cwd=HERE.parent, process_group=0,
                               env=dict(os.environ, PYTHONPATH=str(HERE.parent)))
    assert starter.wait(timeout=300) == 0
    plane = ControlPlane.load(workdir)
    try:
        servers = {"etcd": plane.etcd_pid, "apiserver": plane.apiserver_pid}
        with contextlib.suppress(ProcessLookupError):  # the group is empty unless the servers are in it
            os.killpg(starter.pid, signal.SIGTERM)
        time.sleep(2)
        assert all(alive(pid) for pid in servers.values())
        assert plane.ready()
    finally:
        plane.stop()
    assert _gone(servers)


def test_stop_never_signals_a_process_it_did_not_start(tmp_path: pathlib.Path) -> None:
    # A stale state file naming a PID that now belongs to something else (after a reboot, PIDs are reused).
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        plane = ControlPlane(tmp_path, build(), etcd_pid=stranger.pid, apiserver_pid=stranger.pid)
        plane.stop()
        assert stranger.poll() is None and alive(stranger.pid)
    finally:
        stranger.kill()
        stranger.wait()


def test_hygiene_check_names_a_leftover_port_and_file(tmp_path: pathlib.Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hygiene, "WATCHED_TREES", (str(tmp_path / "etc"),))
    (tmp_path / "etc").mkdir()
    before = hygiene.snapshot()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        (tmp_path / "etc" / "left.conf").write_text("x")
        problems = hygiene.differences(before, hygiene.snapshot())
    assert any(p.startswith("listening ports: added ") and p.endswith(f":{port}") for p in problems), problems
    assert f"files: added {tmp_path / 'etc' / 'left.conf'}" in problems
    (tmp_path / "etc" / "left.conf").unlink()
    after = hygiene.differences(before, hygiene.snapshot())
    assert not any(str(port) in p or "left.conf" in p for p in after), after


def test_hygiene_check_names_a_watched_file_that_appears_or_changes(tmp_path: pathlib.Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "antsibull.log"
    monkeypatch.setattr(hygiene, "WATCHED_TREES", (str(log),))
    before = hygiene.snapshot()
    log.write_text("a tool's log\n")
    assert f"files: added {log}" in hygiene.differences(before, hygiene.snapshot())
    again = hygiene.snapshot()
    log.write_text("a tool's log\nand more\n")
    assert any(str(log) in p and "changed" in p for p in hygiene.differences(again, hygiene.snapshot()))


def test_podmans_storage_home_mount_is_not_a_leftover_but_a_layer_mount_below_it_is() -> None:
    home = "/var/lib/containers/storage/overlay"
    info = (f"101 29 252:1 {home} {home} rw,relatime - ext4 /dev/vda rw\n"
            f"102 101 0:50 / {home}/abc123/merged rw,relatime - overlay overlay rw,lowerdir=x\n"
            "103 29 0:51 / /mnt/test rw - tmpfs tmpfs rw\n")
    assert hygiene.mounts_in(info) == ["/mnt/test (tmpfs tmpfs)", f"{home}/abc123/merged (overlay overlay)"]


def test_a_cni_lock_is_released_only_when_the_listing_made_it_empty_and_no_network_is_left(tmp_path: pathlib.Path):
    lock, netns = tmp_path / "cni.lock", tmp_path / "netns"
    netns.mkdir()
    lock.touch()
    assert not hygiene.release_cni_lock(lock, existed=True, netns=netns) and lock.exists()    # it was there before
    (netns / "netns-1").touch()
    assert not hygiene.release_cni_lock(lock, existed=False, netns=netns) and lock.exists()   # a network is up
    (netns / "netns-1").unlink()
    lock.write_text("held")
    assert not hygiene.release_cni_lock(lock, existed=False, netns=netns) and lock.exists()   # not the empty lock
    lock.write_text("")
    assert hygiene.release_cni_lock(lock, existed=False, netns=netns) and not lock.exists()
    assert not hygiene.release_cni_lock(lock, existed=False, netns=tmp_path / "no-netns")      # nothing to release


@pytest.mark.skipif(not hygiene.shutil.which("podman") and os.environ.get("CI") != "true",
                    reason="podman is not installed")
def test_listing_podmans_networks_leaves_no_cni_lock_it_made(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch):
    # podman's network configuration in a directory of this test's own, so that the lock it makes there is the
    # test's whatever the host's (/etc/cni/net.d/cni.lock) holds: the premise holds on every machine.
    networks = tmp_path / "networks"
    networks.mkdir()
    conf = tmp_path / "containers.conf"
    conf.write_text(f'[network]\nnetwork_config_dir = "{networks}"\n')
    monkeypatch.setenv("CONTAINERS_CONF", str(conf))
    monkeypatch.setattr(hygiene, "CNI_LOCK", networks / "cni.lock")
    monkeypatch.setattr(hygiene, "NETNS", tmp_path / "netns")   # none left by this listing
    hygiene._podman_objects()
    assert (networks / "cni.lock").exists()   # podman makes the lock when it lists networks
    (networks / "cni.lock").unlink()
    hygiene.podman_objects()
    assert not (networks / "cni.lock").exists()


def test_the_release_command_scripts_test_runs_removes_only_an_empty_lock(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch):
    lock = tmp_path / "cni.lock"
    lock.touch()
    monkeypatch.setattr(hygiene, "CNI_LOCK", lock)
    monkeypatch.setattr(hygiene, "NETNS", tmp_path / "netns")   # none: no network namespace left
    assert hygiene.main(["release-cni-lock"]) == 0 and not lock.exists()
    lock.write_text("held")
    assert hygiene.main(["release-cni-lock"]) == 0 and lock.exists()   # not the empty lock a run leaves
