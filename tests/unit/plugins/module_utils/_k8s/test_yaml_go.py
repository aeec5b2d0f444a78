# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plain scalars and keys as kubectl reads them. Each expected value is written from reading the Go code (goyaml.v2
resolve.go ``resolve``, Go's strconv ``ParseInt``/``ParseUint``/``ParseFloat`` and ``FormatFloat``, encoding/json's
float output, sigs.k8s.io/yaml ``convertToJSONableObject``); tests/integration/test_k8s_apply_manifests.py sends the
same forms through kubectl and k8s_apply to the API server and compares what each stored."""

from __future__ import annotations

import math

import pytest
import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.yaml_go import (
    GoLoader,
    NoJSON,
    NotJSON,
    go_resolve,
    json_key,
    json_value,
)


@pytest.mark.parametrize(("text", "value"), [
    # The words looked up whole: YAML 1.1's booleans with one-letter forms, and nulls.
    ("y", True), ("Y", True), ("yes", True), ("ON", True), ("True", True),
    ("n", False), ("NO", False), ("off", False), ("FALSE", False),
    ("yEs", "yEs"), ("tRUE", "tRUE"), ("", None), ("~", None), ("Null", None), ("nULL", "nULL"),
    # Integers by ParseInt(s, 0, 64) once underscores are gone: sign, 0x/0o/0b, a leading 0 is octal.
    ("12", 12), ("+12", 12), ("-12", -12), ("1_000", 1000), ("0x1F", 31), ("0X1f", 31), ("-0x_1F", -31),
    ("017", 15), ("0o17", 15), ("0O17", 15), ("0b101", 5), ("-0b101", -5), ("0", 0), ("-0", 0), ("00", 0),
    # Past int64, ParseUint (no sign) up to 2^64-1.
    ("9223372036854775807", 9223372036854775807), ("9223372036854775808", 9223372036854775808),
    ("18446744073709551615", 18446744073709551615), ("-9223372036854775808", -9223372036854775808),
    # Not an integer by ParseInt: a float if yamlStyleFloat matches and ParseFloat takes it.
    ("08", 8.0), ("1e3", 1000.0), ("1E+3", 1000.0), ("1.5", 1.5), ("1.", 1.0), ("-.5", -0.5), ("+1.5e-3", 0.0015),
    ("18446744073709551616", 18446744073709551616.0), ("+9223372036854775808", 9223372036854775808.0),
    ("1_0.5", 10.5),
    # ParseFloat's range error keeps the text.
    ("1e400", "1e400"), ("-1e400", "-1e400"),
    # A leading dot: ParseFloat of the text as written (no underscores), or the infinities and NaN looked up.
    (".5", 0.5), (".5e2", 50.0), ("._5", "._5"), (".", "."), (".inf", math.inf), ("-.Inf", -math.inf),
    ("+.INF", math.inf), (".Infinity", ".Infinity"),
    # Strings: sexagesimal, dates, hex floats and the words Go does not know.
    ("1:30", "1:30"), ("2001-12-14", "2001-12-14"), ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
    ("0x1p-2", "0x1p-2"), ("0b102", "0b102"), ("0o8", "0o8"), ("0x", "0x"), ("1__", 1), ("-", "-"), ("+", "+"),
    ("infinity", "infinity"), ("nan", "nan"), ("=", "="), ("<<x", "<<x"), ("1,000", "1,000"),
])
def test_plain_scalars_resolve_as_go_yaml_resolves_them(text, value):
    resolved = go_resolve(text)
    assert type(resolved) is type(value) and resolved == value   # 8.0 is not 8: the type is part of the answer


@pytest.mark.parametrize(("value", "sent"), [
    (1000.0, 1000), (8.0, 8), (-0.0, 0), (1.5, 1.5), (1e20, 100000000000000000000), (1e21, 1e21), (True, True),
])
def test_values_reach_json_as_go_writes_them(value, sent):
    # encoding/json writes a float64 below 1e21 without an exponent, so 1e3 reaches the server as the integer 1000.
    assert json_value(value) == sent and type(json_value(value)) is type(sent)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_non_finite_numbers_cannot_be_json(value):
    with pytest.raises(NoJSON, match="json: unsupported value"):
        json_value(value)


@pytest.mark.parametrize(("key", "name"), [
    ("a", "a"), (True, "true"), (False, "false"), (12, "12"), (-3, "-3"), (1.5, "1.5"), (1000.0, "1000"),
    (1e6, "1e+06"), (1e7, "1e+07"), (123456.0, "123456"), (0.0001, "0.0001"), (0.00001, "1e-05"),
    (0.1, "0.1"), (3.14159265358979, "3.1415927"), (16777217.0, "1.6777216e+07"), (1e39, ".inf"), (-0.0, "-0"),
    (math.inf, ".inf"), (-math.inf, "-.inf"), (math.nan, ".nan"),
])
def test_keys_become_strings_as_sigs_yaml_writes_them(key, name):
    # Floats as strconv.FormatFloat(k, 'g', -1, 32): float32's shortest digits, %e outside [1e-4, 1e6).
    assert json_key(key) == name


def test_a_null_key_and_a_uint64_key_are_refused():
    with pytest.raises(NoJSON, match="unsupported map key of type: <nil>"):
        json_key(None)
    assert json_key(9223372036854775807) == "9223372036854775807"
    with pytest.raises(NoJSON, match="unsupported map key of type: uint64"):
        json_key(9223372036854775808)


def load(text: str):
    return yaml.load(text, Loader=GoLoader)


def test_the_loader_resolves_plain_scalars_only():
    expected = {"a": "017", "b": "y", "c": 15, "d": True, "e": "017\n"}
    assert load("a: '017'\nb: \"y\"\nc: 017\nd: y\ne: |\n  017\n") == expected


def test_keys_are_resolved_then_written_as_strings():
    assert load("y: 1\n1e3: 2\n017: 3\n'017': 4\n~x: 5\n") == {"true": 1, "1000": 2, "15": 3, "017": 4, "~x": 5}


def test_merge_keys_and_explicit_tags():
    text = "base: &b {x: 1}\nmerged:\n  <<: *b\n  v: !!str 12\n  z: !!int '12'\n  w: !!timestamp 2001-12-14\n"
    assert load(text)["merged"] == {"x": 1, "v": "12", "z": 12, "w": "2001-12-14"}


def test_binary_is_the_decoded_text():
    assert load("a: !!binary aGVsbG8=\n") == {"a": "hello"}


def test_tags_on_the_wrong_kind_of_node_and_nested_merges_are_still_pyyamls():
    assert load("a: !!seq\n  - 1\nb: [{<<: {x: 1}, v: 2}]\nc: !!set {p, q}\nd: !!omap [{k: 1}]\n") == {
        "a": [1], "b": [{"x": 1, "v": 2}], "c": {"p": None, "q": None}, "d": [{"k": 1}]}
    with pytest.raises(yaml.YAMLError):
        load("a: !!map scalar\n")


def test_merges_in_go_yaml_v2s_order():
    # decode.go, decoder.mapping: in the order written, a later key or merge replacing an earlier one; a merged list
    # from its last mapping to its first.
    assert load("{a: 1, <<: {a: 2}}") == {"a": 2}
    assert load("{<<: {a: 2}, a: 1}") == {"a": 1}
    assert load("{<<: [{p: 1, q: 1}, {p: 2, r: 2}]}") == {"p": 1, "q": 1, "r": 2}
    with pytest.raises(NotJSON, match="map merge requires map or sequence of maps"):
        load("{<<: [1]}")


@pytest.mark.parametrize("text", ["a: !!int 1.5\n", "a: !!bool 1\n", "a: !!int true\n", "a: !!float yes\n"])
def test_a_tag_the_value_does_not_resolve_to_is_refused(text):
    with pytest.raises(NotJSON, match="cannot decode"):
        load(text)


def test_a_float_tag_takes_an_integer_and_a_bare_tag_keeps_a_string():
    assert load("a: !!float 3\n") == {"a": 3}     # 3.0, which Go's JSON writes as 3
    from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.manifests import objects_of

    assert objects_of("x.yaml", "a: ! 123\nb: ! true\nc: 123\nd: [! 1, 2]\n") == [
        {"a": "123", "b": "true", "c": 123, "d": ["1", 2]}]
