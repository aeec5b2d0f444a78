# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Not collected on its own (no test_ prefix): test_harness_hygiene.py runs it in a pytest of its own and kills it."""

from __future__ import annotations

import json
import os
import pathlib
import time

from harness.control_plane import ControlPlane


def test_hold_the_control_plane(control_plane: ControlPlane) -> None:
    pathlib.Path(os.environ["VIRTINFRA_PROBE_OUT"]).write_text(json.dumps(
        {"etcd": control_plane.etcd_pid, "apiserver": control_plane.apiserver_pid,
         "state": str(control_plane.workdir / "state.json")}), encoding="utf-8")
    time.sleep(600)
