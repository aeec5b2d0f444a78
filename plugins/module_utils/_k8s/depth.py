# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How deeply nested a document may be, and the room an apply needs to carry one. PRIVATE; no Ansible imports.

kubectl reads YAML nested up to 10,000 levels (sigs.k8s.io/yaml's goyaml.v2, scannerc.go: max_flow_level and
max_indents) and the API server's JSON up to 10,000 (Go's encoding/json, maxNestingDepth). Here every stage of an
apply walks a document recursively (reading, diffing, fingerprinting, the JSON the request carries and the answer),
and Python's json module recurses in C, under a cap of C frames that no recursion limit raises: CPython 3.13 stops
just short of 10,000 levels, 3.12 near 1,500 (Include/cpython/pystate.h, C_RECURSION_LIMIT); 3.11 has no such cap.
So a document is carried up to MAX_DEPTH levels, with the recursion limit raised for the call (deep_documents); a
deeper one is refused before it is parsed (the parser recurses in C too), naming its file.
"""

from __future__ import annotations

import re
import sys
import typing as t

from .process_setting import ProcessSetting

MAX_DEPTH = 1000 if sys.version_info[:2] == (3, 12) else 9000
# libyaml from 0.2.5 (PyYAML 6.0.4's) stops at 1,000 levels ("exceeded maximum nesting depth"); PyYAML's own Python
# parser has no such cap, so a document that may be deeper is read with it.
LIBYAML_DEPTH = 1000
# How deep a value a task's result shows: Ansible's own handling of the result (pickling it from the worker, the
# callbacks' JSON) runs under the default recursion limit, so a deeper value is summarized.
SHOWN_DEPTH = 100
# Python frames one level of nesting may take in the deepest recursive walk of an apply (a walk, a comprehension
# inside it, a call it makes per member), and the frames of everything around the walk.
_FRAMES_PER_LEVEL = 6
_AROUND = 2000


def _raise() -> int:
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, MAX_DEPTH * _FRAMES_PER_LEVEL + _AROUND))
    return before


# The recursion limit raised, while a block runs, to what MAX_DEPTH levels need (process_setting.py: shared by
# overlapping calls).
deep_documents = ProcessSetting(_raise, sys.setrecursionlimit).held


def flow_depth(text: str) -> int:
    """The deepest nesting of flow collections (``[`` and ``{``, YAML's and JSON's) outside quoted text and comments:
    measured before parsing, so a document too deep for the parser is refused before the parser recurses into it. A
    bracket in a plain or block scalar counts too: the measure is never below the document's own depth. Only the
    characters that matter are visited."""
    deepest = depth = 0
    quote = ""
    comment = False
    skip = -1   # the position an escape hides
    for match in _SPECIAL.finditer(text):
        position, char = match.start(), match.group()
        previous = text[position - 1] if position else "\n"
        if position == skip:
            continue
        if comment:
            comment = char != "\n"
        elif quote:
            if char == "\\" and quote == '"':
                skip = position + 1
            elif char == quote:
                quote = ""
        elif char in "\"'" and (previous in " \t\n[{,:" or (depth == 0 and previous == "-")):
            quote = char
        elif char == "#" and previous in " \t\n":
            comment = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest


_SPECIAL = re.compile(r"[\[\]{}\"'#\\\n]")


def depth_of(value: t.Any) -> int:
    """How deeply a parsed document nests its lists and mappings (a scalar: 0), walked without recursion."""
    deepest = 0
    stack: list[tuple[t.Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            members: t.Iterable[t.Any] = item.values()
        elif isinstance(item, list):
            members = item
        else:
            continue
        deepest = max(deepest, level + 1)
        stack.extend((member, level + 1) for member in members)
    return deepest


def shown(value: t.Any, levels: int = SHOWN_DEPTH) -> t.Any:
    """``value`` as a task's result shows it: lists and mappings past ``levels`` replaced by a note of their depth."""
    if not isinstance(value, (dict, list)):
        return value
    if levels == 0:
        return f"(nested {depth_of(value)} more levels: not shown)"
    if isinstance(value, dict):
        return {key: shown(item, levels - 1) for key, item in value.items()}
    return [shown(item, levels - 1) for item in value]
