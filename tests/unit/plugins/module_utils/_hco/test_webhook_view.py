# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The webhook's node-less dry run of the patched operands (written from HCO v1.20.0's webhook: its pod watches no
Node, so the operands it builds carry nothing the nodes give, and the patch is applied to those)."""

from __future__ import annotations

import json
import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.cluster import default_nodes
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

KUBEVIRT = "kubevirt.kubevirt.io/jsonpatch"
BOTH = [(operation, platform) for operation in ("create", "update") for platform in ("kubernetes", "openshift")]


def run(patch: list[dict[str, t.Any]], operation: str, platform: str, nodes: t.Any = None) -> t.Any:
    hc = {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
          "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged",
                       "annotations": {KUBEVIRT: json.dumps(patch)}}, "spec": {}}
    return render(hyperconverged=hc, release="1.20", operation=operation,
                  cluster={"platform": platform, "nodes": default_nodes() if nodes is None else nodes})


def kubevirt_of(result: t.Any) -> dict[str, t.Any]:
    return next(o for o in result.operands if o["kind"] == "KubeVirt")


@pytest.mark.parametrize(("operation", "platform"), BOTH)
def test_a_patch_on_the_default_architecture_is_refused_as_the_node_less_webhook_refuses_it(operation, platform):
    # With the nodes, KubeVirt gets their architecture as its default; the webhook's KubeVirt has none, so the
    # test operation fails there and HCO refuses the HyperConverged.
    path = "/spec/configuration/architectureConfiguration/defaultArchitecture"
    unpatched = kubevirt_of(run([], operation, platform))
    assert unpatched["spec"]["configuration"]["architectureConfiguration"]["defaultArchitecture"] == "amd64"
    for op in ({"op": "test", "path": path, "value": "amd64"}, {"op": "replace", "path": path, "value": "arm64"},
               {"op": "remove", "path": path}):
        with pytest.raises(RenderError) as refused:
            run([op], operation, platform)
        assert KUBEVIRT in str(refused.value) and "HCO's webhook admits" not in str(refused.value)


@pytest.mark.parametrize(("operation", "platform"), BOTH)
def test_a_patch_the_node_less_build_takes_too_is_applied_with_the_nodes(operation, platform):
    patch = [{"op": "add", "path": "/spec/configuration/developerConfiguration/featureGates/-", "value": "Mine"}]
    gates = kubevirt_of(run(patch, operation, platform))["spec"]["configuration"]["developerConfiguration"]["featureGates"]
    assert gates[-1] == "Mine"


@pytest.mark.parametrize(("operation", "platform"), BOTH)
def test_removing_infra_passes_the_webhook_but_fails_every_reconcile_and_says_so(operation, platform):
    # Without nodes (the webhook) KubeVirt has spec.infra (one replica, no control plane known); with three
    # control-plane nodes it has none, so the removal fails in every reconcile: nothing would be deployed.
    patch = [{"op": "remove", "path": "/spec/infra"}]
    assert "infra" not in kubevirt_of(run([], operation, platform))["spec"]
    with pytest.raises(RenderError) as refused:
        run(patch, operation, platform)
    assert "HCO's webhook admits the HyperConverged" in str(refused.value)
    assert "every reconcile fails" in str(refused.value)
    # On a cluster whose nodes leave spec.infra in place (no control-plane node), the patch applies - and, decoded
    # back over the built KubeVirt as HCO decodes it (json.Unmarshal into the same struct), leaves infra as it was.
    workers = [n for n in default_nodes() if "node-role.kubernetes.io/worker" in n["labels"]]
    assert kubevirt_of(run(patch, operation, platform, workers))["spec"]["infra"] == {"nodePlacement": {}}


@pytest.mark.parametrize("platform", ["kubernetes", "openshift"])
def test_the_patched_operands_not_dry_run_without_nodes_do_not_depend_on_them(platform):
    # Only operands marked reads_nodes are built again without nodes; CDI and NetworkAddonsConfig must then be the
    # same whatever the nodes (none, workers only, the default topology, another architecture).
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.operands import OPERANDS

    assert {o.patched_kind for o in OPERANDS if o.patched_kind and not o.reads_nodes} == {"CDI", "NetworkAddonsConfig"}
    arm = [{"name": "a1", "labels": {"node-role.kubernetes.io/worker": ""}, "architecture": "arm64"}]
    workers = [n for n in default_nodes() if "node-role.kubernetes.io/worker" in n["labels"]]
    seen = []
    for nodes in (default_nodes(), workers, arm):
        result = run([], "create", platform, nodes)
        seen.append([o for o in result.operands if o["kind"] in ("CDI", "NetworkAddonsConfig")])
    assert seen[0] == seen[1] == seen[2] and len(seen[0]) == 2
