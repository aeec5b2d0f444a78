# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers for the QEMU test guest of the molecule ``qemu`` scenario.

    python qemu_guest.py free-port        # a free TCP port on 127.0.0.1 for the guest's SSH forward
    python qemu_guest.py stop GUEST_DIR   # QMP "quit", then wait; a kill only if /proc/PID is still our QEMU

The guest runs with ``-pidfile GUEST_DIR/qemu.pid`` and ``-qmp unix:GUEST_DIR/qmp.sock``; a PID is signalled only
while its executable is qemu-system-x86_64 and its command line names GUEST_DIR, so a stale pid file can never
make us signal an unrelated process.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import signal
import socket
import sys
import time


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def is_our_qemu(pid: int, guest_dir: pathlib.Path) -> bool:
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
        cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return os.path.basename(exe).startswith("qemu-system-") and str(guest_dir) in cmdline


def qmp_quit(socket_path: pathlib.Path) -> bool:
    """Ask QEMU to quit through its monitor; False when nothing answers there."""
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(5)
            sock.connect(str(socket_path))
            reader = sock.makefile("rb")
            reader.readline()  # greeting
            for command in ("qmp_capabilities", "quit"):
                sock.sendall(json.dumps({"execute": command}).encode() + b"\n")
                reader.readline()
    except OSError:
        return False
    return True


def stop(guest_dir: pathlib.Path) -> str:
    guest_dir = guest_dir.resolve()
    pid_file = guest_dir / "qemu.pid"
    pid = int(pid_file.read_text().strip() or 0) if pid_file.exists() else 0
    ours = bool(pid) and is_our_qemu(pid, guest_dir)
    said = qmp_quit(guest_dir / "qmp.sock")
    outcome = "not running"
    if ours:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and is_our_qemu(pid, guest_dir):
            time.sleep(0.2)
        if is_our_qemu(pid, guest_dir):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            outcome = "killed"
        else:
            outcome = "quit" if said else "exited"
    elif pid:
        outcome = f"stale pid file (pid {pid} is not our QEMU): nothing signalled"
    for name in ("qemu.pid", "qmp.sock"):
        with contextlib.suppress(FileNotFoundError):
            (guest_dir / name).unlink()
    return outcome


def main(argv: list[str]) -> int:
    if argv[:1] == ["free-port"]:
        print(free_port())
        return 0
    if len(argv) == 2 and argv[0] == "stop":
        print(stop(pathlib.Path(argv[1])))
        return 0
    sys.stderr.write(__doc__ or "")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
