# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CDI builder (mapping spec section 7)."""

from __future__ import annotations

from hco_cases import INFRA, WORKLOADS, operand


def test_name_scope_and_constants():
    cdi = operand("CDI")
    assert (cdi["apiVersion"], cdi["metadata"]["name"]) == ("cdi.kubevirt.io/v1beta1", "cdi-kubevirt-hyperconverged")
    assert "namespace" not in cdi["metadata"]  # cluster-scoped
    assert cdi["spec"]["config"]["featureGates"] == ["HonorWaitForFirstConsumer", "DataVolumeClaimAdoption"]
    assert cdi["spec"]["uninstallStrategy"] == "BlockUninstallIfWorkloadsExist"
    assert (cdi["spec"]["infra"], cdi["spec"]["workload"]) == ({}, {})
    assert cdi["spec"]["config"]["tlsSecurityProfile"] == {"type": "Intermediate", "intermediate": {}}


def test_storage_fields_and_placement_are_copied():
    cdi = operand("CDI", {
        "scratchSpaceStorageClass": "fast", "storageImport": {"insecureRegistries": ["reg.lan:5000"]},
        "filesystemOverhead": {"global": "0.1", "storageClass": {"fast": "0.2"}},
        "resourceRequirements": {"storageWorkloads": {"limits": {"cpu": "1.5", "memory": "1.5Gi"}}},
        "logVerbosityConfig": {"cdi": 4},
        "infra": {"nodePlacement": INFRA}, "workloads": {"nodePlacement": WORKLOADS}})
    config = cdi["spec"]["config"]
    assert config["scratchSpaceStorageClass"] == "fast"
    assert config["insecureRegistries"] == ["reg.lan:5000"]
    assert config["filesystemOverhead"] == {"global": "0.1", "storageClass": {"fast": "0.2"}}
    assert config["podResourceRequirements"] == {"limits": {"cpu": "1500m", "memory": "1536Mi"}}  # canonical
    assert config["logVerbosity"] == 4
    assert cdi["spec"]["infra"] == INFRA and cdi["spec"]["workload"] == WORKLOADS


def test_empty_insecure_registries_are_omitted():
    assert "insecureRegistries" not in operand("CDI", {"storageImport": {"insecureRegistries": []}})["spec"]["config"]
