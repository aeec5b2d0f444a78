# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Swap specs shared by the unit tests of swap, wasp and machine_configs: nodes and the plan's problems."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import swap
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import PrerequisiteError

WORKER = {"node-role.kubernetes.io/worker": ""}


def node(name="w1", memory="64Gi", **extra):
    return {"name": name, "memory": memory, "labels": dict(WORKER), **extra}


def errors_of(spec):
    with pytest.raises(PrerequisiteError) as failure:
        swap.plan(spec)
    return {(e.path, e.message) for e in failure.value.errors}
