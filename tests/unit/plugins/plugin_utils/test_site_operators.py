# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_operators as site_operators

VALUES = {
    "operators_source": "manifests", "platform": "kubernetes", "release": "1.20", "operators_versions": {},
    "operators_manifests_dir": "", "operators_manifests_url": "", "operators_checksums": {},
    "operators_approval": "Automatic", "operators_csvs": {}, "operators_catalog_source": "",
    "operators_catalog_namespace": "", "operators_channel": "stable", "infra_node_selector": {"infra": ""},
}
HC = {"metadata": {"name": "kubevirt-hyperconverged", "namespace": "virt"}}
OBJECTS = [{"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "kv", "namespace": "virt"}},
           {"apiVersion": "nmstate.io/v1", "kind": "NMState", "metadata": {"name": "nmstate"}, "spec": {"x": 1}}]


def never(location: str) -> bytes:
    raise AssertionError(f"{location} read where nothing should be")


def test_settings_as_the_site_gives_them_to_the_operators_role():
    settings = site_operators.settings_of(VALUES, HC, OBJECTS)
    assert settings.operators == ("kubevirt", "nmstate") and settings.namespace == "virt"
    assert settings.placement == {"node_selector": {"infra": ""}}
    assert settings.instances == (OBJECTS[1],)
    assert ("KubeVirt", "virt", "kv") in settings.skip
    assert site_operators.settings_of({**VALUES, "infra_node_selector": {}}, {}, []).namespace == \
        "kubevirt-hyperconverged"


def test_none_renders_no_operator_and_problems_name_the_sites_settings(tmp_path):
    assert site_operators.rendered({**VALUES, "operators_source": "none"}, HC, OBJECTS, never) == \
        site_operators.bundles.Rendered((), (), (), ())
    found = site_operators.rendered({**VALUES, "operators_manifests_dir": str(tmp_path / "rel")}, HC,
                                    [{"apiVersion": "migrations.kubevirt.io/v1alpha1", "kind": "MigController",
                                      "metadata": {"name": "m"}}], never)
    assert found.problems == (("kubevirt-migration-operator: the release profile pins no version of it; set "
                              "site_operators_versions.migration"),)
