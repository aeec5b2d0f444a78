# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Field-level comparison of Kubernetes objects: stripping server bookkeeping, diffs, managedFields ownership.

Paths are dotted with list indexes (``spec.template.spec.containers[0].image``); where lists are compared as a
whole the path names the list.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import hashlib
import json
import typing as t

# t.Union, not str | int: ansible-test sanity's pylint reads | in a module-level alias as an unsupported operation.
Path = tuple[t.Union[str, int], ...]  # noqa: UP007
FINGERPRINT_ANNOTATION = "hyperconverged.virtinfra.io/desired-hash"
SERVER_METADATA = ("managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink")


def strip(obj: t.Mapping[str, t.Any] | None) -> dict[str, t.Any]:
    """The object without status and the metadata the server maintains (what a diff should show). A view: it
    shares the object's values (copying them cost about a tenth of the applier's CPU per object), so it is read,
    never changed; every caller diffs it or returns it."""
    if not obj:
        return {}
    result: dict[str, t.Any] = {}
    for key, value in obj.items():
        if key == "metadata":
            result[key] = _stripped_metadata(value or {})
        elif key != "status":
            result[key] = value
    result.setdefault("metadata", {})
    return result


def _stripped_metadata(metadata: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    kept = {k: v for k, v in metadata.items() if k not in SERVER_METADATA}
    annotations = {k: v for k, v in (kept.get("annotations") or {}).items() if k != FINGERPRINT_ANNOTATION}
    if annotations:
        kept["annotations"] = annotations
    else:
        kept.pop("annotations", None)
    return kept


def render_path(path: Path) -> str:
    """``spec.containers[0].image``; an associative-list item named by its keys renders as ``containers[name=app]``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part.startswith("["):
            text += part
        else:
            text += f".{part}" if text else part
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
    # Loops, not all() over generators (ruff's SIM110): a no-op asks this of every object, and a generator per
    # level costs more than the comparison. A string, the usual leaf, is compared in place (== is what _equal does).
    if isinstance(desired, dict):
        if not isinstance(live, dict):
            return False
        for key, value in desired.items():
            if key not in live:
                return False
            if value.__class__ is str:
                if value != live[key]:
                    return False
            elif not contained(value, live[key]):
                return False
        return True
    if isinstance(desired, list):
        if not isinstance(live, list) or len(desired) != len(live):
            return False
        for wanted, found in zip(desired, live):  # noqa: SIM110
            if not contained(wanted, found):
                return False
        return True
    return _equal(desired, live)


def fieldset_within(fields: t.Mapping[str, t.Any], obj: t.Any, top: bool = True) -> bool:
    """Whether every leaf path of a managedFields ``fieldsV1`` set (as fieldset_paths reads it) is a map path of
    ``obj``: a key of a map reached through maps. Walked together, without building either set of paths (a no-op
    asks this of every object)."""
    for key, child in fields.items():
        if key == ".":
            continue
        if not key.startswith("f:"):
            if top:
                return False   # a list member at the top: its path would be the object itself
            continue           # a list member: the list is the leaf, and its path was checked a level up
        name = key[2:]
        if not isinstance(obj, dict) or name not in obj:
            return False
        # A child without f: keys (empty, ".", list members) is a leaf: the walk below returns True at once.
        if child and not fieldset_within(child, obj[name], top=False):
            return False
    return True


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


def main_resource_entries(obj: t.Mapping[str, t.Any]) -> list[dict[str, t.Any]]:
    """The object's managedFields entries for its main resource (a status subresource's entries are not fields of
    the object a client applies)."""
    return [entry for entry in (obj.get("metadata") or {}).get("managedFields") or [] if not entry.get("subresource")]


def ownership(live: t.Mapping[str, t.Any]) -> dict[str, set[Path]]:
    """manager name -> leaf paths it owns (status subresource entries are ignored)."""
    owners: dict[str, set[Path]] = {}
    for entry in main_resource_entries(live):
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


# json.dumps with options makes an encoder per call: one, made once, writes the same text.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str)


def fingerprint(obj: t.Mapping[str, t.Any]) -> str:
    """Stable short hash of the desired object, stored on the object to tell input changes from drift."""
    text = _CANONICAL.encode(obj)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def manager_fieldsets(live: t.Mapping[str, t.Any]) -> dict[str, dict[str, t.Any]]:
    """manager name -> its ``fieldsV1`` trees merged (main resource only; status subresource entries ignored)."""
    trees: dict[str, dict[str, t.Any]] = {}
    for entry in main_resource_entries(live):
        _merge_fieldset(trees.setdefault(entry.get("manager", ""), {}), entry.get("fieldsV1") or {})
    return trees


def _merge_fieldset(into: dict[str, t.Any], other: t.Mapping[str, t.Any]) -> None:
    for key, child in other.items():
        _merge_fieldset(into.setdefault(key, {}), child or {})


def _owns_whole(node: t.Mapping[str, t.Any]) -> bool:
    """A fieldsV1 node with no members below it: the manager owns the value as a whole (a scalar, a map or list
    set in one piece, an atomic list)."""
    return not any(key != "." for key in node)


def _item_key(member: str) -> dict[str, t.Any] | None:
    """``k:{"name":"app"}`` -> {"name": "app"} (an associative-list item's keys)."""
    if not member.startswith("k:"):
        return None
    try:
        keys = json.loads(member[2:])
    except json.JSONDecodeError:
        return None
    return keys if isinstance(keys, dict) else None


def _find_item(items: t.Any, keys: t.Mapping[str, t.Any]) -> t.Any:
    if not isinstance(items, list):
        return None
    return next((i for i in items if isinstance(i, dict) and all(_equal(i.get(k), v) for k, v in keys.items())), None)


def without_foreign(desired: dict[str, t.Any], live: t.Mapping[str, t.Any],
                    manager: str) -> tuple[dict[str, t.Any], list[dict[str, t.Any]]]:
    """What to apply so that nothing another field manager set is changed: ``desired`` without the fields whose
    live value differs and which another manager owns, at any depth.

    The rule is the server's own, read from the managedFields: a map member is ``f:name``; an item of an
    associative list is ``k:{keys}`` (kept with its keys, only the foreign fields inside it left out); a set item
    is ``v:value``; a member with nothing below it (an atomic list, a scalar, a map set whole) is one unit.
    Fields we own stay in the configuration, so applying it never removes one of ours as a side effect.
    Returns the configuration and the changes left to the other managers (``drift``), each naming them.
    """
    trees = manager_fieldsets(live)
    trees.pop(manager, None)
    foreign: dict[str, t.Any] = {}
    for tree in trees.values():
        _merge_fieldset(foreign, tree)
    kept: list[dict[str, t.Any]] = []
    body = _without_foreign_map(desired, live, foreign, (), (), trees, kept)
    return body, kept


def _managers_at(trees: t.Mapping[str, t.Mapping[str, t.Any]], members: tuple[str, ...]) -> list[str]:
    found = []
    for name, tree in trees.items():
        node: t.Any = tree
        for member in members:
            node = node.get(member) if isinstance(node, dict) else None
            if node is None:
                break
        if node is not None:
            found.append(name)
    return sorted(found)


def _without_foreign_map(desired: t.Mapping[str, t.Any], live: t.Any, foreign: t.Mapping[str, t.Any],
                         path: Path, members: tuple[str, ...], trees: t.Mapping[str, t.Mapping[str, t.Any]],
                         kept: list[dict[str, t.Any]]) -> dict[str, t.Any]:
    out: dict[str, t.Any] = {}
    live_map = live if isinstance(live, dict) else {}
    for key, value in desired.items():
        member = f"f:{key}"
        node = foreign.get(member)
        live_value = live_map.get(key)
        if node is None or (key in live_map and _same(value, live_value)):
            out[key] = value        # nobody else owns it, or applying it changes nothing
            continue
        if _owns_whole(node) or not isinstance(value, (dict, list)):
            if key in live_map:
                kept.append({**_change((*path, key), "change", live_value, value),
                             "managers": _managers_at(trees, (*members, member))})
                continue
            out[key] = value        # another manager owns a parent only; the field itself is new
            continue
        if isinstance(value, dict):
            out[key] = _without_foreign_map(value, live_value, node, (*path, key), (*members, member), trees, kept)
        else:
            out[key] = _without_foreign_list(value, live_value, node, (*path, key), (*members, member), trees, kept)
    return out


def _without_foreign_list(desired: list[t.Any], live: t.Any, foreign: t.Mapping[str, t.Any], path: Path,
                          members: tuple[str, ...], trees: t.Mapping[str, t.Mapping[str, t.Any]],
                          kept: list[dict[str, t.Any]]) -> list[t.Any]:
    keyed = [(member, keys) for member in foreign if (keys := _item_key(member)) is not None]
    out = []
    for index, item in enumerate(desired):
        match = next(((m, k) for m, k in keyed if isinstance(item, dict)
                      and all(_equal(item.get(name), v) for name, v in k.items())), None)
        if match is None:
            out.append(item)        # an item only we own (or a set member: equal by definition)
            continue
        member, keys = match
        live_item = _find_item(live, keys)
        if live_item is None:
            out.append(item)
            continue
        label = ",".join(f"{k}={v}" for k, v in keys.items())
        reduced = _without_foreign_map(item, live_item, foreign[member], (*path, f"[{label}]" if label else index),
                                       (*members, member), trees, kept)
        reduced.update({name: item[name] for name in keys})   # an item is named by its keys: always keep them
        out.append(reduced)
    return out


def _same(left: t.Any, right: t.Any) -> bool:
    return contained(left, right) and contained(right, left)


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
