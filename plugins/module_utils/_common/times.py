# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``metav1.Time`` values as HCO's Go code decodes and writes them back. PRIVATE; no Ansible imports.

Decoding (k8s.io/apimachinery v0.34, pkg/apis/meta/v1/time.go, ``Time.UnmarshalJSON``) is Go's
``time.Parse(time.RFC3339, s)`` (go1.24 src/time/format.go, ``Parse`` -> ``parse``, after its strict
``parseRFC3339`` fast path): the layout ``2006-01-02T15:04:05Z07:00`` read element by element - an upper-case ``T``
and ``Z`` only, a fraction after ``.`` or ``,``, an offset whose hours may reach 24 and minutes 60. Writing back
(``Time.MarshalJSON``) is ``null`` for the zero instant, otherwise ``t.UTC().Format(time.RFC3339)``: whole seconds,
the year zero-padded to four digits (``-0001`` before year 1, five digits past 9999).

Python's datetime covers years 1-9999 only, so instants are counted here as seconds from 0001-01-01 in the
proleptic Gregorian calendar, as Go counts them.
"""

from __future__ import annotations

import typing as t

from .errors import Refused

LAYOUT = "2006-01-02T15:04:05Z07:00"
_SECONDS_PER_DAY = 86400


class TimeError(Refused):
    """A value Go's time.Parse refuses, with Go's message (``parsing time "..." as "...": cannot parse ...``)."""


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 0001-01-01 (proleptic Gregorian; H. Hinnant's days_from_civil, shifted to Go's zero day)."""
    year -= month <= 2
    era = year // 400   # floor division: the C original's correction for negative years is built in
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 306   # 0000-03-01 is day 306 before 0001-01-01


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 306
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + (3 if month_index < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cannot(value: str, rest: str, element: str) -> TimeError:
    return TimeError(f"parsing time {_quote(value)} as {_quote(LAYOUT)}: cannot parse {_quote(rest)} as "
                     f"{_quote(element)}")


def _out_of_range(value: str, what: str) -> TimeError:
    return TimeError(f"parsing time {_quote(value)}: {what} out of range")


def _number(text: str, fixed: bool) -> tuple[int, str] | None:
    """Go's getnum: two digits, or with ``fixed`` false one digit where the second is not one."""
    if not text[:1].isdigit() or not text[:1].isascii():
        return None
    if len(text) < 2 or not (text[1].isdigit() and text[1].isascii()):
        return None if fixed else (int(text[0]), text[1:])
    return int(text[:2]), text[2:]


def parse(value: str) -> tuple[int, int]:
    """(seconds since 0001-01-01T00:00:00Z, nanoseconds) of an RFC 3339 time as Go's time.Parse reads it; a value Go
    refuses raises TimeError with Go's message."""
    rest = value
    if len(rest) < 4 or not rest[:4].isdigit() or not rest[:4].isascii():
        raise _cannot(value, rest, "2006")
    year, rest = int(rest[:4]), rest[4:]
    fields: list[int] = []
    for separator, element, low, high, what, fixed in (("-", "01", 1, 12, "month", True),
                                                       ("-", "02", 1, 31, "day", True),
                                                       ("T", "15", 0, 23, "hour", False),
                                                       (":", "04", 0, 59, "minute", True),
                                                       (":", "05", 0, 59, "second", True)):
        if not rest.startswith(separator):
            raise _cannot(value, rest, separator)
        rest = rest[1:]
        got = _number(rest, fixed)
        if got is None:
            raise _cannot(value, rest, element)
        number, rest = got
        if not low <= number <= high:
            raise _out_of_range(value, what)
        fields.append(number)
    month, day, hour, minute, second = fields
    nanoseconds = 0
    if len(rest) >= 2 and rest[0] in ".," and rest[1].isdigit() and rest[1].isascii():
        end = 1
        while end < len(rest) and rest[end].isdigit() and rest[end].isascii():
            end += 1
        nanoseconds = int(rest[1:min(end, 10)].ljust(9, "0"))   # Go keeps nine digits, dropping the rest
        rest = rest[end:]
    offset = 0
    if rest.startswith("Z"):
        rest = rest[1:]
    else:
        if len(rest) < 6 or rest[3] != ":" or rest[0] not in "+-":
            raise _cannot(value, rest, "Z07:00")
        hours, minutes = _number(rest[1:3], True), _number(rest[4:6], True)
        if hours is None or minutes is None:
            raise _cannot(value, rest, "Z07:00")
        # go1.24 format.go: "The range test use > rather than >=, as some people do write offsets of 24 hours or 60
        # minutes".
        if hours[0] > 24:
            raise _out_of_range(value, "time zone offset hour")
        if minutes[0] > 60:
            raise _out_of_range(value, "time zone offset minute")
        offset = (hours[0] * 60 + minutes[0]) * 60 * (-1 if rest[0] == "-" else 1)
        rest = rest[6:]
    if rest:
        raise TimeError(f"parsing time {_quote(value)}: extra text: {_quote(rest)}")
    if day > _days_in(month, year):
        raise _out_of_range(value, "day")
    seconds = _days_from_civil(year, month, day) * _SECONDS_PER_DAY + hour * 3600 + minute * 60 + second - offset
    return seconds, nanoseconds


def format_utc(seconds: int) -> str:
    """``time.Format(time.RFC3339)`` of an instant in UTC (seconds since 0001-01-01T00:00:00Z)."""
    days, within = divmod(seconds, _SECONDS_PER_DAY)
    year, month, day = _civil_from_days(days)
    hour, minute, second = within // 3600, within // 60 % 60, within % 60
    written = f"-{-year:04d}" if year < 0 else f"{year:04d}"
    return f"{written}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"


def metav1_time(value: t.Any) -> str | None:
    """A ``metav1.Time`` decoded and written back: None (JSON ``null``) for the zero instant, otherwise RFC 3339 in
    UTC and whole seconds. A value that is not a string is for the schema to refuse, and is returned as it is."""
    if not isinstance(value, str):
        return value
    seconds, nanoseconds = parse(value)
    if seconds == 0 and nanoseconds == 0:   # time.Time.IsZero: January 1, year 1, 00:00:00 UTC
        return None
    return format_utc(seconds)
