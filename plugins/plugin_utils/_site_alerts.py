# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The HCO alerts the site's configuration will raise, named before any write, each with its reason and its fix:
from the plan (the HyperConverged the site writes, as HCO computes it, and the nodes) and, in apply mode, from what
the alerts read on the cluster (module_utils/_k8s/alert_inputs.py). Which alerts exist per release and how each is
predicted: module_utils/_hco/alerts.py. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.names import COLLECTION
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco import alerts
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.alert_inputs import AlertInputs
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import selector_matches
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_outside_hco as outside_hco

MULTI_ARCH_GATE = "enableMultiArchBootImageImport"
# Where the site deploys wasp-agent itself (before 1.16): the node prerequisites' default (_prereqs/wasp.py).
SITE_WASP_NAMESPACE = "wasp"


def descheduler(release: str, spec: t.Mapping[str, t.Any] | None) -> str | None:
    """HCOMisconfiguredDescheduler's line where the KubeDescheduler ``spec`` fails the release's rule."""
    if spec is None:
        return None
    wanted = alerts.DESCHEDULER_PROFILES[release]
    where = f"KubeDescheduler {alerts.DESCHEDULER_NAMESPACE}/{alerts.DESCHEDULER_NAME}"
    if wanted is None:
        if (spec.get("profileCustomizations") or {}).get("devEnableEvictionsInBackground") is True:
            return None
        return (f"HCOMisconfiguredDescheduler: {where} lacks profileCustomizations.devEnableEvictionsInBackground: "
                "true, so evicting a VM's pod starts a live migration the descheduler takes for a failed eviction "
                "(a migration storm); fix: set it (site_descheduler: true does)")
    if any(profile in wanted for profile in spec.get("profiles") or []):
        return None
    return (f"HCOMisconfiguredDescheduler: {where} has none of the profiles HCO {release} takes for KubeVirt "
            f"({', '.join(wanted)}; it has {', '.join(spec.get('profiles') or []) or 'none'}); fix: add "
            f"{wanted[0]} to spec.profiles (site_descheduler: true does)")


def wasp_agents(release: str, hco_mode: bool, overcommit: int, namespace: str, own_namespace: str | None,
                found: t.Sequence[tuple[str, str]]) -> list[str]:
    """Each wasp-agent DaemonSet beside the one that belongs (HCO's from 1.16 in hco mode, else the site's own)."""
    hco_deploys = hco_mode and release in alerts.FROM_1_16 and overcommit > 100
    expected = {namespace} if hco_deploys else ({own_namespace} if own_namespace else set())
    lines = []
    for where, creator in found:
        if where in expected or (creator == COLLECTION and not hco_deploys):
            continue
        by = f" (created by {creator})" if creator else ""
        if hco_deploys and where == alerts.WASP_RULE_NAMESPACE:
            lines.append(f"DuplicateWaspAgentDSDetected: DaemonSet {where}/wasp-agent{by} runs beside the one HCO "
                         f"{release} deploys in {namespace}; fix: delete the namespace {where}'s wasp-agent (HCO's "
                         "runbook DuplicateWaspAgentDSDetected)")
        elif expected:
            lines.append(f"wasp-agent: DaemonSet {where}/wasp-agent{by} runs beside the one in "
                         f"{next(iter(expected))}: two agents on one node fight over its swap; fix: delete it")
    return lines


def golden_images(release: str, spec: t.Mapping[str, t.Any], status_dicts: t.Sequence[t.Mapping[str, t.Any]],
                  architectures: t.Collection[str]) -> list[str]:
    """The golden-image alerts of 1.16 on, from the HyperConverged's status as HCO computes it."""
    if release not in alerts.FROM_1_16 or not status_dicts:
        return []
    enabled = bool((spec.get("featureGates") or {}).get(MULTI_ARCH_GATE))
    if not enabled:
        if len(architectures) <= 1:
            return []
        line = (f"HCOMultiArchGoldenImagesDisabled: the workload nodes are {', '.join(sorted(architectures))} and "
                f"golden images are imported, but featureGates.{MULTI_ARCH_GATE} is off, so each image is imported "
                f"for one architecture; fix: set featureGates.{MULTI_ARCH_GATE}: true")
        return [line]
    lines = []
    for entry in status_dicts:
        name = (entry.get("metadata") or {}).get("name")
        state = entry.get("status") or {}
        if not state.get("originalSupportedArchitectures"):
            lines.append(f"HCOGoldenImageWithNoArchitectureAnnotation: dataImportCronTemplates {name} has no "
                         f"ssp.kubevirt.io/dict.architectures annotation; fix: annotate it with the architectures "
                         "its image is built for")
        elif any(c.get("type") == "Deployed" and c.get("status") == "False" for c in state.get("conditions") or []):
            lines.append(f"HCOGoldenImageWithNoSupportedArchitecture: dataImportCronTemplates {name} is built for "
                         f"{state['originalSupportedArchitectures']}, which no workload node runs "
                         f"({', '.join(sorted(architectures)) or 'none known'}); it is not deployed; fix: drop it or "
                         "add nodes of its architecture")
    return lines


def unsafe(counts: t.Mapping[str, int]) -> list[str]:
    return [f"UnsupportedHCOModification: the HyperConverged's {name} annotation holds {count} jsonpatch "
            "operation(s), which HCO counts as unsupported modifications; fix: express them in the spec, or accept "
            "the alert" for name, count in sorted(counts.items()) if count]


def modified(edited: t.Sequence[t.Mapping[str, t.Any]]) -> list[str]:
    """KubeVirtCRModified: each operand someone changed outside HCO (_site_outside_hco), which HCO puts back."""
    return [f"KubeVirtCRModified: {outside_hco.named(entry)} differs from what HCO builds from the HyperConverged; "
            "HCO puts its value back and counts the modification; fix: set it through the HyperConverged (the "
            "site's settings) and undo the edit" for entry in edited]


def workload_architectures(nodes: t.Sequence[t.Mapping[str, t.Any]], selector: t.Mapping[str, str]) -> set[str]:
    return {str(node["architecture"]) for node in nodes
            if node.get("architecture") and selector_matches(selector, node.get("labels") or {})}


def predict(*, release: str, hco_mode: bool, render: t.Mapping[str, t.Any], nodes: t.Sequence[t.Mapping[str, t.Any]],
            workload_selector: t.Mapping[str, str], overcommit: int, own_wasp_namespace: str | None,
            inputs: AlertInputs | None, edited: t.Sequence[t.Mapping[str, t.Any]] = ()) -> list[str]:
    """Every alert line: in hco mode HCO's alerts, and in either mode a second wasp-agent (HCO raises nothing where
    it does not run, but the two agents still fight)."""
    hyperconverged = render.get("hyperconverged") or {}
    namespace = str((hyperconverged.get("metadata") or {}).get("namespace") or "kubevirt-hyperconverged")
    lines = []
    if inputs is not None:
        lines += wasp_agents(release, hco_mode, overcommit, namespace, own_wasp_namespace, inputs.wasp_agents)
    if not hco_mode:
        return lines
    if inputs is not None:
        lines += [line for line in [descheduler(release, inputs.descheduler)] if line]
    lines += modified(edited)
    lines += unsafe(render.get("unsafe_modifications") or {})
    lines += golden_images(release, hyperconverged.get("spec") or {},
                           (hyperconverged.get("status") or {}).get("dataImportCronTemplates") or [],
                           workload_architectures(nodes, workload_selector))
    return lines
