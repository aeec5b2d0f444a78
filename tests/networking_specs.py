# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Networking prerequisite specs shared by the unit tests of bridges, nmstate_rules, nncp_cluster and
bridge_networks: hand-written policies, live policies as nmstate reports them, a node inventory."""

from __future__ import annotations

import json

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import bridges
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError


def errors_of(spec):
    with pytest.raises(PrerequisiteError) as failure:
        bridges.plan(spec)
    return {(e.path, e.message) for e in failure.value.errors}


def raw_policy(interfaces, name="raw-policy", **spec):
    return {"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": name},
            "spec": {"nodeSelector": {"node-role.kubernetes.io/worker": ""}, "desiredState": {"interfaces": interfaces},
                     **spec}}


def bridge_with_port(port, **options):
    return {"name": "br1", "type": "linux-bridge", "state": "up",
            "bridge": {"options": options, "port": [dict({"name": "eno2"}, **port)]}}


def live(policy, reason, **spec_changes):
    current = json.loads(json.dumps(policy))
    current["spec"].update(spec_changes)
    current["status"] = {"conditions": [{"type": "Available", "status": "Unknown" if reason else "True",
                                         "reason": reason}]} if reason is not None else {}
    return current


NODES = [{"name": "w1", "labels": {"node-role.kubernetes.io/worker": ""}, "nics": ["eno1", "eno2"]},
         {"name": "w2", "labels": {"node-role.kubernetes.io/worker": ""}, "nics": ["eno1"]},
         {"name": "cp1", "labels": {"node-role.kubernetes.io/control-plane": ""}}]
