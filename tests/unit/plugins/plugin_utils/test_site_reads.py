# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the site's one read of the cluster asks for, from its plan, and what each ownership mode needs served."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_values as site_values
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_compose import compose, for_removal
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_plan import Plan, site_plan
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_reads import site_reads

WORKER = {"node-role.kubernetes.io/worker": ""}
NODES = [{"name": "worker1", "labels": WORKER, "memory": "64Gi", "taints": []}]
NNCP = {"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy"}
ROLE_KINDS = [{"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype"},
              {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule"},
              {"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor"}]
HCO = "hco.kubevirt.io/v1beta1/HyperConverged"
KUBEVIRT = "kubevirt.io/v1/KubeVirt"
NNCP_KEY = "nmstate.io/v1/NodeNetworkConfigurationPolicy"


def reads(state="present", **provided):
    settings = site_values.normalize({"site_platform_version": "1.33", "site_state": state, **provided})
    assert settings.errors == ()
    hyperconverged, spec = compose(settings, NODES)
    removal_spec = for_removal(spec)[0] if state == "absent" else spec
    plan = site_plan(site_values.effective(settings), hyperconverged, spec, removal_spec, NODES)
    assert plan.problems == ()
    return site_reads(state, removal_spec, plan)


BRIDGE = {"site_vm_bridge_nic": "eno2", "site_vm_vlans": "100",
          "site_vm_networks": [{"name": "net", "namespace": "vms", "vlan": 100}]}


def test_a_configuration_reads_every_kind_it_writes_and_the_live_policies_it_is_checked_against():
    found = reads(**BRIDGE)
    keys = [f"{k['apiVersion']}/{k['kind']}" for k in found["kinds"]]
    assert len(keys) == len(set(keys))                     # each kind once
    assert {HCO, KUBEVIRT, NNCP_KEY} <= set(keys)
    assert found["kinds"][-3:] == ROLE_KINDS               # and what the hyperconverged role checks
    assert found["read"] == [NNCP]


def test_each_mode_needs_what_it_writes_and_nothing_the_other_mode_writes():
    needs = reads(**BRIDGE)["needs"]
    assert HCO in needs["hco"] and KUBEVIRT not in needs["hco"]
    assert KUBEVIRT in needs["standalone"] and HCO not in needs["standalone"]
    # The prerequisites are written in both modes; the preset's instance types in neither (deferred, not refused).
    assert NNCP_KEY in needs["hco"] and NNCP_KEY in needs["standalone"]
    # Each with what to install for it.
    assert needs["standalone"][KUBEVIRT] == "KubeVirt (kubevirt.io/v1): install KubeVirt (virt-operator)"
    assert not any(key.startswith("instancetype.kubevirt.io/") for mode in needs.values() for key in mode)


def test_every_kind_a_mode_needs_is_read():
    found = reads(**BRIDGE)
    keys = {f"{k['apiVersion']}/{k['kind']}" for k in found["kinds"]}
    assert set(found["needs"]["hco"]) | set(found["needs"]["standalone"]) <= keys


def test_a_spec_without_networking_reads_no_live_policy():
    assert reads()["read"] == []


def test_a_removal_needs_nothing_served_and_reads_what_its_own_spec_checks():
    found = reads("absent", **BRIDGE)
    assert found["kinds"] == ROLE_KINDS
    assert found["needs"] == {"hco": {}, "standalone": {}}
    assert found["read"] == []    # the VM bridge is kept by a removal: no networking left to check


def test_a_plan_with_problems_has_no_reads():
    with pytest.raises(ValueError):
        site_reads("present", {}, Plan(problems=("site_vm_vlans: bad",)))
