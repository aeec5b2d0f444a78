# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet's GitOps files, against Argo CD's list generator (argo-cd v2.14,
docs/operator-manual/applicationset/Generators-List.md: elements of key-value pairs, a template whose ``{{key}}``
parameters they fill) and Flux's Kustomization dependsOn chain (the guide's, which test_gitops_flux syncs)."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _gitops_fleet as gitops

REPO = gitops.Repository("https://git.example.com/fleet.git", "main", "sites", "platform")


def test_the_applicationset_has_an_element_per_cluster_and_a_template_the_elements_fill():
    members = [gitops.Member("west", "prod-west", False), gitops.Member("east", "east", True)]
    appset = gitops.application_set(members, REPO)
    assert appset["apiVersion"] == "argoproj.io/v1alpha1" and appset["kind"] == "ApplicationSet"
    assert appset["spec"]["generators"] == [{"list": {"elements": [
        {"cluster": "east", "destination": "east", "path": "sites/clusters/east"},
        {"cluster": "west", "destination": "prod-west", "path": "sites/clusters/west"}]}}]
    template = appset["spec"]["template"]
    assert template["metadata"]["name"] == "virt-{{cluster}}"
    assert template["spec"]["source"] == {"repoURL": "https://git.example.com/fleet.git", "targetRevision": "main",
                                          "path": "{{path}}"}
    assert template["spec"]["destination"] == {"name": "{{destination}}"}
    assert template["spec"]["project"] == "platform"
    assert "ServerSideApply=true" in template["spec"]["syncPolicy"]["syncOptions"]
    top = gitops.Repository("u", "HEAD", "", "default")
    assert gitops.application_set(members[:1], top)["spec"]["generators"][0]["list"]["elements"][0]["path"] == \
        "clusters/west"


def test_the_flux_chain_is_a_kustomization_per_stage_each_after_the_one_before():
    chain = gitops.flux_chain(gitops.Member("east", "east", True), REPO)
    names = [k["metadata"]["name"] for k in chain]
    assert names == ["virt-00-namespaces", "virt-01-operators", "virt-02-instances", "virt-03-prerequisites",
                     "virt-04-kubevirt", "virt-05-presets"]
    assert [k["spec"].get("dependsOn") for k in chain] == [None] + [[{"name": name}] for name in names[:-1]]
    assert chain[3]["spec"]["path"] == "./sites/clusters/east/03-prerequisites"
    # Flux ignores healthChecks with wait: the instances stage checks the policies' CRD instead of waiting.
    assert "wait" not in chain[2]["spec"] and chain[2]["spec"]["healthChecks"][0]["kind"] == "CustomResourceDefinition"
    assert all(k["spec"]["wait"] is True for position, k in enumerate(chain) if position != 2)
    # The stages whose kinds kstatus would call ready at once carry Flux's CEL checks for them (test_flux_health).
    checked = {k["metadata"]["name"]: sorted(e["kind"] for e in k["spec"].get("healthCheckExprs") or []) for k in chain}
    assert checked == {"virt-00-namespaces": [], "virt-01-operators": ["Subscription"], "virt-02-instances": [],
                       "virt-03-prerequisites": ["HostPathProvisioner", "NodeNetworkConfigurationPolicy"],
                       "virt-04-kubevirt": ["CDI", "HyperConverged", "KubeVirt", "NetworkAddonsConfig", "SSP"],
                       "virt-05-presets": []}
