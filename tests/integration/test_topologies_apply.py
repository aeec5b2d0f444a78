# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every example topology applied by the site to a real API server, then rerun without a write (the compact
OpenShift cluster is in test_topologies.py). A file of its own, so that pytest-xdist runs it beside that one."""

from __future__ import annotations

import contextlib
import sys

import pytest
from conftest import _running_control_plane
from test_hyperconverged_role import recap_changed
from test_k8s_apply import server_writes
from test_render_playbook import ROOT, run_playbook
from test_topologies import TOPOLOGIES


@pytest.mark.parametrize("inventory", ["single-node-openshift.yml", "two-node-arbiter.yml", "dedicated-pools.yml",
                                       "kkp.yml"])
def test_every_topology_converges_against_the_api_server_and_reruns_without_a_write(inventory, tmp_path_factory):
    """Each on an API server of its own (built and started for it), since each is a cluster of its own."""
    with contextlib.contextmanager(_running_control_plane)(tmp_path_factory) as plane:
        def site():
            return run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(TOPOLOGIES / inventory),
                                "-i", "localhost,", "--limit", "localhost",
                                "-e", f"ansible_python_interpreter={sys.executable}",
                                "-e", f"site_kubeconfig={plane.kubeconfig}")
        first = site()
        assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
        assert "apply mode (" in first.stdout and "0 prerequisite and 0" not in first.stdout
        mark = plane.audit_offset()
        again = site()
        assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout[-4000:]
        assert server_writes(plane, mark) == []
