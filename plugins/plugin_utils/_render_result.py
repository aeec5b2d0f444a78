# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared by the hco_render action, the hco_operands filter and the site's plan: argument spec, plain-data
conversion and hco_render's result. PRIVATE."""

from __future__ import annotations

import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.companions import standalone

MANAGED_BY = "app.kubernetes.io/managed-by"

ARGUMENT_SPEC: dict[str, t.Any] = {
    "hyperconverged": {"type": "raw", "required": True},
    "release": {"type": "str", "default": "1.20"},
    "operation": {"type": "str", "default": "create", "choices": ["create", "update", "CREATE", "UPDATE"]},
    "cluster": {
        "type": "dict",
        "default": {},
        "options": {
            "platform": {"type": "str", "default": "kubernetes", "choices": ["kubernetes", "openshift"]},
            "namespace": {"type": "str", "default": "kubevirt-hyperconverged"},
            "nodes": {"type": "list", "elements": "dict"},
            "apiserver_tls_profile": {"type": "dict"},
            "base_domain": {"type": "str", "default": ""},
            "monitoring": {"type": "bool"},
        },
    },
    "environment": {
        "type": "dict",
        "default": {},
        "options": {
            "kvm_emulation": {"type": "bool"},
            "smbios": {"type": "raw"},
            "machine_types": {"type": "dict"},
            "version": {"type": "str"},
            "variables": {"type": "dict"},
        },
    },
    "status": {"type": "dict", "default": {}},
    "common_golden_images": {"type": "list", "elements": "dict"},
    "strict": {"type": "bool", "default": False},
    "managed_by": {"type": "str"},
}


def _exact_str(value: str) -> str:
    # Before ansible-core 2.19 AnsibleUnsafeText returns itself from str() and slicing; join builds a real str.
    return "".join([value])


def plain(value: t.Any) -> t.Any:
    """Copy into plain dict/list/str/int/float/bool/None (drops Ansible's tagged, unsafe and lazy types)."""
    if isinstance(value, dict):
        return {_exact_str(str(k)): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return _exact_str(value)
    return value


def render_kwargs(args: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    cluster = {k: v for k, v in (args.get("cluster") or {}).items() if v is not None}
    environment = {k: v for k, v in (args.get("environment") or {}).items() if v is not None}
    return {
        "hyperconverged": plain(args.get("hyperconverged")),
        "release": args.get("release"),
        "operation": args.get("operation") or "create",
        "cluster": plain(cluster),
        "environment": plain(environment),
        "status": plain(args.get("status") or {}),
        "common_golden_images": plain(args.get("common_golden_images")),
    }


def render_result(rendered: t.Any, managed_by: str | None) -> dict[str, t.Any]:
    """hco_render's result for one render of the engine (``_hco.render.Rendered``), as the site's plan keeps it too.
    With ``managed_by`` (standalone mode, where HCO does not manage the operands) the operands HCO would label as its
    own carry that manager instead (relabelled in place), and the Deployments HCO deploys with objects the collection
    does not write are left out, each named in ``hco_warnings`` (companions.py)."""
    operands, left_out = list(rendered.operands), list[str]()
    if managed_by:
        operands, left_out = standalone(operands)
        for operand in operands:
            labels = operand.setdefault("metadata", {}).setdefault("labels", {})
            if MANAGED_BY in labels:
                labels[MANAGED_BY] = managed_by
    return {
        "operands": operands,
        "hyperconverged": rendered.hyperconverged,
        "hco_warnings": [*rendered.warnings, *left_out],
        "unsafe_modifications": rendered.unsafe_modifications,
        "tainted": rendered.tainted,
        "release": rendered.release,
        "pruned_fields": rendered.pruned,
        "msg": f"rendered {len(operands)} objects for HCO release {rendered.release}",
    }
