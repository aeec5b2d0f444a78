# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""All node prerequisites from one spec: every section is validated before any result is returned.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import copy
import typing as t

from .._common.errors import FieldError
from . import bridges, olm, sriov, storage, swap
from .common import PrerequisiteError, Problems, check_keys, reference

SECTIONS: dict[str, t.Callable[[t.Mapping[str, t.Any]], dict[str, t.Any]]] = {
    "swap": swap.plan, "networking": bridges.plan, "sriov": sriov.plan, "storage": storage.plan, "olm": olm.plan,
}
SHARED_KEYS = ("platform", "version", "nodes", "hyperconverged", "hco_namespace")
SECTION_KEYS = {"swap": swap.KEYS, "networking": bridges.KEYS, "sriov": sriov.KEYS, "storage": storage.KEYS,
                "olm": olm.KEYS}
INPUT_CHECKS: dict[str, t.Callable[[Problems, t.Mapping[str, t.Any]], None]] = {
    "swap": swap.check_input, "networking": bridges.check_input, "sriov": sriov.check_input,
    "storage": storage.check_input, "olm": olm.check_input,
}


def render(spec: t.Mapping[str, t.Any], state: str = "present") -> dict[str, t.Any]:
    """{objects, delete_first, delete, hyperconverged (merge patch), sections, warnings}; PrerequisiteError lists
    every problem. ``delete_first`` are objects to delete before applying: what the cluster refuses to update in
    place; ``delete`` are the objects the spec marks ``state: absent`` (deleted only where this collection's apply
    set created them). With ``state="absent"`` every object goes to ``delete`` and none is applied, after the same
    checks; an NNCP that still configures an interface is refused (deleting a policy never reverts the node)."""
    top = Problems("input")
    check_keys(top, "", dict(spec), [*SHARED_KEYS, *SECTIONS])
    errors: list[FieldError] = list(top.errors)
    warnings: list[str] = []
    results: dict[str, dict[str, t.Any]] = {}
    for name, planner in SECTIONS.items():
        section = spec.get(name)
        if not section:
            continue
        known = Problems(name)
        check_keys(known, "", section, SECTION_KEYS[name] | set(SHARED_KEYS))
        if isinstance(section, dict):
            INPUT_CHECKS[name](known, section)
        if known.errors:  # a misspelt key: its section is not planned, so no knock-on errors follow
            errors += [FieldError(f"{name}.{e.path}", e.message, "input") for e in known.errors]
            continue
        merged = {key: spec[key] for key in SHARED_KEYS if key in spec}
        merged.update(section)
        try:
            results[name] = planner(merged)
        except PrerequisiteError as exc:
            errors += [FieldError(f"{name}.{e.path}" if e.path else name, e.message, e.stage) for e in exc.errors]
            warnings += exc.warnings
    if state == "absent":
        errors += _still_configuring(results.get("networking") or {})
    if errors:  # with the warnings of the sections that passed, which still apply
        raise PrerequisiteError(errors, warnings + [f"{name}: {w}" for name, result in results.items()
                                                    for w in result.get("warnings") or []])
    objects: list[dict[str, t.Any]] = []
    delete_first: list[dict[str, t.Any]] = []
    delete: list[dict[str, t.Any]] = []
    patch: dict[str, t.Any] = {}
    for name, result in results.items():
        objects += result.get("objects") or []
        delete_first += result.get("delete_first") or []
        delete += result.get("delete") or []
        _merge(patch, result.get("hyperconverged") or {})
        warnings += [f"{name}: {w}" for w in result.get("warnings") or []]
    if state == "absent":
        delete, objects, delete_first = [reference(o) for o in objects] + delete, [], []
        warnings.append("state absent: only what this collection's apply set created is deleted; the "
                        "HyperConverged settings these sections made (overcommit, migration network) stay until the "
                        "hyperconverged role changes them, and an operator a deleted Subscription installed stays "
                        "installed")
    return {"objects": objects, "delete_first": delete_first, "delete": delete, "hyperconverged": patch,
            "sections": results,
            "warnings": warnings}


def _still_configuring(networking: t.Mapping[str, t.Any]) -> list[FieldError]:
    """NNCPs whose interfaces are not all ``state: absent``: deleting them would leave the bridges on the nodes."""
    errors = []
    for obj in networking.get("objects") or []:
        if obj.get("kind") != "NodeNetworkConfigurationPolicy":
            continue
        interfaces = ((obj.get("spec") or {}).get("desiredState") or {}).get("interfaces") or []
        up = [str(i.get("name")) for i in interfaces if isinstance(i, dict) and i.get("state", "up") != "absent"]
        if up:
            errors.append(FieldError(
                "networking", f"policy {obj['metadata']['name']} still configures {', '.join(up)}: nmstate never "
                              "reverts a deleted policy, so deleting it would leave them on the nodes; set the "
                              "bridge's state to absent and apply first, then delete", "input"))
    return errors


def with_namespaces(objects: t.Sequence[t.Mapping[str, t.Any]],
                    extra: t.Iterable[str] = ()) -> list[dict[str, t.Any]]:
    """Namespace objects for every namespace the objects live in (and ``extra``) that they do not declare, first,
    then the objects."""
    declared = {o["metadata"]["name"] for o in objects if o.get("kind") == "Namespace"}
    used = {o["metadata"]["namespace"] for o in objects if o.get("metadata", {}).get("namespace")}
    needed = sorted((used | {n for n in extra if n}) - declared)
    namespaces = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in needed]
    return namespaces + [copy.deepcopy(dict(o)) for o in objects]


def _merge(target: dict[str, t.Any], patch: t.Mapping[str, t.Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
