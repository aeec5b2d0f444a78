# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Field-level comparison of Kubernetes objects: stripping server bookkeeping, diffs, managedFields ownership.

Paths are dotted with list indexes (``spec.template.spec.containers[0].image``); where lists are compared as a
whole the path names the list.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import copy
import hashlib
import json
import typing as t

Path = tuple[t.Union[str, int], ...]
FINGERPRINT_ANNOTATION = "hyperconverged.virtinfra.io/desired-hash"
SERVER_METADATA = ("managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink")


def strip(obj: t.Mapping[str, t.Any] | None) -> dict[str, t.Any]:
    """The object without status and the metadata the server maintains (what a diff should show)."""
    if not obj:
        return {}
    result = {k: copy.deepcopy(v) for k, v in obj.items() if k != "status"}
    metadata = {k: v for k, v in (result.get("metadata") or {}).items() if k not in SERVER_METADATA}
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k != FINGERPRINT_ANNOTATION}
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)
    result["metadata"] = metadata
    return result


def render_path(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def diff(before: t.Any, after: t.Any, path: Path = ()) -> list[dict[str, t.Any]]:
    """Leaf changes from ``before`` to ``after``: [{path, op: add|remove|change, before, after}]."""
    if isinstance(before, dict) and isinstance(after, dict):
        changes: list[dict[str, t.Any]] = []
        for key in sorted(set(before) | set(after), key=str):
            if key not in after:
                changes += _leaves((*path, key), "remove", before[key])
            elif key not in before:
                changes += _leaves((*path, key), "add", after[key])
            else:
                changes += diff(before[key], after[key], (*path, key))
        return changes
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        changes = []
        for index, (old, new) in enumerate(zip(before, after)):
            changes += diff(old, new, (*path, index))
        return changes
    if _equal(before, after):
        return []
    return [_change(path, "change", before, after)]


def _leaves(path: Path, op: str, value: t.Any) -> list[dict[str, t.Any]]:
    """An added or removed map, one change per leaf (lists stay whole)."""
    if isinstance(value, dict) and value:
        found: list[dict[str, t.Any]] = []
        for key in sorted(value, key=str):
            found += _leaves((*path, key), op, value[key])
        return found
    return [_change(path, op, None if op == "add" else value, value if op == "add" else None)]


def _change(path: Path, op: str, before: t.Any, after: t.Any) -> dict[str, t.Any]:
    return {"path": render_path(path), "op": op, "before": before, "after": after, "_path": path}


def _equal(left: t.Any, right: t.Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    return bool(left == right)


def contained(desired: t.Any, live: t.Any) -> bool:
    """Whether every value in ``desired`` is present and equal in ``live`` (live may hold more keys)."""
    if isinstance(desired, dict):
        return isinstance(live, dict) and all(k in live and contained(v, live[k]) for k, v in desired.items())
    if isinstance(desired, list):
        return (isinstance(live, list) and len(desired) == len(live)
                and all(contained(d, v) for d, v in zip(desired, live)))
    return _equal(desired, live)


def dict_paths(obj: t.Any, prefix: Path = ()) -> set[Path]:
    """Every map path of ``obj`` (intermediate ones too); a list ends its path."""
    paths: set[Path] = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            paths.add((*prefix, key))
            if isinstance(value, dict):
                paths |= dict_paths(value, (*prefix, key))
    return paths


def fieldset_paths(fields: t.Mapping[str, t.Any], prefix: Path = ()) -> set[Path]:
    """Leaf map paths of a managedFields ``fieldsV1`` set; a list (k:/v:/i: members) ends its path."""
    paths: set[Path] = set()
    for key, child in fields.items():
        if key == ".":
            continue
        if key.startswith("f:"):
            path = (*prefix, key[2:])
            if child and any(k.startswith("f:") for k in child):
                paths |= fieldset_paths(child, path)
            else:
                paths.add(path)
        else:  # list member: the list itself is the unit
            paths.add(prefix)
    return paths


def ownership(live: t.Mapping[str, t.Any]) -> dict[str, set[Path]]:
    """manager name -> leaf paths it owns (status subresource entries are ignored)."""
    owners: dict[str, set[Path]] = {}
    for entry in (live.get("metadata") or {}).get("managedFields") or []:
        if entry.get("subresource"):
            continue
        owners.setdefault(entry.get("manager", ""), set()).update(fieldset_paths(entry.get("fieldsV1") or {}))
    return owners


def owns(paths: t.Iterable[Path], path: Path) -> bool:
    """Whether a set of owned leaf paths covers ``path`` (the path, a parent of it, or a child of it)."""
    keyed = tuple(p for p in path if not isinstance(p, int))
    for owned in paths:
        n = min(len(owned), len(keyed))
        if owned[:n] == keyed[:n]:
            return True
    return False


def fingerprint(obj: t.Mapping[str, t.Any]) -> str:
    """Stable short hash of the desired object, stored on the object to tell input changes from drift."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def remove_paths(obj: dict[str, t.Any], paths: t.Iterable[Path]) -> dict[str, t.Any]:
    """A copy of ``obj`` without the given paths (cut at the first list index)."""
    result = copy.deepcopy(obj)
    for path in paths:
        keyed: list[str | int] = []
        for part in path:
            if isinstance(part, int):
                break
            keyed.append(part)
        node: t.Any = result
        for part in keyed[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and keyed:
            node.pop(keyed[-1], None)
    return result


def public(changes: t.Iterable[dict[str, t.Any]]) -> list[dict[str, t.Any]]:
    return [{k: v for k, v in change.items() if not k.startswith("_")} for change in changes]


def mismatches(desired: t.Any, live: t.Any, path: Path = ()) -> list[dict[str, t.Any]]:
    """Fields of ``desired`` whose live value differs (read-only comparison; live may hold more keys)."""
    if isinstance(desired, dict) and isinstance(live, dict):
        found: list[dict[str, t.Any]] = []
        for key, value in desired.items():
            if key not in live:
                found.append(_change((*path, key), "add", None, value))
            else:
                found += mismatches(value, live[key], (*path, key))
        return found
    if contained(desired, live):
        return []
    return [_change(path, "change", live, desired)]
