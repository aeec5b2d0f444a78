# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""YAML read into the JSON values kubectl makes of it. PRIVATE.

``kubectl apply -f`` turns YAML into JSON with sigs.k8s.io/yaml (v1.4.0, yaml.go, ``YAMLToJSON`` and
``convertToJSONableObject``) over its fork of go-yaml v2 (goyaml.v2/resolve.go, ``resolve``). Its plain scalars are
not PyYAML's YAML 1.1: ``y``/``n`` are booleans, ``1:30`` and dates stay strings, ``017`` and ``0o17`` are octal,
``1e3`` and ``08`` are numbers, ``1e400`` is a string; keys become strings the way Go prints them; ``.inf``/``.nan``
cannot become JSON, so kubectl refuses the file. The loader here is PyYAML's safe loader (libyaml's parser where
PyYAML has it) with go-yaml's resolution in place of PyYAML's.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
import typing as t

from .._common.errors import Refused

try:
    import yaml
except ImportError:  # the module reports the kubernetes library (which needs PyYAML) as missing
    yaml = None  # type: ignore[assignment]

# goyaml.v2/resolve.go, init: the plain scalars looked up whole (resolveMapList).
_WORDS: dict[str, t.Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
# resolve.go, yamlStyleFloat: what the digits-and-sign branch accepts as a float.
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
# strconv.ParseFloat's decimal syntax without underscores, for the '.' branch (which checks no pattern first).
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UINT64 = (1 << 64) - 1
# Go's encoding/json writes a float64 below 1e21 without an exponent ('f' format): an integral one reads back as an
# integer, which is what a typed integer field needs (kubectl sends ``replicas: 1e1`` as 10).
_PLAIN_INTEGRAL = 1e21
PLAIN = "tag:virtinfra.hyperconverged,2026:plain"
_RESOLVED_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("bool", "int", "float", "null", "timestamp"))


def go_resolve(text: str) -> t.Any:
    """The Go value go-yaml v2 gives a plain scalar: bool, None, int, float or str (resolve.go, ``resolve``)."""
    if text in _WORDS:
        return _WORDS[text]
    first = text[0]
    if first == ".":
        return float(text) if _DOT_FLOAT.fullmatch(text) else text   # strconv.ParseFloat(in, 64)
    if not ("0" <= first <= "9" or first in "+-"):
        return text
    plain = text.replace("_", "")
    number = _parse_int(plain)
    # ParseInt, then ParseUint, which takes no sign: past int64, only an unsigned number below 2^64 is an integer.
    if number is not None and (_INT64[0] <= number <= _INT64[1] or (plain[0] not in "+-" and number <= _UINT64)):
        return number
    if _FLOAT.fullmatch(plain):
        value = float(plain)
        if not math.isinf(value):   # ParseFloat's range error: the scalar stays a string
            return value
    return text


def _parse_int(plain: str) -> int | None:
    """strconv.ParseInt(plain, 0, 64)'s syntax (any size): a sign, then 0x, 0o, 0b or a leading 0 (octal)."""
    sign, digits = (plain[0], plain[1:]) if plain[:1] in ("+", "-") else ("", plain)
    prefix = digits[:2].lower()
    base = {"0x": 16, "0o": 8, "0b": 2}.get(prefix)
    if base is not None:
        digits = digits[2:]
    elif len(digits) > 1 and digits[0] == "0":
        base, digits = 8, digits[1:]
    else:
        base = 10
    if not digits or not all(c in "0123456789abcdef"[:base] for c in digits.lower()):
        return None
    value = int(digits, base)
    return -value if sign == "-" else value


def json_value(value: t.Any) -> t.Any:
    """A resolved Go value as JSON carries it to the API server (Go's encoding/json on kubectl's side)."""
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            raise NoJSON(f"json: unsupported value: {_go_float(value)}")
        if value.is_integer() and abs(value) < _PLAIN_INTEGRAL:
            return int(value)
    return value


