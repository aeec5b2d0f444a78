# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render mode's output directory: one YAML file per object (in the directory or one folder of it), and an index of
the files this collection wrote.

Only files named in the index are ever replaced or removed; a file someone else put there is left alone, and a
desired file whose name is taken by such a file is refused before anything is written. PRIVATE; controller side (PyYAML), no Ansible imports.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pathlib
import re
import tempfile
import typing as t

import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import Refused
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.names import COLLECTION
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops import KUSTOMIZATION
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops import kustomization as kustomization_of

INDEX_NAME = ".virtinfra-rendered.json"
INDEX_OWNER = COLLECTION


class _Dumper(yaml.SafeDumper):
    """Block style with list items indented under their key (the layout kubectl and to_nice_yaml produce)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _multiline_as_block(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not value.startswith(" ") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _multiline_as_block)


def to_yaml(obj: t.Any) -> str:
    """The one serialisation of an object: stable key order, so the bytes depend on nothing but the object."""
    return yaml.dump(obj, Dumper=_Dumper, indent=2, sort_keys=True, default_flow_style=False, allow_unicode=True,
                     width=120)


def file_name(obj: t.Mapping[str, t.Any]) -> str:
    """kind-namespace-name.yaml, with "cluster" for cluster-scoped objects."""
    metadata = obj.get("metadata") or {}
    return f"{str(obj.get('kind', '')).lower()}-{metadata.get('namespace') or 'cluster'}-{metadata.get('name')}.yaml"


@dataclasses.dataclass
class Plan:
    directory: pathlib.Path
    contents: dict[str, str]
    write: list[str]
    unchanged: list[str]
    remove: list[str]
    errors: list[str]
    index_changed: bool

    @property
    def changed(self) -> bool:
        return bool(self.write or self.remove or self.index_changed)


# One name in a path: it starts with a letter or digit, so it is never "." or "..".
_SEGMENT = r"[A-Za-z0-9][A-Za-z0-9._-]*"
FOLDER = re.compile(rf"^{_SEGMENT}\Z")
# A file this collection writes: in the directory, or in one folder of it (the stages layout).
_OWNED_NAME = re.compile(rf"^(?:{_SEGMENT}/)?{_SEGMENT}\.yaml\Z")


def _read_index(directory: pathlib.Path) -> tuple[set[str], list[str]]:
    path = directory / INDEX_NAME
    if not path.exists():
        return set(), []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = data["files"]
        if data.get("written_by") != INDEX_OWNER or not all(isinstance(f, str) for f in files):
            raise Refused("not an index written by this collection")
    except (Refused, json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
        return set(), [f"{path}: unreadable index ({exc}); move it away or choose another directory"]
    # A name that could reach outside the directory (an absolute path, "..") does not match: never trusted.
    return {f for f in files if _OWNED_NAME.match(f)}, []


def _contents(objects: t.Sequence[t.Mapping[str, t.Any]], folders: t.Sequence[str], kustomization: bool,
              kustomized: t.Sequence[str], errors: list[str]) -> dict[str, str]:
    """Each file's text by its path in the directory (``folder/name`` in a folder); the kustomizations."""
    contents: dict[str, str] = {}
    first_of: dict[str, str] = {}
    for position, obj in enumerate(objects):
        folder = folders[position] if position < len(folders) else ""
        name = f"{folder}/{file_name(obj)}" if folder else file_name(obj)
        metadata = obj.get("metadata") or {}
        identity = f"{obj.get('apiVersion')} {obj.get('kind')} {metadata.get('namespace') or ''}/{metadata.get('name')}"
        if name in contents:
            errors.append(f"objects[{position}] ({identity}) would be written to {name}, like {first_of[name]}: "
                          "two objects with the same kind, namespace and name")
            continue
        first_of[name] = f"objects[{position}]"
        contents[name] = to_yaml(obj)
    if kustomization:
        by_folder: dict[str, list[str]] = {folder: [] for folder in kustomized}
        for name in list(contents):
            folder, _slash, base = name.rpartition("/")
            by_folder.setdefault(folder, []).append(base)
        root = by_folder.pop("", [])
        for folder, names in by_folder.items():
            contents[f"{folder}/{KUSTOMIZATION}"] = to_yaml(kustomization_of(names))
        contents[KUSTOMIZATION] = to_yaml(kustomization_of([*root, *by_folder]))
    return contents


