# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make ``ansible_collections.virtinfra.hyperconverged`` and the test helpers importable."""

from __future__ import annotations

import atexit
import os
import pathlib
import signal
import subprocess
import sys
import tempfile

import pytest

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parent
LINK_BASE = ROOT / ".cache" / "collections"
link = LINK_BASE / "ansible_collections" / "virtinfra" / "hyperconverged"
if not link.exists():
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(ROOT, target_is_directory=True)
# Ansible's per-user state (ANSIBLE_HOME, its local temp) in the checkout's cache, never ~/.ansible, whoever runs
# pytest (scripts/_env.sh sets the same; a plain `pytest` run does not).
os.environ.setdefault("ANSIBLE_HOME", str(ROOT / ".cache" / "ansible-home"))
os.environ.setdefault("ANSIBLE_LOCAL_TEMP", str(ROOT / ".cache" / "ansible-home" / "tmp"))
# Hypothesis keeps what it learns (constants of the code under test) in .hypothesis where pytest runs: the cache.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(ROOT / ".cache" / "hypothesis"))


def _remove_run_directory(path: str, owner: int) -> None:
    if os.getpid() == owner:   # not in a fork that inherited the handler
        # Never into a mount a failed test left there (the hygiene check names it).
        subprocess.run(["rm", "-rf", "--one-file-system", path], check=False)


# Every temporary file of the run in a directory of its own, removed when the run ends, as scripts/test does for its
# run (it sets VIRTINFRA_RUN_TMP, and so does this for the processes it starts, xdist's workers among them): an
# ansible-playbook a test ends with a signal leaves its multiprocessing manager's pymp-* directory in TMPDIR, and
# pytest's own tmp_path directories go there too. A short path: Unix sockets live in it (108 bytes at most).
if not os.environ.get("VIRTINFRA_RUN_TMP"):
    RUN_TMP = tempfile.mkdtemp(prefix="virtinfra-")
    os.environ["TMPDIR"] = os.environ["VIRTINFRA_RUN_TMP"] = tempfile.tempdir = RUN_TMP
    atexit.register(_remove_run_directory, RUN_TMP, os.getpid())
for path in (str(LINK_BASE), str(TESTS)):
    if path not in sys.path:
        sys.path.insert(0, path)

import vectors  # noqa: E402  pylint: disable=wrong-import-position


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM (a CI time limit, a killed session) ends the run like Ctrl-C: fixture finalisers stop the servers."""
    del signum, frame
    raise KeyboardInterrupt


signal.signal(signal.SIGTERM, _terminate)


def pytest_collection_modifyitems(items):
    del items
    missing = [str(d) for d in (*vectors.VECTOR_DIRS.values(), vectors.GOLDEN_DIR, vectors.CRD_DIR) if not d.is_dir()]
    if missing:
        raise pytest.UsageError(f"the shared reference material is missing: {missing} (set VIRTINFRA_SHARED_DIR)")