def json_key(value: t.Any) -> str:
    """A resolved mapping key as sigs.k8s.io/yaml's convertToJSONableObject turns it into a JSON key."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value <= _INT64[1]:
        return str(value)
    if isinstance(value, float):
        return _go_float32(value)
    if isinstance(value, int):   # past int64 go-yaml resolves a uint64, which the key conversion has no case for
        raise NoJSON(f"unsupported map key of type: uint64 ({value})")
    kind = "<nil>" if value is None else type(value).__name__
    raise NoJSON(f"unsupported map key of type: {kind}: a mapping key must be a string, number or boolean")


def _go_float(value: float) -> str:
    return "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")


def _go_float32(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32), with ±Inf and NaN spelled as YAML spells them."""
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        single = math.copysign(math.inf, value)
    if math.isinf(single) or math.isnan(single):
        return {"NaN": ".nan", "+Inf": ".inf", "-Inf": "-.inf"}[_go_float(single)]
    if single == 0:
        return "-0" if math.copysign(1, single) < 0 else "0"
    for precision in range(1, 10):   # the shortest digits that read back as the same float32
        text = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    mantissa, exponent_text = text.split("e")
    negative = mantissa.startswith("-")
    digits = mantissa.lstrip("-").replace(".", "")
    exponent = int(exponent_text)
    if exponent < -4 or exponent >= 6:   # 'g' with the shortest digits: %e outside [1e-4, 1e6)
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        formatted = f"{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    elif exponent >= 0:
        whole, fraction = digits[:exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1:]
        formatted = whole + ("." + fraction if fraction else "")
    else:
        formatted = "0." + "0" * (-exponent - 1) + digits
    return ("-" if negative else "") + formatted


class NoJSON(Refused):
    """A value Go's encoding/json cannot write, or a key sigs.k8s.io/yaml cannot turn into a JSON key."""


class NotJSON(Refused):
    """A value kubectl cannot turn into JSON either, with where it stands."""

    def __init__(self, problem: str, mark: t.Any) -> None:
        super().__init__(f"{problem} (line {mark.line + 1}, column {mark.column + 1})")


# goyaml.v2/resolve.go, resolve: a scalar tagged with one of these must resolve to it (a !!float takes an integer).
_EXPLICIT = {f"tag:yaml.org,2002:{name}": f"!!{name}" for name in ("bool", "int", "float")}
# A bare "!" tag (the non-specific tag) before white space: go-yaml keeps such a scalar a string (resolvableTag("!")
# is false), which only PyYAML's Python composer can see; libyaml's hands it to resolve() as a plain scalar.
BARE_TAG = re.compile(r"(?:^|[\s\[{,])!(?=\s)")


def _go_tag(value: t.Any) -> str:
    if value is None:
        return "!!null"
    return {bool: "!!bool", int: "!!int", float: "!!float"}.get(type(value), "!!str")


