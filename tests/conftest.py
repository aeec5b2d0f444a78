# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make ``ansible_collections.virtinfra.hyperconverged`` and the test helpers importable."""

from __future__ import annotations

import os
import pathlib
import signal
import sys

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
