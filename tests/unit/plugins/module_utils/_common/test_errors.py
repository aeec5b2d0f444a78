# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import importlib

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import ClusterFailed, Refused


@pytest.mark.parametrize(("name", "root"), [("_k8s.client.KubeError", ClusterFailed),
                                            ("_common.errors.RenderError", Refused),
                                            ("_k8s.nodes.NodesError", Refused),
                                            ("_k8s.waits.WaitFailed", ClusterFailed)])
def test_the_kinds_of_failure(name, root):
    module, _dot, cls = f"ansible_collections.virtinfra.hyperconverged.plugins.module_utils.{name}".rpartition(".")
    assert issubclass(getattr(importlib.import_module(module), cls), root)
