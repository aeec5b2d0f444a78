# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""metav1.Time over every syntax the API server's date-time check admits (k8s.io/kube-openapi
pkg/validation/strfmt/time.go, IsDateTime: a valid date, ``t`` or ``T`` in any case, hours <= 23, minutes and
seconds <= 59, optionally any one character and digits, then ``z``, ``Z`` or a sign, two digits, ':' and two
digits), against what Go's time.Parse(time.RFC3339) then Format does with each (go1.24 src/time/format.go):

- a lower-case ``t`` or ``z``: refused (the layout's literals are upper case);
- a fraction after anything but ``.`` or ``,``: refused (parse reads a fraction only after those);
- an offset past 24 hours or 60 minutes: refused (the range test is ``>``);
- anything else: the instant in UTC, whole seconds; January 1 of year 1 at midnight, with no fraction past nine
  zeros, is null.

The expected instant is computed here with Python's datetime (years 1-9999, where it can).
"""

from __future__ import annotations

import datetime

from hypothesis import assume, given, seed, settings
from hypothesis import strategies as st

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.times import TimeError, metav1_time

DATES = st.dates(min_value=datetime.date(1, 1, 1), max_value=datetime.date(9999, 12, 31))
FRACTION = st.one_of(st.just(""), st.tuples(st.sampled_from(".,x5:"), st.text("0123456789", min_size=1, max_size=12))
                     .map("".join))
ZONE = st.one_of(st.sampled_from(["Z", "z"]),
                 st.tuples(st.sampled_from("+-"), st.integers(0, 99), st.integers(0, 99)).map(
                     lambda z: f"{z[0]}{z[1]:02d}:{z[2]:02d}"))


@seed(20261202)
@settings(max_examples=3000, deadline=None)
@given(date=DATES, separator=st.sampled_from("Tt"), hour=st.integers(0, 23), minute=st.integers(0, 59),
       second=st.integers(0, 59), fraction=FRACTION, zone=ZONE)
def test_every_admitted_syntax_as_go_reads_it(date, separator, hour, minute, second, fraction, zone) -> None:
    text = f"{date.isoformat()}{separator}{hour:02d}:{minute:02d}:{second:02d}{fraction}{zone}"
    refused = (separator == "t" or zone == "z" or (fraction and fraction[0] not in ".,")
               or (zone[0] in "+-" and (int(zone[1:3]) > 24 or int(zone[4:6]) > 60)))
    if refused:
        try:
            metav1_time(text)
        except TimeError:
            return
        raise AssertionError(f"{text!r}: Go refuses it")
    offset = datetime.timedelta(0) if zone == "Z" else \
        (1 if zone[0] == "+" else -1) * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
    try:
        moment = datetime.datetime.combine(date, datetime.time(hour, minute, second)) - offset
    except OverflowError:
        assume(False)   # before year 1 or after 9999: the unit tests hold Go's text for those
    # Go reads nine digits of a fraction and drops the rest (format.go, parseNanoseconds): year 1's first instant with
    # a fraction whose first nine digits are zeros is still the zero time, which metav1.Time writes as null.
    zero = moment == datetime.datetime(1, 1, 1) and not fraction[1:10].strip("0")
    assert metav1_time(text) == (None if zero else moment.strftime("%Y-%m-%dT%H:%M:%SZ").rjust(20, "0"))
