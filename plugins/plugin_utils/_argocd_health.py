# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Argo CD resource health checks (Lua) for the kinds the site's tree holds whose operators Argo CD ships none for,
so that a sync wave counts as healthy only once its operator has done its work, and the next wave waits.

Argo CD runs a health script with the object as the global ``obj``, the base, table and package libraries only (no
string library unless useOpenLibs is set), and takes the table it returns: ``status`` one of Healthy, Progressing,
Degraded, Suspended, Missing, Unknown, and ``message`` (argo-cd v2.14, util/lua/lua.go, ExecuteHealthLua); it reads
them from ``argocd-cm``'s ``resource.customizations.health.<group>_<kind>`` keys
(docs/operator-manual/health.md). An object with no status yet, or whose operator has not observed its latest
generation, is Progressing. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

# The operators' common conditions: Available, Progressing and Degraded, as HCO (controllers/hyperconverged), virt-
# operator, cdi-operator, cluster-network-addons-operator, ssp-operator, hostpath-provisioner-operator and
# kubernetes-nmstate (its NMState and its policies) write them. Degraded wins, then Progressing, then Available.
CONDITIONS = """\
local hs = {status = "Progressing", message = "Waiting for the operator to report its state"}
if obj.status == nil then
  return hs
end
if obj.status.observedGeneration ~= nil and obj.metadata.generation ~= nil
    and obj.status.observedGeneration < obj.metadata.generation then
  hs.message = "Waiting for the operator to observe generation " .. obj.metadata.generation
  return hs
end
local found = {}
if obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    found[condition.type] = condition
  end
end
local function said(condition, fallback)
  if condition.message ~= nil and condition.message ~= "" then
    return condition.message
  end
  if condition.reason ~= nil and condition.reason ~= "" then
    return condition.reason
  end
  return fallback
end
if found.Degraded ~= nil and found.Degraded.status == "True" then
  hs.status = "Degraded"
  hs.message = said(found.Degraded, "Degraded")
elseif found.Progressing ~= nil and found.Progressing.status == "True" then
  hs.message = said(found.Progressing, "Progressing")
elseif found.Available ~= nil and found.Available.status == "True" then
  hs.status = "Healthy"
  hs.message = said(found.Available, "Available")
elseif found.Available ~= nil then
  hs.message = said(found.Available, "Not available yet")
end
return hs
"""

# OLM's Subscription: a failed resolution or install plan, or an unhealthy catalog, is Degraded; an install plan that
# waits for manual approval is Suspended (someone must approve it); at the channel's latest known CSV it is Healthy
# (operator-framework/api, pkg/operators/v1alpha1/subscription_types.go: SubscriptionState, the condition types).
SUBSCRIPTION = """\
local hs = {status = "Progressing", message = "Waiting for OLM to resolve the subscription"}
if obj.status == nil then
  return hs
end
if obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    if condition.status == "True" and (condition.type == "ResolutionFailed" or condition.type == "InstallPlanFailed"
        or condition.type == "CatalogSourcesUnhealthy") then
      hs.status = "Degraded"
      hs.message = condition.message or condition.reason or condition.type
      return hs
    end
    if condition.status == "True" and condition.type == "InstallPlanPending"
        and condition.reason == "RequiresApproval" then
      hs.status = "Suspended"
      hs.message = "An InstallPlan waits for manual approval"
      return hs
    end
  end
end
if obj.status.state == "AtLatestKnown" then
  hs.status = "Healthy"
  hs.message = "Installed " .. (obj.status.installedCSV or "")
elseif obj.status.state ~= nil then
  hs.message = obj.status.state .. " " .. (obj.status.currentCSV or "")
end
return hs
"""

# OLM's ClusterServiceVersion by its phase (pkg/operators/v1alpha1/clusterserviceversion_types.go, ClusterServiceVersionPhase).
CSV = """\
local hs = {status = "Progressing", message = "Waiting for OLM to install the operator"}
if obj.status == nil or obj.status.phase == nil then
  return hs
end
if obj.status.phase == "Succeeded" then
  hs.status = "Healthy"
elseif obj.status.phase == "Failed" then
  hs.status = "Degraded"
end
hs.message = obj.status.phase .. ": " .. (obj.status.message or obj.status.reason or "")
return hs
"""

# By group and kind, as argocd-cm keys them. SriovNetworkNodePolicy has none: the policy itself has no status (each
# node's progress is in its SriovNetworkNodeState), so no script on the policy can tell when it is done.
HEALTH: dict[tuple[str, str], str] = {
    ("hco.kubevirt.io", "HyperConverged"): CONDITIONS,
    ("kubevirt.io", "KubeVirt"): CONDITIONS,
    ("cdi.kubevirt.io", "CDI"): CONDITIONS,
    ("networkaddonsoperator.network.kubevirt.io", "NetworkAddonsConfig"): CONDITIONS,
    ("ssp.kubevirt.io", "SSP"): CONDITIONS,
    ("hostpathprovisioner.kubevirt.io", "HostPathProvisioner"): CONDITIONS,
    ("nmstate.io", "NMState"): CONDITIONS,
    ("nmstate.io", "NodeNetworkConfigurationPolicy"): CONDITIONS,
    ("operators.coreos.com", "Subscription"): SUBSCRIPTION,
    ("operators.coreos.com", "ClusterServiceVersion"): CSV,
}


def customizations() -> dict[str, str]:
    """argocd-cm's data keys for every health check."""
    return {f"resource.customizations.health.{group}_{kind}": script for (group, kind), script in HEALTH.items()}


def config_map() -> dict[str, object]:
    """The keys as argocd-cm, to merge with server-side apply (they are the only fields this writes)."""
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "argocd-cm", "namespace": "argocd",
                         "labels": {"app.kubernetes.io/name": "argocd-cm", "app.kubernetes.io/part-of": "argocd"}},
            "data": customizations()}
