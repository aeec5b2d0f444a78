# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""To find one filter, Ansible loads every filter file of the collection, in each task's worker process: loading
them must not import the kubernetes client, the engine or the prerequisites (each filter imports what it needs when
it is called). bench/site_render.py measures what that saves; this test keeps it."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
from ansible.errors import AnsibleFilterError

FILTERS = pathlib.Path(__file__).resolve().parents[4] / "plugins" / "filter"
HEAVY = ("kubernetes", "ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render",
         "ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render",
         "ansible_collections.virtinfra.hyperconverged.plugins.module_utils._presets.presets")


def test_loading_every_filter_file_imports_nothing_heavy():
    names = sorted(p.stem for p in FILTERS.glob("*.py"))
    assert "automation_rbac" in names and "hco_preset" in names
    # A fresh interpreter: this one has imported everything already.
    probe = ("import importlib, json, sys\n"
             f"for name in {names!r}:\n"
             "    importlib.import_module('ansible_collections.virtinfra.hyperconverged.plugins.filter.' + name)\n"
             f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'kubernetes' or m in {HEAVY!r})))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": ":".join(sys.path)})
    assert json.loads(done.stdout) == []


def test_the_filters_import_what_they_need_when_called():
    from ansible_collections.virtinfra.hyperconverged.plugins.filter.hco_operands import hco_operands
    from ansible_collections.virtinfra.hyperconverged.plugins.filter.hco_preset import hco_preset
    from ansible_collections.virtinfra.hyperconverged.plugins.filter.node_prereqs import node_prereqs

    hyperconverged = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
                      "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"},
                      "spec": {}}
    assert any(o["kind"] == "KubeVirt" for o in hco_operands(hyperconverged))
    assert hco_preset(hyperconverged, "kkp")["hyperconverged"]["kind"] == "HyperConverged"
    with pytest.raises(AnsibleFilterError, match="node prerequisites refused"):
        node_prereqs({"swap": {"overcommit_percent": "lots"}})
