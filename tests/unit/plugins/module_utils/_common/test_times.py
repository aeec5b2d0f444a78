# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""metav1.Time as Go decodes and writes it. The expected values are Go's, read from go1.24 src/time/format.go
(Parse -> parse; Format) and apimachinery pkg/apis/meta/v1/time.go (UnmarshalJSON, MarshalJSON)."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.times import TimeError, metav1_time, parse


@pytest.mark.parametrize(("given", "written"), [
    ("2026-11-26T01:02:03Z", "2026-11-26T01:02:03Z"),
    ("2026-11-26T01:02:03.999Z", "2026-11-26T01:02:03Z"),          # Format(RFC3339) has no fraction: dropped
    ("2026-11-26T01:02:03,5Z", "2026-11-26T01:02:03Z"),            # parse: a comma before the fraction (go1.17)
    ("2026-11-26T03:02:03+02:00", "2026-11-26T01:02:03Z"),
    ("2026-11-25T23:32:03.5-01:30", "2026-11-26T01:02:03Z"),
    ("2026-11-26T01:02:03+24:00", "2026-11-25T01:02:03Z"),        # offset hours up to 24 ("> rather than >=")
    ("2026-11-26T01:02:03-00:60", "2026-11-26T02:02:03Z"),        # offset minutes up to 60
    ("0999-01-01T00:00:00Z", "0999-01-01T00:00:00Z"),             # stdLongYear: appendInt(year, 4), zero-padded
    ("0001-01-01T00:30:00+01:00", "0000-12-31T23:30:00Z"),        # year 0: Go's calendar is proleptic
    ("0000-01-01T00:00:00+01:00", "-0001-12-31T23:00:00Z"),       # before year 0: '-' then four digits
    ("9999-12-31T23:00:00-01:00", "10000-01-01T00:00:00Z"),       # past 9999: the year's own digits
    ("2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z"),
    ("2026-11-26T1:02:03Z", "2026-11-26T01:02:03Z"),              # stdHour: getnum(value, false), one digit too
    ("0001-01-01T00:00:00Z", None),                               # IsZero: MarshalJSON writes null
    ("0001-01-01T01:00:00+01:00", None),                          # the same instant
    ("0001-01-01T00:00:00.000000001Z", "0001-01-01T00:00:00Z"),  # one nanosecond later: not zero
    (None, None),                                                 # null stays null
])
def test_written_back_as_go_writes_it(given, written):
    assert metav1_time(given) == written


@pytest.mark.parametrize(("given", "said"), [
    ("2026-11-26t01:02:03Z", 'cannot parse "t01:02:03Z" as "T"'),          # the layout's T is upper case
    ("2026-11-26T01:02:03z", 'cannot parse "z" as "Z07:00"'),              # so is its Z
    ("2026-11-26T01:02:03x5Z", 'cannot parse "x5Z" as "Z07:00"'),          # only '.' or ',' start a fraction
    ("2026-11-26T01:02:03+25:00", ": time zone offset hour out of range"),
    ("2026-11-26T01:02:03+00:61", ": time zone offset minute out of range"),
    ("2026-11-26T24:00:00Z", ": hour out of range"),
    ("2026-11-26T01:02:60Z", ": second out of range"),                     # no leap second
    ("2026-02-29T01:02:03Z", ": day out of range"),
    ("2026-11-26T01:02:03", 'cannot parse "" as "Z07:00"'),
    ("2026-11-26T01:02:03Z ", ': extra text: " "'),
    ("yesterday", 'cannot parse "yesterday" as "2006"'),
])
def test_what_go_refuses_is_refused_with_its_message(given, said):
    with pytest.raises(TimeError) as refused:
        parse(given)
    assert str(refused.value).startswith(f'parsing time "{given}"') and said in str(refused.value)
