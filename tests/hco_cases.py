# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render one HyperConverged and pick an operand: the shared setup of the per-builder tests."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

NAMESPACE = "kubevirt-hyperconverged"
INFRA = {"nodeSelector": {"node-role.kubernetes.io/infra": ""},
         "tolerations": [{"key": "infra", "operator": "Exists", "effect": "NoSchedule"}]}
WORKLOADS = {"nodeSelector": {"node-role.kubernetes.io/worker": ""}}


def operands(spec: dict[str, t.Any] | None = None, platform: str = "openshift", release: str = "1.20",
             annotations: dict[str, str] | None = None, **cluster: t.Any) -> list[dict[str, t.Any]]:
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": NAMESPACE, "annotations": annotations or {}},
          "spec": spec or {}}
    return render(hyperconverged=hc, release=release, cluster={"platform": platform, **cluster}).operands


def operand(kind: str, spec: dict[str, t.Any] | None = None, **options: t.Any) -> dict[str, t.Any]:
    found = [o for o in operands(spec, **options) if o["kind"] == kind]
    assert len(found) == 1, (kind, [o["kind"] for o in operands(spec, **options)])
    return found[0]
