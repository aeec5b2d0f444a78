# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A mapping emptied by the configuration (``spec.infra: {}`` where the object has ``infra: {nodeSelector: ...}``).

Server-side apply of the empty mapping removes the children this manager owned and leaves the field null, which a
structural schema of ``type: object`` refuses (``spec.infra in body must be of type object: "null"``); plain
``kubectl apply --server-side`` fails the same way. HCO itself clears placement with an update of the whole spec
(hyperconverged-cluster-operator, pkg/controller/operands, each handler's update of Spec), which this apply cannot
send without taking fields it does not own. So such an object is applied in two steps: without the emptied
mappings (the children go, and the field with them), then with them (an empty mapping where there is none is
accepted, as on create). A dry run sends the first step and predicts the second. PRIVATE.
"""

from __future__ import annotations

import copy
import typing as t


def emptied_paths(desired: t.Any, live: t.Any, at: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Paths where ``desired`` holds ``{}`` and ``live`` a mapping that is not empty."""
    if not isinstance(desired, dict) or not isinstance(live, dict):
        return []
    found: list[tuple[str, ...]] = []
    for key, value in desired.items():
        if key == "metadata" and not at:
            continue
        if value == {} and isinstance(live.get(key), dict) and live[key]:
            found.append((*at, key))
        else:
            found += emptied_paths(value, live.get(key), (*at, key))
    return found


def _parent(tree: dict[str, t.Any], path: tuple[str, ...]) -> dict[str, t.Any]:
    for key in path[:-1]:
        tree = tree.setdefault(key, {})
    return tree


def without(body: dict[str, t.Any], paths: t.Sequence[tuple[str, ...]]) -> dict[str, t.Any]:
    """``body`` without the mappings at ``paths`` (a copy)."""
    trimmed = copy.deepcopy(body)
    for path in paths:
        _parent(trimmed, path).pop(path[-1], None)
    return trimmed


def with_empty(result: dict[str, t.Any], paths: t.Sequence[tuple[str, ...]]) -> dict[str, t.Any]:
    """What the second step makes of ``result``: an empty mapping at each of ``paths``."""
    completed = copy.deepcopy(result)
    for path in paths:
        _parent(completed, path).setdefault(path[-1], {})
    return completed
