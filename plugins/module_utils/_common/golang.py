# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Text formats HCO inherits from Go and Kubernetes: ``time.Duration`` and ``resource.Quantity``.

PRIVATE: this module is not part of the collection's public API.
"""

from __future__ import annotations

import re
import typing as t
from decimal import ROUND_UP, Decimal, localcontext

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
    """Parse Go ``time.ParseDuration`` text into nanoseconds; raise ValueError like Go does."""
    if not isinstance(text, str):
        raise ValueError(f"invalid duration {text!r}")
    rest = text
    sign = 1
    if rest[:1] in ("+", "-"):
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise ValueError(f'time: invalid duration "{text}"')
    total = Decimal(0)
    pos = 0
    while pos < len(rest):
        match = _DURATION_PART.match(rest, pos)
        if not match or match.group(1) in ("", "."):
            if match is None and re.match(r"[0-9.]+$", rest[pos:]):
                raise ValueError(f'time: missing unit in duration "{text}"')
            raise ValueError(f'time: invalid duration "{text}"')
        total += Decimal(match.group(1)) * _NS_PER_UNIT[match.group(2)]
        pos = match.end()
    nanoseconds = int(total)  # Go truncates fractions of a nanosecond
    if nanoseconds > 2**63 - 1:
        raise ValueError(f'time: invalid duration "{text}"')
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
        raise ValueError("quantities must match the regular expression " + QUANTITY_PATTERN.pattern)
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
        raise ValueError("a quantity must be a finite number")
    while mantissa and mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa *= 10**shift
    exponent -= shift
    return (-mantissa if sign else mantissa), exponent


def canonical_quantity(value: t.Any) -> str:
    """Parse a quantity (string or JSON number) and print it canonically (``1.5`` -> ``1500m``)."""
    if isinstance(value, bool):
        raise ValueError("a quantity cannot be a boolean")
    text = str(value) if isinstance(value, (int, float)) else value
    if not isinstance(text, str):
        raise ValueError("a quantity must be a string or a number")
    with localcontext() as ctx:
        ctx.prec = 200
        amount, fmt, _suffix = _split_quantity(text.strip())
        if amount != 0 and amount.as_tuple().exponent < -9:  # type: ignore[operator]
            amount = amount.quantize(_NANO, rounding=ROUND_UP)
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


def is_quantity(value: t.Any) -> bool:
    try:
        canonical_quantity(value)
    except (ValueError, ArithmeticError):
        return False
    return True


def quantity_value(value: t.Any) -> Decimal:
    """The exact numeric value of a quantity (``64Gi`` -> 68719476736)."""
    if isinstance(value, bool):
        raise ValueError("a quantity cannot be a boolean")
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    return _split_quantity(str(value))[0]
