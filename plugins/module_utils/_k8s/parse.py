# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The first stage: input objects into items, with every local problem named by what the user wrote. No request.

PRIVATE.
"""

from __future__ import annotations

import typing as t

from .model import Desired, Problem
from .secrets import fold_string_data, is_secret

SERVER_FIELDS = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation")


def origin(origins: t.Sequence[str | None] | None, index: int) -> str:
    """How the user names input object ``index``: its file and document for src, else objects[i]."""
    return (origins[index] if origins and index < len(origins) else None) or f"objects[{index}]"


def parse(objects: t.Sequence[t.Any], origins: t.Sequence[str | None] | None = None
          ) -> tuple[list[Desired], list[Problem]]:
    """Items in dependency order (then input order), and the problems of the objects that could not become one."""
    items: list[Desired] = []
    problems: list[Problem] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for index, obj in enumerate(objects):
        where = origin(origins, index)
        if not isinstance(obj, dict):
            problems.append(Problem(object=where, index=index, path="", message="must be a mapping"))
            continue
        missing = [field for field in ("apiVersion", "kind") if not isinstance(obj.get(field), str) or not obj.get(field)]
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str) or not metadata["name"]:
            missing.append("metadata.name")
        if missing:
            problems += [Problem(object=where, index=index, path=field, message="required value") for field in missing]
            continue
        # The top level and metadata are copied, as parse changes them; what lies below is shared with the caller's
        # object: no stage changes a desired object in place (each makes a new one), and a deep copy of thousands
        # of objects cost a tenth of a no-op run.
        desired: dict[str, t.Any] = {**obj, "metadata": dict(obj["metadata"])}
        desired.pop("status", None)
        if is_secret(desired):
            if isinstance(desired.get("data"), dict):
                desired["data"] = dict(desired["data"])   # stringData is folded into it
            problem = fold_string_data(desired)
            if problem:
                problems.append(Problem(object=where, index=index, path=problem[0], message=problem[1]))
                continue
        for field in SERVER_FIELDS:
            desired["metadata"].pop(field, None)
        item = Desired(index, desired, obj["apiVersion"], obj["kind"], desired["metadata"]["name"],
                       desired["metadata"].get("namespace"))
        if item.key in seen:
            problems.append(item.error("metadata.name", f"duplicate of {origin(origins, seen[item.key])}"))
        seen[item.key] = index
        items.append(item)
    items.sort(key=lambda i: (i.rank, i.index))
    return items, problems
