# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Text formats HCO inherits from Go and Kubernetes: ``time.Duration``, ``resource.Quantity`` and the anchors of a
schema's ``pattern`` (Go's regexp).

PRIVATE: this module is not part of the collection's public API.
"""

from __future__ import annotations

import functools
import re
import typing as t
from decimal import ROUND_UP, Decimal, localcontext

from .errors import Refused


class GoSyntaxError(Refused):
    """A text Go's parser refuses (time.ParseDuration, resource.ParseQuantity), in Go's words."""


_NS_PER_UNIT = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,  # micro sign
    "\u03bcs": 1_000,  # Greek mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def parse_duration(text: str) -> int:
    """Parse Go ``time.ParseDuration`` text into nanoseconds; raise GoSyntaxError like Go does."""
    if not isinstance(text, str):
        raise GoSyntaxError(f"invalid duration {text!r}")
    rest = text
    sign = 1
    if rest[:1] in ("+", "-"):
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise GoSyntaxError(f'time: invalid duration "{text}"')
    total = Decimal(0)
    pos = 0
    while pos < len(rest):
        match = _DURATION_PART.match(rest, pos)
        if not match or match.group(1) in ("", "."):
            if match is None and re.match(r"[0-9.]+\Z", rest[pos:]):
                raise GoSyntaxError(f'time: missing unit in duration "{text}"')
            raise GoSyntaxError(f'time: invalid duration "{text}"')
        total += Decimal(match.group(1)) * _NS_PER_UNIT[match.group(2)]
        pos = match.end()
    nanoseconds = int(total)  # Go truncates fractions of a nanosecond
    if nanoseconds > 2**63 - 1:
        raise GoSyntaxError(f'time: invalid duration "{text}"')
    return sign * nanoseconds


def _format_fraction(value: int, precision: int) -> str:
    """Print value / 10**precision without trailing zeros, as Go's fmtFrac/fmtInt do."""
    whole, frac = divmod(value, 10**precision)
    digits = f"{frac:0{precision}d}".rstrip("0") if precision else ""
    return f"{whole}.{digits}" if digits else str(whole)


def format_duration(nanoseconds: int) -> str:
    """Render nanoseconds the way Go's ``time.Duration.String()`` does (``48h0m0s``, ``1m30s``, ``1.5ms``)."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    value = abs(nanoseconds)
    if value < 1_000_000_000:
        if value < 1_000:
            return f"{sign}{value}ns"
        if value < 1_000_000:
            return f"{sign}{_format_fraction(value, 3)}\u00b5s"
        return f"{sign}{_format_fraction(value, 6)}ms"
    seconds_text = _format_fraction(value % 60_000_000_000, 9) + "s"
    minutes_total = value // 60_000_000_000
    if minutes_total == 0:
        return sign + seconds_text
    hours, minutes = divmod(minutes_total, 60)
    if hours == 0:
        return f"{sign}{minutes}m{seconds_text}"
    return f"{sign}{hours}h{minutes}m{seconds_text}"


def normalize_duration(text: str) -> str:
    """Round-trip a duration through Go's parser and printer (``90s`` -> ``1m30s``)."""
    return format_duration(parse_duration(text))


# --- resource.Quantity -------------------------------------------------------------------------

QUANTITY_PATTERN = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX_BY_EXPONENT = {v: k for k, v in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_BY_POWER = {v: k for k, v in _BINARY_SUFFIXES.items()}
_NANO = Decimal("1e-9")


def _split_quantity(text: str) -> tuple[Decimal, str, str]:
    """Return (value, format, suffix) where format is DecimalSI, BinarySI or DecimalExponent."""
    match = QUANTITY_PATTERN.match(text)
    if not match:
        raise GoSyntaxError("quantities must match the regular expression " + QUANTITY_PATTERN.pattern)
    number_text = (match.group(1) or "") + match.group(2)
    suffix = match.group(6) or ""
    number = Decimal(number_text)
    if suffix in _BINARY_SUFFIXES:
        return number * (Decimal(1024) ** _BINARY_SUFFIXES[suffix]), "BinarySI", suffix
    if suffix in _DECIMAL_SUFFIXES:
        return number.scaleb(_DECIMAL_SUFFIXES[suffix]), "DecimalSI", suffix
    return number.scaleb(int(Decimal(suffix[1:]))), "DecimalExponent", suffix


def _canonical_decimal(value: Decimal) -> tuple[int, int]:
    """Mantissa and exponent (a multiple of 3) as apimachinery's AsCanonicalBytes computes them."""
    sign, digits, exponent = value.as_tuple()
    mantissa = int("".join(map(str, digits)) or "0")
    if not isinstance(exponent, int):
        raise GoSyntaxError("a quantity must be a finite number")
    while mantissa and mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa *= 10**shift
    exponent -= shift
    return (-mantissa if sign else mantissa), exponent


_SUFFIX_CHARACTERS = frozenset("eEinumkKMGTP")
_MAX_INT64 = 2**63 - 1


def _go_quantity_string(text: str) -> tuple[bool, str, str, str, str]:
    """apimachinery's parseQuantityString (k8s.io/apimachinery v0.34, pkg/api/resource/quantity.go): (positive, the
    number as written with its sign, its integer digits without leading zeros, its fraction digits, its suffix)."""
    positive, pos, end = True, 0, len(text)
    if text[:1] in ("-", "+"):
        positive, pos = text[0] == "+", 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in "0123456789":
        pos += 1
    num = text[start:pos] or "0"
    denom = ""
    if pos < end and text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in "0123456789":
            pos += 1
        denom = text[start:pos]
    value, suffix_start = text[:pos], pos
    while pos < end and text[pos] in _SUFFIX_CHARACTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in "0123456789":
        pos += 1
    if pos < end:
        raise GoSyntaxError(f"quantities must match the regular expression {QUANTITY_PATTERN.pattern}")
    return positive, value, num, denom, text[suffix_start:]


def _go_suffix(suffix: str) -> tuple[int, int, str]:
    """quantitySuffixer.interpret: (base, exponent, format)."""
    if suffix in _BINARY_SUFFIXES:
        return 2, 10 * _BINARY_SUFFIXES[suffix], "BinarySI"
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], "DecimalSI"
    if len(suffix) > 1 and suffix[0] in "eE" and re.fullmatch(r"[+-]?[0-9]+", suffix[1:]):
        return 10, int(suffix[1:]), "DecimalExponent"
    raise GoSyntaxError(f"unable to parse quantity's suffix {suffix!r}")