def plan(directory: str | os.PathLike[str], objects: t.Sequence[t.Mapping[str, t.Any]], prune: bool = True,
         kustomization: bool = False, folders: t.Sequence[str] = (), kustomized: t.Sequence[str] = ()) -> Plan:
    """What a write would do, and every reason to refuse it. Reads only. ``folders``: the subfolder of each object's
    file ("" or none: the directory). ``kustomization``: also a kustomization.yaml in the directory listing its files
    and folders, and one in each folder (and in each of ``kustomized``, even with no file)."""
    root = pathlib.Path(directory)
    errors: list[str] = []
    if folders and len(folders) != len(objects):
        errors.append(f"folders: {len(folders)} given for {len(objects)} objects; give one per object")
    for option, names in (("folders", folders), ("kustomized", kustomized)):
        errors += [f"{option}[{position}]: {folder!r} is not one folder name (letters, digits, '.', '_', '-')"
                   for position, folder in enumerate(names) if folder and not FOLDER.match(folder)]
    if errors:
        return Plan(root, {}, [], [], [], errors, False)
    contents = _contents(objects, folders, kustomization, kustomized, errors)
    if root.exists() and not root.is_dir():
        errors.append(f"{root} exists and is not a directory")
        return Plan(root, contents, [], [], [], errors, False)
    for folder in sorted({name.rpartition("/")[0] for name in contents} - {""}):
        path = root / folder
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            errors.append(f"{path} is not a directory: nothing is written into it")
    owned, index_errors = _read_index(root) if root.is_dir() else (set(), [])
    errors += index_errors
    write: list[str] = []
    unchanged: list[str] = []
    for name, text in contents.items():
        path = root / name
        if path.is_symlink() or (path.exists() and not path.is_file()):
            errors.append(f"{path} is not a regular file: not replaced")
        elif not path.exists():
            write.append(name)
        elif path.read_bytes() == text.encode("utf-8"):
            unchanged.append(name)
        elif name in owned:
            write.append(name)
        else:
            errors.append(f"{path} exists and was not written by this collection (it is not in {INDEX_NAME}): "
                          "not overwritten; move it away or choose another directory")
    remove = sorted(name for name in owned - contents.keys()
                    if prune and (root / name).is_file() and not (root / name).is_symlink()
                    and not (root / name).parent.is_symlink())
    kept = sorted(owned - contents.keys() - set(remove))  # still ours: stays in the index until removed
    index_changed = sorted(owned) != sorted([*contents, *kept])
    return Plan(root, contents, sorted(write), sorted(unchanged), remove, errors, index_changed)


def _atomic_write(path: pathlib.Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def apply(written: Plan) -> None:
    """Carry out a plan without errors: the files, then the removals, then the index."""
    if written.errors:
        raise Refused("refusing to write: " + "; ".join(written.errors))
    written.directory.mkdir(parents=True, exist_ok=True)
    for name in written.write:
        (written.directory / name).parent.mkdir(exist_ok=True)
        _atomic_write(written.directory / name, written.contents[name])
    for name in written.remove:
        (written.directory / name).unlink()
    for folder in sorted({name.rpartition("/")[0] for name in written.remove} - {""}):
        with contextlib.suppress(OSError):   # rmdir removes only a folder with nothing else left in it
            (written.directory / folder).rmdir()
    owned = _read_index(written.directory)[0]
    files = sorted({*written.contents, *(owned - written.contents.keys() - set(written.remove))})
    index = json.dumps({"written_by": INDEX_OWNER, "files": files}, indent=2) + "\n"
    path = written.directory / INDEX_NAME
    if not path.is_file() or path.read_text(encoding="utf-8") != index:   # nothing rewritten when nothing changed
        _atomic_write(path, index)
