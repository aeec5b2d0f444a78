# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The wasp-agent objects: its image, the upgrade from 1.0, obsolete settings (vectors WA of node-prereqs-examples.md)."""

from __future__ import annotations

from swap_specs import errors_of, node

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs import swap


def test_wasp_image_from_the_hco_csv():  # WA-02
    csv = {"spec": {"relatedImages": [
        {"name": "hyperconverged-cluster-operator", "image": "registry.example/hco@sha256:1"},
        {"name": "wasp-agent", "image": "registry.example/wasp-agent-rhel9@sha256:2"}]}}
    base = {"platform": "openshift", "version": "4.18", "overcommit_percent": 150, "nodes": [node()]}
    result = swap.plan(dict(base, wasp={"csv": csv}))
    daemonset = next(o for o in result["objects"] if o["kind"] == "DaemonSet")
    assert daemonset["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.example/wasp-agent-rhel9@sha256:2"
    assert errors_of(dict(base, wasp={"related_images": csv["spec"]["relatedImages"][:1]})) == {
        ("wasp.related_images", "no wasp-agent entry in the CSV's relatedImages")}
    given = swap.plan(dict(base, wasp={"csv": csv, "image": "mirror.example/wasp:v1"}))
    assert next(o for o in given["objects"] if o["kind"] == "DaemonSet")["spec"]["template"]["spec"][
        "containers"][0]["image"] == "mirror.example/wasp:v1"


def test_upgrade_from_wasp_agent_1_0():  # WA-04
    base = {"platform": "openshift", "version": "4.17", "hco_version": "1.14", "overcommit_percent": 150,
            "nodes": [node()]}
    result = swap.plan(dict(base, wasp={"upgrade_from": "1.0", "previous_kubelet_config": "custom-config"}))
    assert result["delete_first"] == [
        {"apiVersion": "monitoring.openshift.io/v1", "kind": "AlertingRule",
         "metadata": {"name": "wasp-alerts", "namespace": "openshift-monitoring"}},
        {"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "KubeletConfig",
         "metadata": {"name": "custom-config"}}]
    kubelet = next(o for o in result["objects"] if o["kind"] == "KubeletConfig")
    assert kubelet["spec"]["kubeletConfig"] == {"failSwapOn": False}  # no evictionSoft any more
    assert "DaemonSet" in {o["kind"] for o in result["objects"]}
    assert errors_of(dict(base, wasp={"upgrade_from": "1.0"})) == {
        ("wasp.previous_kubelet_config", ("name the KubeletConfig created for wasp-agent 1.0 (with evictionSoft): it "
                                          "is replaced by one with failSwapOn only"))}
    assert swap.plan(base)["delete_first"] == []


def test_obsolete_eviction_variables_warn():  # WA-05
    base = {"platform": "openshift", "version": "4.18", "overcommit_percent": 150, "nodes": [node()]}
    result = swap.plan(dict(base, wasp={"extra_env": [{"name": "MAX_AVERAGE_SWAP_IN_PAGES_PER_SECOND",
                                                       "value": "1000"}]}))
    assert [w for w in result["warnings"] if "obsolete" in w] == [
        ("wasp-agent container wasp-agent: MAX_AVERAGE_SWAP_IN_PAGES_PER_SECOND is obsolete (eviction settings were "
         "removed in wasp-agent@217a31c, FSROOT in @fd075f2); drop it together with the old image")]
    assert not [w for w in swap.plan(base)["warnings"] if "obsolete" in w]


def test_an_hco_that_deploys_wasp_agent_gets_no_second_one_whatever_the_openshift_version():
    for hco_version in ("1.16", "1.20"):
        result = swap.plan({"platform": "openshift", "version": "4.19", "hco_version": hco_version,
                            "overcommit_percent": 150, "nodes": [node()]})
        assert result["mechanism"] == "wasp-agent-hco"
        assert [o["kind"] for o in result["objects"]] == ["KubeletConfig", "MachineConfig"]
    manual = swap.plan({"platform": "openshift", "version": "4.20", "hco_version": "1.14", "overcommit_percent": 150,
                        "nodes": [node()]})
    assert manual["mechanism"] == "wasp-agent" and "DaemonSet" in [o["kind"] for o in manual["objects"]]
