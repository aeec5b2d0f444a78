# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Go programs the tests build from the Go module proxy: each tests/harness/build-* script builds its program
once per machine (cached by a hash of its recipe) and prints the binary's path."""

from __future__ import annotations

import pathlib
import subprocess

HERE = pathlib.Path(__file__).resolve().parent


def built(script: str) -> pathlib.Path:
    """The binary ``tests/harness/<script>`` builds (at once when it is cached)."""
    done = subprocess.run([str(HERE / script)], capture_output=True, text=True, check=False, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return pathlib.Path(done.stdout.strip())
