# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Standalone mode writes no workload that could not run without the objects HCO creates beside it."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.companions import standalone


def obj(kind, name):
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "kubevirt-hyperconverged"}}


def test_the_injector_the_console_and_their_config_are_left_out_and_each_named():
    operands = [obj("KubeVirt", "kubevirt-kubevirt-hyperconverged"), obj("Deployment", "virt-network-resources-injector"),
                obj("Deployment", "kubevirt-console-plugin"), obj("Deployment", "kubevirt-apiserver-proxy"),
                obj("ConfigMap", "nginx-conf"), obj("DaemonSet", "wasp-agent"), obj("ServiceAccount", "wasp")]
    kept, warnings = standalone(operands)
    assert [(o["kind"], o["metadata"]["name"]) for o in kept] == [
        ("KubeVirt", "kubevirt-kubevirt-hyperconverged"), ("DaemonSet", "wasp-agent"), ("ServiceAccount", "wasp")]
    assert [w.split(" is not written")[0] for w in warnings] == [
        "standalone mode: Deployment virt-network-resources-injector", "standalone mode: Deployment kubevirt-console-plugin",
        "standalone mode: Deployment kubevirt-apiserver-proxy"]


def test_a_config_map_of_that_name_is_kept_without_the_console():
    kept, warnings = standalone([obj("ConfigMap", "nginx-conf")])
    assert len(kept) == 1 and warnings == []