if yaml is not None:
    # A mixin at run time (GoLoader puts it before libyaml's parser); the safe loader's interface for the type checker.
    _Loader: t.Any = yaml.SafeLoader if t.TYPE_CHECKING else object

    class _GoConstruction(_Loader):
        """go-yaml's resolution of plain scalars and sigs.k8s.io/yaml's keys, over PyYAML's safe loader."""

        def resolve(self, kind: t.Any, value: t.Any, implicit: t.Any) -> str:
            if kind is yaml.ScalarNode and implicit[0]:
                return "tag:yaml.org,2002:merge" if value == "<<" else PLAIN
            return super().resolve(kind, value, implicit)

        def construct_document(self, node: t.Any) -> t.Any:
            """Plain maps, lists and scalars built in one recursion, the rest by PyYAML's constructors. PyYAML's walk
            (a generator per collection, a record of every node built) was most of reading a directory of small
            manifests. A node used twice through
            an alias is built twice: equal values, and _BoundedLoader has bounded the expansion before."""
            data = self._build(node)
            self.constructed_objects: dict[t.Any, t.Any] = {}   # as PyYAML's construct_document leaves them
            self.recursive_objects: dict[t.Any, t.Any] = {}
            self.deep_construct = False
            return data

        def _build(self, node: t.Any) -> t.Any:
            tag = node.tag
            if tag == PLAIN:
                return self.construct_go_scalar(node)
            kind = type(node)
            if tag == _MAP and kind is yaml.MappingNode and not any(key.tag == _MERGE for key, _value in node.value):
                return {self._key(key): self._build(value) for key, value in node.value}
            if tag == _SEQ and kind is yaml.SequenceNode:
                return [self._build(child) for child in node.value]
            if tag == _STR and kind is yaml.ScalarNode:
                return node.value
            return self.construct_object(node, deep=True)

        def construct_mapping(self, node: t.Any, deep: bool = False) -> dict[t.Hashable, t.Any]:
            """go-yaml v2's order (decode.go, decoder.mapping and merge): keys and merges in the order written, a
            later one replacing an earlier one (so a merge after a key wins over it, unlike YAML 1.1's merge), and a
            merged list applied from its last mapping to its first (the first wins)."""
            if not isinstance(node, yaml.MappingNode):   # !!map on a scalar or a list, refused as PyYAML refuses it
                raise yaml.constructor.ConstructorError(None, None, f"expected a mapping node, but found {node.id}",
                                                        node.start_mark)
            out: dict[t.Hashable, t.Any] = {}
            for key, value in node.value:
                if key.tag != _MERGE:
                    out[self._key(key)] = self.construct_object(value, deep=deep)
                    continue
                merged = reversed(value.value) if isinstance(value, yaml.SequenceNode) else [value]
                for part in merged:
                    if not isinstance(part, yaml.MappingNode):
                        raise NotJSON("map merge requires map or sequence of maps as the value", part.start_mark)
                    out.update(self.construct_mapping(part, deep=deep))
            return out

        def _key(self, key_node: t.Any) -> str:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag in _SCALAR_TAGS:
                key = go_resolve(key_node.value) if key_node.tag != _STR else key_node.value
            else:
                key = self.construct_object(key_node, deep=True)
            try:
                return json_key(key)
            except NoJSON as exc:
                raise NotJSON(str(exc), key_node.start_mark) from None

        def construct_go_scalar(self, node: t.Any) -> t.Any:
            if not isinstance(node, yaml.ScalarNode):   # a tag for scalars on a collection: as if untagged
                return self.construct_untagged(node)
            try:
                value = go_resolve(node.value)
                wanted = _EXPLICIT.get(node.tag)
                if wanted is not None and _go_tag(value) != wanted:
                    if wanted != "!!float" or _go_tag(value) != "!!int":
                        raise NotJSON(f"cannot decode {_go_tag(value)} `{node.value}` as a {wanted}, which kubectl "
                                      "refuses too", node.start_mark)
                    value = float(value)
                return json_value(value)
            except NoJSON as exc:
                raise NotJSON(f"{exc}, which kubectl refuses too: quote {node.value!r} to keep it as a string",
                              node.start_mark) from None

        def construct_binary(self, node: t.Any) -> str:
            # goyaml.v2 decode.go, d.scalar: the decoded bytes as a string; Go's JSON writes invalid UTF-8 as U+FFFD.
            try:
                return base64.b64decode(self.construct_scalar(node)).decode("utf-8", "replace")
            except binascii.Error:
                raise NotJSON(f"!!binary {node.value!r} is not base64", node.start_mark) from None

        def construct_untagged(self, node: t.Any) -> t.Any:
            """A node with a tag go-yaml does not know (``!Ref``): its text, list or mapping, the tag dropped."""
            if isinstance(node, yaml.ScalarNode):
                return node.value
            if isinstance(node, yaml.SequenceNode):
                return [self.construct_object(child, deep=True) for child in node.value]
            return self.construct_mapping(node, deep=True)

    class GoLoader(_GoConstruction, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        """The safe loader (libyaml's parser where PyYAML has it) with go-yaml's resolution."""

    class GoPythonLoader(_GoConstruction, yaml.SafeLoader):
        """For a text with a bare "!" tag (BARE_TAG): PyYAML's own composer, where the tag is seen."""

        def compose_scalar_node(self, anchor: t.Any) -> t.Any:
            event = self.get_event()
            # "!": not a tag go-yaml resolves, so the text stays a string.
            tag = _STR if event.tag == "!" else event.tag or self.resolve(yaml.ScalarNode, event.value, event.implicit)
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
            if anchor is not None:
                self.anchors[anchor] = node
            return node

    _STR = "tag:yaml.org,2002:str"
    _MAP, _SEQ, _MERGE = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:merge"
    _SCALAR_TAGS = _RESOLVED_TAGS | {PLAIN, _STR}
    for _loader in (GoLoader, GoPythonLoader):
        for _tag in (PLAIN, *_RESOLVED_TAGS):
            _loader.add_constructor(_tag, _loader.construct_go_scalar)
        _loader.add_constructor("tag:yaml.org,2002:binary", _loader.construct_binary)
        _loader.add_constructor(None, _loader.construct_untagged)
        # go-yaml builds a !!set, !!omap or !!pairs as the mapping or list it is (PyYAML: a set, lists of pairs).
        for _tag in ("set", "omap", "pairs"):
            _loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _loader.construct_untagged)
