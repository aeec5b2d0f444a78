# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every example topology rendered by the site under every release profile (a file of its own: the suite spreads
files over its workers, and these 42 runs are the longest part of the topology tests)."""

from __future__ import annotations

import pytest
from test_render_playbook import ROOT, run_playbook
from test_topologies import TOPOLOGIES, objects_in

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import get_profile, known_releases


@pytest.mark.parametrize("release", known_releases())
@pytest.mark.parametrize("inventory", sorted(p.name for p in TOPOLOGIES.glob("*.yml")))
def test_every_topology_renders_under_every_release_profile(inventory, release, tmp_path):
    """The same inventory under each profile: rendered, the profile named in the summary, and where the profile
    decides who runs wasp-agent, decided by it (HCO from 1.16, the site itself before)."""
    result = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(TOPOLOGIES / inventory),
                          "-e", f"site_render_dir={tmp_path}", "-e", f"site_release={release}")
    assert result.returncode == 0, result.stdout + result.stderr
    profile = get_profile(release)
    assert f"release profile: {profile.name} (HCO {profile.hco_version}), from site_release" in result.stdout
    objects = objects_in(tmp_path)
    assert objects, "nothing rendered"
    if inventory == "compact-openshift.yml":   # OpenShift, 150 % overcommit
        site_runs_wasp = ("DaemonSet", "wasp-agent") in objects
        assert site_runs_wasp == (profile.name in ("1.14", "1.15")), sorted(objects)
