# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a test run could leave on the host, before and after: any difference is a leftover.

    python tests/harness/hygiene.py snapshot FILE   # before the suite
    python tests/harness/hygiene.py compare FILE    # after it: names every leftover, exit 1 if any
    python tests/harness/hygiene.py release-cni-lock # scripts/test, for a lock its run made (release_cni_lock)

Looked at: mounts, swaps, loop and device-mapper devices, network namespaces, podman containers, pods, volumes
and networks, listening TCP ports, processes of ours (run from the checkout or the caches, or one of the
servers the tests start), every file under /etc, ~/.ansible and /usr/share/ansible (the default
collection paths and Ansible's per-user state), ~/.kube (kubectl's configuration and caches), ~/antsibull.log and
~/go (what antsibull-docs and Go write there by default).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import typing as t

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SERVER_NAMES = frozenset({"etcd", "kube-apiserver", "kubectl", "qemu-system-x86_64", "conmon", "molecule",
                          "ansible-playbook", "debootstrap", "sshd"})
# Also what tools write to the home directory by default: antsibull-docs' log file (scripts/lint sends its log to
# stderr) and Go's GOPATH, where the checksum database's state goes (scripts/_env.sh puts GOPATH in the cache).
WATCHED_TREES = ("/etc", str(pathlib.Path.home() / ".ansible"), str(pathlib.Path.home() / ".kube"), "/usr/share/ansible",
                 str(pathlib.Path.home() / "antsibull.log"), str(pathlib.Path.home() / "go"))


def _read(path: str) -> str:
    try:
        return pathlib.Path(path).read_text(errors="replace")
    except OSError:
        return ""


# containers/storage's overlay driver bind-mounts its own home (<graph root>/overlay) private while a podman
# process uses it and unmounts it at shutdown (containers/storage drivers/overlay: Init, Cleanup), so whether it is
# mounted depends on when podman last ran, not on what a test left. A container's layer mount below it is a leftover.
STORAGE_HOMES = frozenset({"/var/lib/containers/storage/overlay",
                           str(pathlib.Path.home() / ".local/share/containers/storage/overlay")})


def mounts_in(mountinfo: str) -> list[str]:
    found = set()
    for line in mountinfo.splitlines():
        fields = line.split()
        if fields[4] in STORAGE_HOMES:
            continue
        separator = fields.index("-")
        found.add(f"{fields[4]} ({fields[separator + 1]} {fields[separator + 2]})")
    return sorted(found)


def mounts() -> list[str]:
    return mounts_in(_read("/proc/self/mountinfo"))


def swaps() -> list[str]:
    return sorted(line.split()[0] for line in _read("/proc/swaps").splitlines()[1:] if line.strip())


def block_devices() -> list[str]:
    found = []
    for device in sorted(pathlib.Path("/sys/block").glob("loop*")):
        backing = _read(str(device / "loop" / "backing_file")).strip()
        if backing:
            found.append(f"{device.name} -> {backing}")
    for device in sorted(pathlib.Path("/sys/block").glob("dm-*")):
        found.append(f"{device.name} ({_read(str(device / 'dm' / 'name')).strip()})")
    return found


def network_namespaces() -> list[str]:
    try:
        return sorted(os.listdir("/run/netns"))
    except OSError:
        return []


# The CNI plugins podman uses (and `podman network ls`, which the snapshot runs) create this empty lock when it is
# missing, and leave it: a file in /etc that was not there. A listing removes the lock it made; scripts/test removes
# the one its run made (release-cni-lock), on the same conditions.
CNI_LOCK = pathlib.Path("/etc/cni/net.d/cni.lock")
NETNS = pathlib.Path("/run/netns")


def release_cni_lock(lock: pathlib.Path, existed: bool, netns: pathlib.Path | None = None) -> bool:
    """Removes ``lock`` when it did not exist before, is empty, and no network namespace is left that a podman
    network could be using; whether it did."""
    netns = netns or NETNS
    if existed or not lock.is_file() or lock.stat().st_size or (netns.is_dir() and any(netns.iterdir())):
        return False
    lock.unlink()
    return True


def podman_objects() -> list[str]:
    if shutil.which("podman") is None:
        return []
    lock_existed = CNI_LOCK.exists()
    try:
        return _podman_objects()
    finally:
        release_cni_lock(CNI_LOCK, lock_existed)


