# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render mode's operators: what the site's operators stage would write on a cluster that runs none of them,
computed by the operators' own code (_operators/bundles.py) from the site's settings as site.yml passes them to the
operators role. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import types
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import bundles
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import ROLE_NAMES, Settings

DEFAULT_NAMESPACE = "kubevirt-hyperconverged"
# The operators stage's options as the site's user wrote them (the others keep the stage's own names).
_OWN = ("source", "versions", "manifests_dir", "manifests_url", "checksums", "approval", "csvs", "catalog_source",
        "catalog_namespace", "channel")
SITE_NAMES: t.Mapping[str, str] = types.MappingProxyType({
    **{option: f"site_operators_{option}" for option in _OWN},
    "release": "site_release", "platform": "site_platform", "namespace": "site_hco_namespace",
    "placement": "site_infra_node_selector"})


def settings_of(values: t.Mapping[str, t.Any], hyperconverged: t.Mapping[str, t.Any],
                objects: t.Sequence[t.Mapping[str, t.Any]]) -> Settings:
    """The operators stage's settings, as site.yml's play vars give them to the operators role."""
    return Settings(
        source=values["operators_source"], platform=values["platform"], release=values["release"],
        namespace=(hyperconverged.get("metadata") or {}).get("namespace") or DEFAULT_NAMESPACE,
        versions=values["operators_versions"], manifests_dir=values["operators_manifests_dir"],
        manifests_url=values["operators_manifests_url"], checksums=values["operators_checksums"],
        approval=values["operators_approval"], csvs=values["operators_csvs"],
        catalog_source=values["operators_catalog_source"], catalog_namespace=values["operators_catalog_namespace"],
        channel=values["operators_channel"],
        placement={"node_selector": values["infra_node_selector"]} if values["infra_node_selector"] else {},
        names={**ROLE_NAMES, **SITE_NAMES}, **Settings.from_objects(objects))


def rendered(values: t.Mapping[str, t.Any], hyperconverged: t.Mapping[str, t.Any],
             objects: t.Sequence[t.Mapping[str, t.Any]], fetch: bundles.Fetch) -> bundles.Rendered:
    """The operators' objects and instances, with every problem named by the site's setting or the file."""
    if values["operators_source"] == "none":
        return bundles.Rendered((), (), (), ())
    return bundles.rendered(settings_of(values, hyperconverged, objects), fetch)
