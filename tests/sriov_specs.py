# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SR-IOV specs shared by the unit tests of sriov, sriov_nodes and sriov_networks: nodes, their NICs as the operator
reports them, policies."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import sriov
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError

WORKER = {"node-role.kubernetes.io/worker": ""}
NODES = [{"name": "w1", "labels": dict(WORKER)},
         {"name": "cp1", "labels": {"node-role.kubernetes.io/master": ""}}]
STATES = {"w1": [
    {"name": "ens803f0", "vendor": "8086", "deviceID": "158b", "pciAddress": "0000:86:00.0", "totalvfs": 64},
    {"name": "ens803f1", "vendor": "8086", "deviceID": "158b", "pciAddress": "0000:86:00.1", "totalvfs": 64},
    {"name": "ens1f0", "vendor": "15b3", "deviceID": "1017", "pciAddress": "0000:3b:00.0", "totalvfs": 16},
]}


def policy(name="p", **spec):
    body = {"name": name, "resourceName": "vm_sriov", "nodeSelector": dict(WORKER), "numVfs": 8,
            "nicSelector": {"pfNames": ["ens803f0"]}}
    body.update(spec)
    return body


def spec(*policies, flavour="openshift", existing=(), **extra):
    return {"flavour": flavour, "nodes": NODES, "node_states": STATES, "policies": list(policies),
            "existing_policies": list(existing), **extra}


def errors_of(value):
    with pytest.raises(PrerequisiteError) as failure:
        sriov.plan(value)
    return [(e.path, e.message) for e in failure.value.errors]
