# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prereqs' result for one render of the node prerequisites, as the site's plan keeps it too. PRIVATE; no
Ansible imports."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.render import with_namespaces


def prereqs_result(rendered: t.Mapping[str, t.Any], spec: t.Mapping[str, t.Any], state: str,
                   create_namespaces: bool) -> dict[str, t.Any]:
    """``rendered`` is ``_prereqs.render.render(spec, state)``; with ``create_namespaces`` a configuration also
    creates the namespaces its objects live in."""
    sections = rendered["sections"]
    networking = sections.get("networking") or {}
    storage = sections.get("storage") or {}
    result: dict[str, t.Any] = {
        "objects": (with_namespaces(rendered["objects"], [spec.get("hco_namespace", "")])
                    if create_namespaces and state == "present" else rendered["objects"]),
        "delete_first": rendered["delete_first"],
        "delete": rendered["delete"],
        "hyperconverged": rendered["hyperconverged"],
        "swap": {k: v for k, v in (sections.get("swap") or {}).items() if k not in ("objects", "warnings")},
        "generated_nads": (sections.get("sriov") or {}).get("generated_nads", []),
        "storage_directories": storage.get("directories", []),
        "network_rollout": networking.get("rollout", []),
        "address_preview": networking.get("address_preview", []),
        "storage_pool_claims": storage.get("pool_claims", []),
        "storage_volume_roots": storage.get("volume_roots", []),
        "storage_names": storage.get("names", {}),
        "msg": f"computed {len(rendered['objects'])} objects",
    }
    if rendered["warnings"]:
        result["warnings"] = list(rendered["warnings"])
    return result
