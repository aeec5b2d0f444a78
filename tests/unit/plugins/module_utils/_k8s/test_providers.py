# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.providers import kinds_of, unserved

OBJECTS = [
    {"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": "a"}},
    {"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy", "metadata": {"name": "b"}},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "vms"}},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
]


def test_each_kind_once_in_order():
    assert kinds_of(OBJECTS) == [("nmstate.io/v1", "NodeNetworkConfigurationPolicy"), ("v1", "Namespace"),
                                 ("example.com/v1", "Widget")]


def test_one_line_per_unserved_kind_naming_what_to_install():
    served = {"nmstate.io/v1/NodeNetworkConfigurationPolicy": False, "v1/Namespace": True,
              "example.com/v1/Widget": False}
    assert unserved(OBJECTS, served) == [
        "NodeNetworkConfigurationPolicy (nmstate.io/v1): install kubernetes-nmstate (its operator and an NMState)",
        "Widget (example.com/v1): install the operator that serves example.com"]
    assert unserved(OBJECTS, {}) == []  # not asked about: taken as served
