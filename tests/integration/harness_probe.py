# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Not collected on its own (no test_ prefix): test_harness_hygiene.py runs one of its tests in a pytest of its own
and kills it."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time

from harness.control_plane import ControlPlane
from test_render_playbook import run_playbook


def test_hold_the_control_plane(control_plane: ControlPlane) -> None:
    pathlib.Path(os.environ["VIRTINFRA_PROBE_OUT"]).write_text(json.dumps(
        {"etcd": control_plane.etcd_pid, "apiserver": control_plane.apiserver_pid,
         "state": str(control_plane.workdir / "state.json")}), encoding="utf-8")
    time.sleep(600)


def test_hold_a_playbook(tmp_path: pathlib.Path) -> None:
    """A playbook whose task waits in Ansible's worker, run the way the integration tests run playbooks."""
    book = tmp_path / "held-playbook.yml"
    book.write_text("- hosts: localhost\n  connection: local\n  gather_facts: false\n"
                    "  tasks:\n    - ansible.builtin.pause:\n        seconds: 600\n", encoding="utf-8")
    pathlib.Path(os.environ["VIRTINFRA_PROBE_OUT"]).write_text(json.dumps({"marker": str(book)}), encoding="utf-8")
    run_playbook(book)


def test_leave_an_orphan(tmp_path: pathlib.Path) -> None:
    """A child that starts a process in a session of its own and exits: the process is orphaned at once."""
    marker = str(tmp_path / "orphan")
    subprocess.run(["sh", "-c", 'setsid "$0" -c "import time; time.sleep(600)" "$1" &', sys.executable, marker],
                   check=True)
    pathlib.Path(os.environ["VIRTINFRA_PROBE_OUT"]).write_text(json.dumps({"marker": marker}), encoding="utf-8")
    time.sleep(600)
