# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.filter.site_report import site_report

CONFIG = {"apply": True, "state": "present", "mode": "standalone", "mode_reason": "why", "drift": "revert",
          "operators_source": "none"}


def test_the_filter_takes_the_run_as_the_summary_task_gives_it():
    out = site_report({"config": CONFIG, "check_mode": False, "run_mode": None, "unchecked": False, "missing": [],
                       "failure": "", "prereqs": {}, "operands": [], "written": {}, "kubevirt": {},
                       "results": {"prerequisites_applied": None,
                                   "site_cluster": {"requests": {"total": 7, "writes": 0}}}})
    assert out[0] == "apply mode (standalone): 0 prerequisite and 0 KubeVirt object(s) changed - why"
    assert "API requests: 7 (0 writes) in 1 cluster call(s)" in out


def test_a_misspelt_name_is_refused_rather_than_read_as_a_task_that_never_ran():
    with pytest.raises(AnsibleFilterError, match=r"unknown name.*prerequisites_aplied"):
        site_report({"config": CONFIG, "results": {"prerequisites_aplied": {}}})
    with pytest.raises(AnsibleFilterError, match=r"unknown name.*checkmode"):
        site_report({"config": CONFIG, "checkmode": True})


def test_a_run_without_its_config_is_refused():
    with pytest.raises(AnsibleFilterError, match="site_config"):
        site_report({"results": {}})
    with pytest.raises(AnsibleFilterError):
        site_report(["not", "a", "mapping"])
