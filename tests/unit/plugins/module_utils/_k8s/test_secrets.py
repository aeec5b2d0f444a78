# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Secret values masked in every form the API server can echo."""

from __future__ import annotations

import base64
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.secrets import (
    REDACTED,
    Masker,
    fold_string_data,
    redact_changes,
    redact_object,
    secret_values,
)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def secret(**fields) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, **fields}


def test_every_encoding_of_every_value_is_masked():
    values = secret_values([secret(stringData={"plain": "plain-value"}, data={"encoded": b64("decoded-value")}),
                            {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "not-a-secret"}}])
    assert values == {"plain-value", b64("plain-value"), b64("decoded-value"), "decoded-value",
                      b64(b64("decoded-value"))}
    masker = Masker(values)
    echoed = f'webhook says: {{"data": {{"plain": "{b64("plain-value")}"}}}} and decoded-value'
    assert masker.text(echoed) == f'webhook says: {{"data": {{"plain": "{REDACTED}"}}}} and {REDACTED}'


def test_short_values_and_invalid_base64_do_not_mask_ordinary_words():
    assert secret_values([secret(stringData={"a": "on"}, data={"b": "not base64!"})]) == {
        "not base64!", b64("not base64!")} | {b64("on")}
    assert Masker(["abc"]).value({"list": ["x abc y", 3], "n": None}) == {"list": [f"x {REDACTED} y", 3], "n": None}


def test_a_value_inside_a_longer_one_leaves_no_tail():
    assert Masker(["secret", "secret-and-more"]).text("[secret-and-more]") == f"[{REDACTED}]"


def test_string_data_folds_into_data_as_the_server_stores_it():
    folded = secret(stringData={"k": "v"}, data={"old": b64("x")})
    assert fold_string_data(folded) is None
    assert folded["data"] == {"old": b64("x"), "k": b64("v")} and "stringData" not in folded
    assert fold_string_data(secret(stringData={"k": 1})) == ("stringData.k", "must be a string")
    assert fold_string_data(secret(stringData=["k"])) == ("stringData", "must be a mapping of strings")


def test_a_secret_is_redacted_in_changes_and_objects_but_other_kinds_are_not():
    changes: list[dict[str, t.Any]] = [
        {"path": "data.k", "op": "change", "before": "a", "after": "b"},
        {"path": "metadata.labels.x", "op": "add", "before": None, "after": "y"}]
    assert redact_changes(changes, True)[0] == {"path": "data.k", "op": "change", "before": REDACTED,
                                                "after": REDACTED}
    assert redact_changes(changes, True)[1] == changes[1]
    assert redact_changes(changes, False) is changes
    obj = secret(data={"k": "v"}, metadata={"name": "s", "annotations": {
        "kubectl.kubernetes.io/last-applied-configuration": "{...}"}})
    redacted = redact_object(obj, True)
    assert redacted["data"] == {"k": REDACTED}
    assert redacted["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] == REDACTED
    assert obj["data"] == {"k": "v"}   # the input is left as it was
