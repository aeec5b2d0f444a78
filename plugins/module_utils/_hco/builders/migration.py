# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""MigController (migrations.kubevirt.io/v1alpha1), always built from 1.17 on (HCO v1.20.0, its MigController
handler). PRIVATE."""

from __future__ import annotations

import typing as t

from ..tls import field_copy
from ..view import HCView
from . import common

NAME = "migcontroller-kubevirt-hyperconverged"


def build(view: HCView) -> dict[str, t.Any]:
    controller = common.new_object(view, "migrations.kubevirt.io/v1alpha1", "MigController", NAME, "migration")
    controller["spec"] = {"imagePullPolicy": "IfNotPresent", "infra": common.placement(view.infra)}
    if view.profile.migration_tls:
        controller["spec"]["tlsSecurityProfile"] = field_copy(view.tls_profile)
    return controller
