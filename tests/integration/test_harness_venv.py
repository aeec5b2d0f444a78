# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/_env.sh keeps one virtualenv per requirements: a newer one never removes a venv a run is still using.

Two checkouts on one machine (main and a branch with other pins, or CI beside a developer) share the cache; before
this rule, the second one's first command removed the first one's venv under its running test suite.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _env(tmp_path: pathlib.Path, requirements: pathlib.Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTINFRA_VENV", "VIRTUAL_ENV")}
    env.update(VIRTINFRA_CACHE=str(tmp_path / "cache"), VIRTINFRA_REQUIREMENTS=str(requirements),
               PYTHON=sys.executable)
    return env


def _venv_of_a_run(tmp_path: pathlib.Path, requirements: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/_env.sh" >/dev/null; echo "$VENV"'],
                          env=_env(tmp_path, requirements), capture_output=True, text=True, check=True, timeout=300)


def test_a_new_venv_keeps_the_one_a_running_suite_uses_and_removes_it_after(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# the pins of one checkout\n")
    running = subprocess.Popen(["bash", "-c", f'source "{ROOT}/scripts/_env.sh" >&2; echo "$VENV"; exec sleep 300'],
                               env=_env(tmp_path, requirements), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, start_new_session=True)
    try:
        assert running.stdout is not None
        in_use = pathlib.Path(running.stdout.readline().strip())
        assert (in_use / "bin" / "python").exists()

        requirements.write_text("# the pins of another checkout\n")
        other = _venv_of_a_run(tmp_path, requirements)
        newer = pathlib.Path(other.stdout.strip())
        assert newer != in_use and (newer / "bin" / "python").exists()
        assert f"kept {in_use}: a run is using it" in other.stderr
        assert (in_use / "bin" / "python").exists()
    finally:
        running.kill()
        running.wait(timeout=30)

    requirements.write_text("# the pins of a third checkout, once nothing runs\n")
    third = pathlib.Path(_venv_of_a_run(tmp_path, requirements).stdout.strip())
    assert sorted((tmp_path / "cache" / "venv").iterdir()) == [third]
