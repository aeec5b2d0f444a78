# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A process a test starts ends with the test, however the run ends.

``subprocess.run`` answers an interruption (SIGTERM is a KeyboardInterrupt here, tests/conftest.py) or a timeout
with SIGKILL. For ansible-playbook that leaves its task workers running: each is a fork that made itself a session
leader (ansible-core 2.21, ``executor/process/worker.py``, ``WorkerProcess._detach``), and only ansible-playbook's own
SIGTERM handler passes the signal on to them (``executor/task_queue_manager.py``, ``TaskQueueManager._signal_handler``).
So :func:`run` ends its process with SIGTERM and a grace period, and the kernel sends the same SIGTERM when the
test process dies without a word (``PR_SET_PDEATHSIG``).

Not every process is started through :func:`run` (ansible-runner starts ansible-playbook itself), so
:func:`adopt_orphans` is the net under it: the test process becomes the subreaper of everything its children leave
behind, and ends what is left of it when it exits.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import pathlib
import signal
import subprocess
import time
import typing as t

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
GRACE_SECONDS = 15.0


def die_with_parent(signum: int = signal.SIGKILL) -> t.Callable[[], None]:
    """A ``preexec_fn``: in the child before exec, ask the kernel for ``signum`` when the thread that started it
    exits (pytest runs tests in its main thread)."""

    def preexec() -> None:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)

    return preexec


def run(command: t.Sequence[str], *, env: t.Mapping[str, str] | None = None, cwd: t.Any = None,
        timeout: float | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(command, capture_output=True, text=True, check=False)``, ended by SIGTERM (then SIGKILL
    after GRACE_SECONDS) when the wait is interrupted or times out, and when this process dies."""
    process = subprocess.Popen(command, env=env, cwd=cwd, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.PIPE if input is not None else None,
                               preexec_fn=die_with_parent(signal.SIGTERM))
    try:
        stdout, stderr = process.communicate(input, timeout=timeout)
    except BaseException:   # a timeout, or the run being stopped: end it as a person pressing Ctrl-C would
        end(process)
        raise
    return subprocess.CompletedProcess(list(command), process.returncode, stdout, stderr)


def end(process: subprocess.Popen[str]) -> None:
    """SIGTERM, a grace period for the process to end what it started, then SIGKILL."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=GRACE_SECONDS)
            return
        except subprocess.TimeoutExpired:
            process.kill()
    process.communicate()


def adopt_orphans() -> None:
    """From now on a process that a descendant of this one leaves behind becomes this one's child, not init's
    (``PR_SET_CHILD_SUBREAPER``); whatever of them is still running when this process exits is ended then."""
    if ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
        atexit.register(end_children)


def stat(pid: int | str) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name: state, ppid, pgrp, session, ... (OSError: gone)."""
    return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children_of(pid: int) -> list[int]:
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            if entry.name.isdigit() and int(stat(entry.name)[1]) == pid:
                found.append(int(entry.name))
    return found


def end_children(grace: float = GRACE_SECONDS) -> None:
    """SIGTERM every child of this process (orphans it adopted included; what they leave is adopted in turn and
    signalled in the next round), SIGKILL what is left after ``grace``; each reaped."""
    signalled: set[int] = set()
    deadline = time.monotonic() + grace
    while running := [pid for pid in children_of(os.getpid()) if not _reaped(pid)]:
        late = time.monotonic() > deadline
        for pid in running:
            if pid not in signalled or late:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL if late else signal.SIGTERM)
                signalled.add(pid)
        time.sleep(0.1)


def _reaped(pid: int) -> bool:
    """Reap ``pid`` if it has exited (a zombie child): True once it is gone."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:
        return True
