# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render mode's operators: what the site's operators stage would write on a cluster that runs none of them,
computed by the operators' own code (_operators/bundles.py) from the site's settings as site.yml passes them to the
operators role. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import re
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import bundles
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import Settings

DEFAULT_NAMESPACE = "kubevirt-hyperconverged"
# The operators stage's option names in its problems (not inside a path or a longer name).
OPTION = re.compile(r"(?<![\w./-])(?:operators_(?:source|versions|checksums|csvs|manifests_dir|manifests_url)|"
                    r"manifests_dir|manifests_url)\b")


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
        **Settings.from_objects(objects))


def rendered(values: t.Mapping[str, t.Any], hyperconverged: t.Mapping[str, t.Any],
             objects: t.Sequence[t.Mapping[str, t.Any]], fetch: bundles.Fetch) -> bundles.Rendered:
    """The operators' objects and instances, with every problem named by the site's setting or the file."""
    if values["operators_source"] == "none":
        return bundles.Rendered((), (), (), ())
    settings = settings_of(values, hyperconverged, objects)
    found = bundles.rendered(settings, fetch)
    problems = tuple(OPTION.sub(_site_name, p) for p in found.problems)
    return dataclasses.replace(found, problems=problems)


def _site_name(match: re.Match[str]) -> str:
    """The operators stage names its options (operators_versions.x, manifests_dir); the site's user wrote site_*."""
    name = match.group(0)
    return "site_" + (name if name.startswith("operators_") else f"operators_{name}")
