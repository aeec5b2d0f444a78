# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``kubevirt-cluster-critical`` PriorityClass HCO always creates. PRIVATE."""

from __future__ import annotations

import typing as t

from ..view import HCView
from . import common

NAME = "kubevirt-cluster-critical"


def build(view: HCView) -> dict[str, t.Any]:
    priority_class = common.new_object(view, "scheduling.k8s.io/v1", "PriorityClass", NAME, "compute",
                                       namespaced=False)
    priority_class["value"] = 1000000000
    priority_class["description"] = "This priority class should be used for KubeVirt core components only."
    return priority_class
