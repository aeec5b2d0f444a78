# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Go's JSON decoding into a typed struct, for every place HCO copies, converts or decodes one. PRIVATE.

Python dicts cannot tell what Go can: a struct field the type does not have (dropped on decode), a nil pointer from a
pointer to an empty struct (``affinity: {}`` is set; ``affinity: null`` or absent is not), and an ``omitempty`` map or
slice that is empty (dropped on encode). :func:`decode` round-trips a value through the Go type the way
``json.Unmarshal`` then ``json.Marshal`` would; :func:`decode_over` is ``json.Unmarshal`` over an existing value
(HCO's jsonpatch step). The types come from ``go_types_data`` (generated from HCO's CRDs).

Two things a CRD schema does not say and this module therefore does not do: whether a scalar field is a pointer
(``omitempty`` drops ``false``/``0``/``""`` only from non-pointers), so scalars are kept as given; and whether a struct
field is a value rather than a pointer (a value struct is always encoded, as ``{}`` when empty): the builders that
copy into such a field (CDI ``spec.infra``, CNAO ``placementConfiguration.*.affinity``) say so themselves.
"""

from __future__ import annotations

import copy
import typing as t

from .._common.errors import Refused
from .go_types_data import ROOTS, SHAPES

_MISSING = object()


class GoDecodeError(Refused):
    """A JSON value that cannot be decoded into the Go type at ``path`` (json: cannot unmarshal ...)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"json: cannot unmarshal {message} at {path or '/'}")
        self.path = path


def root(name: str) -> int:
    """The shape index of a named Go type (``KubeVirt`` spec, ``NodePlacement``, ...)."""
    return ROOTS[name]


def field(shape: int, *names: str) -> int:
    """The shape of a struct field, following ``names`` through nested structs (lists and maps: their items)."""
    for name in names:
        node = SHAPES[shape]
        while node[0] in ("l", "m"):
            shape = node[1]
            node = SHAPES[shape]
        if node[0] != "o":
            raise KeyError(name)
        shape = next(child for key, child, _required in node[1] if key == name)
    return shape


def _kind(value: t.Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "number"


def decode(value: t.Any, shape: int, path: str = "") -> t.Any:
    """``value`` as Go encodes it after decoding it into the type: None for a nil pointer, map or slice."""
    if value is None:
        return None
    node = SHAPES[shape]
    tag = node[0]
    if tag == "o":
        if not isinstance(value, dict):
            raise GoDecodeError(path, f"{_kind(value)} into a struct")
        result: dict[str, t.Any] = {}
        for name, child, required in node[1]:
            if name not in value:
                continue
            item = decode(value[name], child, f"{path}.{name}")
            if item is None or (not required and not item and SHAPES[child][0] in ("l", "m")):
                continue  # nil, or an empty omitempty map or slice
            result[name] = item
        if node[2]:  # x-kubernetes-preserve-unknown-fields
            known = {name for name, _child, _required in node[1]}
            result.update((k, copy.deepcopy(v)) for k, v in value.items() if k not in known)
        return result
    if tag == "m":
        if not isinstance(value, dict):
            raise GoDecodeError(path, f"{_kind(value)} into a map")
        return {key: decode(item, node[1], f"{path}[{key}]") for key, item in value.items()}
    if tag == "l":
        if not isinstance(value, list):
            raise GoDecodeError(path, f"{_kind(value)} into a slice")
        return [decode(item, node[1], f"{path}[{index}]") for index, item in enumerate(value)]
    if tag == "s" and isinstance(value, (dict, list)):
        raise GoDecodeError(path, f"{_kind(value)} into a scalar")
    return copy.deepcopy(value)


def decode_over(old: t.Any, new: t.Any, shape: int, path: str = "") -> t.Any:
    """``json.Unmarshal(new, &old)``: merge into the existing value; keys the type lacks are ignored.

    Object keys missing from ``new`` keep the old value, maps gain keys but never lose them, lists take the new length
    with each element decoded over the old one at its index, and ``null`` clears only pointers, maps and lists
    (returned as None).
    """
    node = SHAPES[shape]
    tag = node[0]
    if new is None:
        return None if isinstance(old, (dict, list)) or old is None else old
    if old is None:
        return decode(new, shape, path) if tag != "x" else copy.deepcopy(new)
    if tag == "x":
        return copy.deepcopy(new)
    if tag in ("o", "m"):
        if not isinstance(new, dict):
            raise GoDecodeError(path, f"{_kind(new)} into an object")
        result = dict(old)
        known = {name: (child, required) for name, child, required in node[1]} if tag == "o" else None
        for key, value in new.items():
            if known is not None and key not in known:
                if node[2]:
                    result[key] = copy.deepcopy(value)
                continue
            child, required = known[key] if known is not None else (node[1], True)
            previous = old.get(key)
            # A scalar field over a scalar of the same type is the new value (the recursion's last branch); taken
            # here, it spares a call and a path per leaf of a patched operand's whole spec.
            if SHAPES[child][0] == "s" and type(value) is type(previous) and value is not None \
                    and not isinstance(value, (dict, list)):
                result[key] = value
                continue
            merged = decode_over(previous, value, child, f"{path}.{key}")
            if merged is None or (not required and not merged and SHAPES[child][0] in ("l", "m")):
                result.pop(key, None)  # nil, or an empty omitempty map or slice
            else:
                result[key] = merged
        return result
    if tag == "l":
        if not isinstance(new, list):
            raise GoDecodeError(path, f"{_kind(new)} into a slice")
        items = []
        scalars = SHAPES[node[1]][0] == "s"
        for index, value in enumerate(new):
            previous = old[index] if index < len(old) else None
            if scalars and type(value) is type(previous) and value is not None and not isinstance(value, (dict, list)):
                items.append(value)   # as for a struct's scalar field above
                continue
            merged = decode_over(previous, value, node[1], f"{path}[{index}]")
            if merged is not None:
                items.append(merged)
        return items
    if isinstance(new, (dict, list)) or (not isinstance(old, (dict, list)) and _kind(old) != _kind(new)):
        raise GoDecodeError(path, f"{_kind(new)} into the {_kind(old)} field")
    return new
