# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""resource.Quantity written back after Go decoded it, over every syntax the CRD's pattern admits (a sign, leading
zeros, a fraction or none, no suffix, a binary or decimal SI suffix, an exponent), against what apimachinery's code
does (k8s.io/apimachinery v0.34, pkg/api/resource/quantity.go, ParseQuantity and MarshalJSON):

- the value is kept: the text written back means the same number, except that a binary value past 2^63-1 is capped
  there and a value finer than the nano rounds up to it;
- a second round trip writes the same text (Go keeps a canonical text as it is);
- a text with no sign, no leading zero, no fraction and a decimal SI suffix (or none) whose digits do not end in 000
  is already canonical: it is written as given.
"""

from __future__ import annotations

import re
from decimal import Decimal, localcontext

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.golang import canonical_quantity

# The value of each suffix (quantity.go's suffixer tables), written here rather than read from the code under test.
MULTIPLIER = {"": Decimal(1), "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "k": Decimal("1e3"),
              "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"), "P": Decimal("1e15"),
              "E": Decimal("1e18"), **{f"{p}i": Decimal(2) ** (10 * (i + 1)) for i, p in enumerate("KMGTPE")}}
TEXT = re.compile(r"([+-]?)([0-9]*)(\.[0-9]*)?(.*)")


def value_of(text: str) -> Decimal:
    """A quantity's number by its definition: sign, digits and fraction, times its suffix's value or its exponent."""
    sign, digits, fraction, suffix = TEXT.fullmatch(text).groups()   # type: ignore[union-attr]
    number = Decimal((digits or "0") + (fraction if fraction and fraction != "." else ""))
    exponent = re.fullmatch(r"[eE]([+-]?[0-9]+)", suffix)
    scale = Decimal(10) ** int(exponent.group(1)) if exponent else MULTIPLIER[suffix]
    return (-1 if sign == "-" else 1) * number * scale


DIGITS = st.text("0123456789", min_size=1, max_size=8)
SUFFIX = st.sampled_from(["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
                          "e3", "E-3", "e+6", "e0", "E2"])
QUANTITY = st.tuples(st.sampled_from(["", "+", "-"]), st.sampled_from(["", "0", "00"]), DIGITS,
                     st.one_of(st.just(""), st.just("."), st.text("0123456789", min_size=1, max_size=10).map(
                         lambda f: "." + f)), SUFFIX)


@seed(20261202)
@settings(max_examples=3000, deadline=None)
@given(parts=QUANTITY)
def test_every_admitted_syntax_as_go_writes_it_back(parts) -> None:
    sign, zeros, digits, fraction, suffix = parts
    text = f"{sign}{zeros}{digits}{fraction}{suffix}"
    written = canonical_quantity(text)
    with localcontext() as exact:
        exact.prec = 200
        value, back = value_of(text), value_of(written)
        if suffix.endswith("i") and abs(value) > 2**63 - 1:
            assert back == (2**63 - 1) * (1 if value > 0 else -1)
        elif value != 0 and value.as_tuple().exponent < -9:   # type: ignore[operator]
            assert abs(back) >= abs(value) and abs(back) - abs(value) < Decimal("1e-9")
        else:
            assert back == value, (text, written)
    assert canonical_quantity(written) == written
    if not sign and not zeros and not fraction and suffix in ("", "n", "u", "m", "k", "M", "G", "T", "P", "E") \
            and digits[0] != "0" and not digits.endswith("000"):
        assert written == text
