# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.golang import (
    GoSyntaxError,
    canonical_quantity,
    format_duration,
    normalize_duration,
    parse_duration,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("48h", "48h0m0s"), ("90s", "1m30s"), ("1m", "1m0s"), ("0", "0s"), ("1h30m", "1h30m0s"),
    ("1.5ms", "1.5ms"), ("1500us", "1.5ms"), ("10m0s", "10m0s"), ("-2h", "-2h0m0s"), ("2.5h", "2h30m0s"),
])
def test_durations_print_like_go(text, expected):
    assert normalize_duration(text) == expected


@pytest.mark.parametrize("text", ["", "10", "1x", "h", "1.2.3s", None])
def test_bad_durations_are_refused(text):
    with pytest.raises(GoSyntaxError):
        parse_duration(text)


def test_sub_second_formats():
    assert format_duration(999) == "999ns"
    assert format_duration(1_500) == "1.5\u00b5s"


@pytest.mark.parametrize(("value", "expected"), [
    ("1.5", "1500m"), ("2G", "2G"), ("16Mi", "16Mi"), ("1536Mi", "1536Mi"), ("1.5Gi", "1536Mi"),
    ("1024Mi", "1Gi"), ("2000", "2k"), ("1e3", "1e3"), ("0.5Ki", "512"), (5, "5"), ("0", "0"), ("-1.5Gi", "-1536Mi"),
    ("0.1", "100m"), ("1n", "1n"), ("0.0000000001", "1n"),
    # ParseQuantity's fast path keeps the text as written (its s field) when the number is already canonical: a sign
    # and leading zeros included (k8s.io/apimachinery v0.34, quantity.go: the decimal case when the scale is a
    # multiple of 3, the digits do not end in 000 and do not start with 0; the binary case when the exponent is a
    # multiple of 10 and the value is not a multiple of 8). Otherwise the number is written again, without its "+".
    ("+8Gi", "8Gi"), ("+7Gi", "+7Gi"), ("007Gi", "007Gi"), ("+100m", "+100m"), ("0100m", "0100m"), ("01", "01"),
    ("+1000m", "1"), ("+0", "0"),
])
def test_quantities_are_canonical(value, expected):
    assert canonical_quantity(value) == expected


@pytest.mark.parametrize("value", ["1.5 Gi", "Gi", "1Gb", True, "--1"])
def test_bad_quantities_are_refused(value):
    with pytest.raises(GoSyntaxError):
        canonical_quantity(value)


@pytest.mark.parametrize(("given", "written"), [
    # ParseQuantity keeps the text where it is already canonical (apimachinery v0.34 quantity.go, the comment "if
    # the number is in canonical form, reuse the string"): a decimal with a scale that is a multiple of 3, digits
    # not ending in 000 and not starting with 0 once leading zeros are stripped; a binary one whose digits are not a
    # multiple of 8. The sign and leading zeros stay as written.
    ("1E3", "1E3"), ("1e3", "1e3"), ("12e-3", "12e-3"), ("1.Gi", "1.Gi"), ("+1Gi", "+1Gi"), ("007Gi", "007Gi"),
    ("7Ei", "7Ei"), ("100m", "100m"), ("01", "01"), ("+1", "+1"), ("-1", "-1"), ("1n", "1n"), ("1.e3", "1.e3"),
    ("1025Mi", "1025Mi"),
    # Otherwise MarshalJSON writes it canonically.
    ("1000m", "1"), ("1000k", "1M"), ("0.5", "500m"), ("1.5", "1500m"), ("1.0", "1"), ("0.0", "0"), ("00", "0"),
    ("1024Mi", "1Gi"), ("8Gi", "8Gi"), ("1.5Gi", "1536Mi"), ("0.5Gi", "512Mi"), ("1.5e3", "1500"),
    ("0.1n", "1n"),                                           # rounded up to the nano
    ("8Ei", "9223372036854775807"), ("-8Ei", "-9223372036854775807"),   # binary values capped at 2^63-1
    ("10E", "10E"), ("9223372036854775808", "9223372036854775808"),     # decimal ones are not
])
def test_a_quantity_is_written_back_as_go_writes_it(given, written):
    assert canonical_quantity(given) == written