def _podman_objects() -> list[str]:
    found = []
    for kind, command in (("container", ["ps", "-a", "--format", "{{.Names}}"]), ("pod", ["pod", "ls", "-q"]),
                          ("volume", ["volume", "ls", "-q"]), ("network", ["network", "ls", "-q"])):
        result = subprocess.run(["podman", *command], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            found.append(f"podman {kind} listing failed: {result.stderr.strip()[:200]}")
            continue
        found += [f"{kind} {name}" for name in result.stdout.split()]
    return sorted(found)


def listening_ports() -> list[str]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in _read(table).splitlines()[1:]:
            fields = line.split()
            if len(fields) > 3 and fields[3] == "0A":  # LISTEN
                address, port = fields[1].rsplit(":", 1)
                found.add(f"{'ipv6' if table.endswith('6') else 'ipv4'} {address}:{int(port, 16)}")
    return sorted(found)


def _cache_root() -> str:
    default = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "virtinfra-hyperconverged"
    return os.environ.get("VIRTINFRA_CACHE", str(default))


def alive(pid: int) -> bool:
    """Whether PID is a running process (a zombie waiting to be reaped is not)."""
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def our_processes() -> dict[str, str]:
    """pid:start-time -> command line, for processes run from our trees or named like the servers we start."""
    roots = (str(ROOT), _cache_root(), str(pathlib.Path.home() / ".cache" / "molecule"))
    ancestors = _ancestors()
    found = {}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in ancestors:
            continue
        try:
            exe = os.readlink(entry / "exe")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            start = (entry / "stat").read_text().rsplit(")", 1)[1].split()[19]
        except (OSError, IndexError):
            continue
        if os.path.basename(exe) in SERVER_NAMES or any(exe.startswith(r) or r in cmdline for r in roots):
            found[f"{entry.name}:{start}"] = cmdline[:300]
    return found


def _ancestors() -> set[int]:
    """This process and its parents (the test command itself is not a leftover)."""
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        try:
            pid = int(_read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()[1])
        except (IndexError, ValueError):
            break
    return pids


def files() -> dict[str, str]:
    found = {}
    for top in WATCHED_TREES:
        if not os.path.lexists(top):
            continue
        found[top] = "present" if os.path.isdir(top) else _stat(top)
        for directory, dirs, names in os.walk(top):
            for name in dirs + names:
                path = os.path.join(directory, name)
                with contextlib.suppress(OSError):
                    found[path] = _stat(path)
    return found


def _stat(path: str) -> str:
    info = os.lstat(path)
    return f"mode={info.st_mode:o} size={info.st_size} mtime={info.st_mtime_ns}"


COLLECTORS: dict[str, t.Callable[[], t.Any]] = {
    "mounts": mounts, "swaps": swaps, "loop and dm devices": block_devices, "network namespaces": network_namespaces,
    "podman objects": podman_objects, "listening ports": listening_ports, "processes": our_processes,
    "files": files,
}


def snapshot() -> dict[str, t.Any]:
    return {name: collect() for name, collect in COLLECTORS.items()}


# Things that may go away during a run without harm: a guest, container or port an interrupted earlier run left and
# this run's destroy cleaned up. What appears, and any change to files or mounts, is always a problem.
REMOVAL_IS_CLEANUP = frozenset({"listening ports", "podman objects", "network namespaces"})


GRACE_SECONDS = 15


def differences(before: dict[str, t.Any], after: dict[str, t.Any]) -> list[str]:
    problems = []
    for name in COLLECTORS:
        old, new = before.get(name), after[name]
        if isinstance(new, dict):
            old = old or {}
            if name == "processes":
                problems += [f"{name}: still running: {new[k]} (pid {k.split(':')[0]})" for k in sorted(set(new) - set(old))]
                continue
            problems += [f"{name}: added {path}" for path in sorted(set(new) - set(old))]
            problems += [f"{name}: removed {path}" for path in sorted(set(old) - set(new))]
            problems += [f"{name}: changed {path}" for path in sorted(set(old) & set(new)) if old[path] != new[path]]
        else:
            old_items: set[str] = set(old or [])
            problems += [f"{name}: added {item}" for item in sorted(set(new) - old_items)]
            if name not in REMOVAL_IS_CLEANUP:
                problems += [f"{name}: removed {item}" for item in sorted(old_items - set(new))]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["snapshot", "compare", "release-cni-lock"])
    parser.add_argument("file", type=pathlib.Path, nargs="?")
    args = parser.parse_args(argv)
    if args.action == "release-cni-lock":
        release_cni_lock(CNI_LOCK, existed=False)
        return 0
    if args.file is None:
        parser.error(f"{args.action} needs a FILE")
    if args.action == "snapshot":
        args.file.write_text(json.dumps(snapshot()), encoding="utf-8")
        return 0
    before = json.loads(args.file.read_text(encoding="utf-8"))
    problems = differences(before, snapshot())
    # Some things end on their own just after the tests: Ansible's async_wrapper watcher (molecule's podman destroy
    # runs async jobs) notices that its job is done only every 5 s. A real leftover is still there after the grace.
    deadline = time.monotonic() + GRACE_SECONDS
    while problems and time.monotonic() < deadline:
        time.sleep(1)
        problems = differences(before, snapshot())
    for problem in problems:
        print(f"LEFTOVER {problem}")
    print(f"hygiene: {len(problems)} leftover(s) on the host" if problems else "hygiene: the host is as it was")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
