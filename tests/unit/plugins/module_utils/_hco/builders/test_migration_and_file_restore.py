# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""MigController and FileRestoreOperator builders (mapping spec section 11) and the PriorityClass (section 12)."""

from __future__ import annotations

from hco_cases import INFRA, NAMESPACE, operand

OLD = {"type": "Old", "old": {}}


def test_mig_controller_takes_infra_placement_and_the_profile():
    default = operand("MigController")
    assert (default["metadata"]["name"], default["metadata"]["namespace"]) == (
        "migcontroller-kubevirt-hyperconverged", NAMESPACE)
    assert default["spec"] == {"imagePullPolicy": "IfNotPresent", "infra": {},
                               "tlsSecurityProfile": {"type": "Intermediate", "intermediate": {}}}
    placed = operand("MigController", {"infra": {"nodePlacement": INFRA}, "tlsSecurityProfile": OLD})
    assert placed["spec"]["infra"] == INFRA and placed["spec"]["tlsSecurityProfile"] == OLD


def test_file_restore_operator_has_no_placement():
    restore = operand("FileRestoreOperator", {"infra": {"nodePlacement": INFRA}, "tlsSecurityProfile": OLD})
    assert (restore["metadata"]["name"], restore["metadata"]["namespace"]) == (
        "vm-file-restore-kubevirt-hyperconverged", NAMESPACE)
    assert restore["spec"] == {"imagePullPolicy": "IfNotPresent", "tlsSecurityProfile": OLD}


def test_priority_class():
    priority = operand("PriorityClass")
    assert priority["metadata"]["name"] == "kubevirt-cluster-critical"
    assert priority["value"] == 1000000000
