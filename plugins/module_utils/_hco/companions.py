# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The workloads HCO deploys together with objects the engine does not render, and what standalone mode does with
them. PRIVATE; no Ansible imports.

The engine renders what depends on the HyperConverged; HCO creates each of these Deployments beside a
ServiceAccount, RBAC, and for the webhooks and the console a Service whose serving certificate OpenShift's service-ca
issues (hyperconverged-cluster-operator, controllers/handlers: the network-resources-injector, AIE webhook,
observability and console handlers). Where the site writes the operands in HCO's place (standalone mode), a Deployment
without its ServiceAccount is refused pod by pod by the API server's ServiceAccount admission, and one without its
certificate never starts; it would never run. So standalone mode leaves each out and says why; HCO mode writes the
HyperConverged and HCO deploys them whole.
"""

from __future__ import annotations

import typing as t

from .builders import aie_webhook, console, network_resources_injector, observability_controller

_CERTIFIED = "a ServiceAccount, RBAC, a Service with a serving certificate and a webhook configuration"
# (Deployment name, what HCO creates beside it that the site does not write).
WITH_COMPANIONS: t.Mapping[str, str] = {
    network_resources_injector.NAME: _CERTIFIED,
    aie_webhook.NAME: _CERTIFIED,
    observability_controller.NAME: "a ServiceAccount and RBAC",
    console.PLUGIN: "a ServiceAccount, a Service with a serving certificate and the ConsolePlugin",
    console.PROXY: "a ServiceAccount, RBAC and a Service with a serving certificate",
}
# Objects that only serve one of those Deployments (kind, name): left out with it.
_ONLY_FOR = {("ConfigMap", "nginx-conf"): console.PLUGIN}


def standalone(operands: t.Sequence[t.Mapping[str, t.Any]]) -> tuple[list[t.Any], list[str]]:
    """(the operands standalone mode writes, a warning for each Deployment it leaves out and why)."""
    kept, left_out = [], []
    deployments = {o["metadata"]["name"] for o in operands if o["kind"] == "Deployment"}
    for operand in operands:
        name = operand["metadata"]["name"]
        if operand["kind"] == "Deployment" and name in WITH_COMPANIONS:
            left_out.append(name)
        elif _ONLY_FOR.get((operand["kind"], name)) not in deployments:
            kept.append(operand)
    warnings = [f"standalone mode: Deployment {name} is not written: HCO deploys it with {WITH_COMPANIONS[name]}, "
                "which the site does not write, so its pods could never run; site_mode hco (HCO installed) deploys it"
                for name in left_out]
    return kept, warnings