def _kept_as_written(num: str, denom: str, exponent: int, fmt: str) -> bool | None:
    """ParseQuantity's fast path: True where it keeps the text as written (already canonical), False where it
    computes the value in an int64, None where it falls back to the exact decimal (which rounds and caps)."""
    if fmt == "BinarySI":
        if exponent < 0 or denom:
            return None
        mantissa, scale = 1 << exponent, 0
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        mantissa, scale = 1, exponent
        precision = 18 - (len(num) + len(denom))
    if precision < 0:
        return None
    scale -= len(denom)
    if scale < -9:
        return None
    shifted = num + denom
    value = int(shifted)
    if value * mantissa > _MAX_INT64:   # int64Multiply overflowed
        return None
    if fmt == "BinarySI":
        return exponent % 10 == 0 and value & 0x07 != 0
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def canonical_quantity(value: t.Any) -> str:
    """A quantity (string or JSON number) as Go writes it back after decoding it: ``resource.Quantity``'s
    UnmarshalJSON (ParseQuantity of the trimmed text) then MarshalJSON. ParseQuantity keeps the text as written
    where it is already canonical (``1E3``, ``1.Gi``, ``+1Gi``, ``007Gi``, ``100m``); otherwise the value is written
    canonically (``1.5`` -> ``1500m``, ``1024Mi`` -> ``1Gi``), rounded up to the nano, a binary one capped at
    2^63-1 (``8Ei``)."""
    if isinstance(value, bool):
        raise GoSyntaxError("a quantity cannot be a boolean")
    text = str(value) if isinstance(value, (int, float)) else value
    if not isinstance(text, str):
        raise GoSyntaxError("a quantity must be a string or a number")
    text = text.strip()
    if not QUANTITY_PATTERN.match(text):
        raise GoSyntaxError("quantities must match the regular expression " + QUANTITY_PATTERN.pattern)
    if text == "0":
        return text
    positive, written, num, denom, suffix = _go_quantity_string(text)
    base, exponent, fmt = _go_suffix(suffix)
    if _kept_as_written(num, denom, exponent, fmt):   # the sign stays in the text either way
        return text
    with localcontext() as ctx:
        ctx.prec = 200
        amount = abs(Decimal(written if written not in ("", "+", "-") else "0"))
        amount = amount.scaleb(exponent) if base == 10 else amount * (Decimal(2) ** exponent)
        if amount != 0 and amount.as_tuple().exponent < -9:  # type: ignore[operator]
            amount = amount.quantize(_NANO, rounding=ROUND_UP)
        if fmt == "BinarySI" and amount > _MAX_INT64:
            amount = Decimal(_MAX_INT64)
        return _canonical_text(amount if positive else -amount, fmt)


def _canonical_text(amount: Decimal, fmt: str) -> str:
    """Quantity.CanonicalizeBytes: BinarySI only for an integral value of 1024 or more, else DecimalSI; DecimalSI
    with an SI suffix where the exponent has one."""
    if amount == 0:
        return "0"
    if fmt == "BinarySI" and (-1024 < amount < 1024 or amount != amount.to_integral_value()):
        fmt = "DecimalSI"
    if fmt == "BinarySI":
        integer = int(amount)
        power = 0
        while integer % 1024 == 0 and power < 6:
            integer //= 1024
            power += 1
        return f"{integer}{_BINARY_SUFFIX_BY_POWER.get(power, '')}"
    mantissa, exponent = _canonical_decimal(amount.normalize())
    if fmt == "DecimalSI" and exponent in _DECIMAL_SUFFIX_BY_EXPONENT:
        return f"{mantissa}{_DECIMAL_SUFFIX_BY_EXPONENT[exponent]}"
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)


def quantity_value(value: t.Any) -> Decimal:
    """The exact numeric value of a quantity (``64Gi`` -> 68719476736)."""
    if isinstance(value, bool):
        raise GoSyntaxError("a quantity cannot be a boolean")
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    with localcontext() as ctx:
        ctx.prec = 200   # exact: the default 28 digits would round a large binary quantity
        return _split_quantity(str(value))[0]


@functools.lru_cache(maxsize=256)
def go_regexp(pattern: str) -> re.Pattern[str]:
    """A CRD's ``pattern`` as the API server matches it (Go's regexp, RE2): without the ``m`` flag, ``$`` is the end
    of the text (regexp/syntax, EndText), where Python's ``$`` also matches before a final newline; so each ``$``
    outside a character class and not escaped is ``\\Z`` here."""
    if "(?m" in pattern or "$" not in pattern:
        return re.compile(pattern)
    out, escaped, class_start = [], False, -1   # class_start: where the open class's members begin
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif class_start < 0 and char == "[":
            class_start = index + 2 if pattern.startswith("[^", index) else index + 1
        elif class_start >= 0 and char == "]" and index > class_start:   # a first "]" is a member
            class_start = -1
        elif class_start < 0 and char == "$":
            char = "\\Z"
        out.append(char)
    return re.compile("".join(out))
