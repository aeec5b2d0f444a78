# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Secret values: folded as the API server stores them, and masked in every form the server can echo back.

A webhook or an error message may quote a Secret as the server holds it (``data``: base64), as it was sent, or
decoded. Every one of those forms is masked in results, problems and messages. PRIVATE.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import typing as t

REDACTED = "<redacted>"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# Shorter values would mask ordinary words of every message ("a", "on"); such values are not secret in practice.
MIN_MASKED = 3


def is_secret(obj: t.Mapping[str, t.Any]) -> bool:
    return obj.get("kind") == "Secret" and obj.get("apiVersion") == "v1"


def fold_string_data(secret: dict[str, t.Any]) -> tuple[str, str] | None:
    """stringData into data (base64), as the API server stores it, so a Secret compares with its live copy by content.
    Returns (path, problem) when stringData is malformed."""
    string_data = secret.pop("stringData", None)
    if string_data is None:
        return None
    if not isinstance(string_data, dict):
        return "stringData", "must be a mapping of strings"
    data = secret.setdefault("data", {}) or {}
    secret["data"] = data
    for key, value in string_data.items():
        if not isinstance(value, str):
            return f"stringData.{key}", "must be a string"
        data[key] = base64.b64encode(value.encode()).decode()
    return None


def _forms(value: str, encoded: bool) -> set[str]:
    """The value as given, and as the server may echo it: base64 of a plain value, the plain text of a base64 one."""
    forms = {value, base64.b64encode(value.encode()).decode()}
    if encoded:
        with contextlib.suppress(binascii.Error, ValueError, UnicodeDecodeError):
            forms.add(base64.b64decode(value, validate=True).decode())
    return forms


def secret_values(objects: t.Iterable[t.Any]) -> set[str]:
    """Every Secret value in the input, in every form the server can echo: for the caller to mask wherever it logs."""
    found: set[str] = set()
    for obj in objects:
        if not isinstance(obj, dict) or not is_secret(obj):
            continue
        for field, encoded in (("data", True), ("stringData", False)):
            values = obj.get(field)
            if not isinstance(values, dict):
                continue
            for value in values.values():
                if isinstance(value, str) and value:
                    found |= _forms(value, encoded)
    return {v for v in found if len(v) >= MIN_MASKED}


class Masker:
    """Replaces every secret value in text (longest first, so a value inside a longer one leaves no tail)."""

    def __init__(self, values: t.Iterable[str] = ()) -> None:
        self._values = sorted(set(values), key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._values)

    def text(self, text: str) -> str:
        for value in self._values:
            if value in text:
                text = text.replace(value, REDACTED)
        return text

    def value(self, value: t.Any) -> t.Any:
        """Strings inside any JSON-like value."""
        if not self._values:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


def _secret_field(path: str) -> bool:
    return path.split(".")[0] in ("data", "stringData") or LAST_APPLIED in path


def redact_changes(changes: list[dict[str, t.Any]], secret: bool) -> list[dict[str, t.Any]]:
    """Field changes of a Secret with its values (and a last-applied copy of them) shown as <redacted>."""
    if not secret:
        return changes
    out = []
    for change in changes:
        if _secret_field(change["path"]):
            change = {**change, "before": REDACTED if change["before"] is not None else None,
                      "after": REDACTED if change["after"] is not None else None}
        out.append(change)
    return out


def redact_object(obj: dict[str, t.Any], secret: bool) -> dict[str, t.Any]:
    """A Secret with every value (and a last-applied copy of them) shown as <redacted>."""
    if not secret:
        return obj
    out = {k: (dict.fromkeys(v, REDACTED) if k in ("data", "stringData") and isinstance(v, dict) else v)
           for k, v in obj.items()}
    metadata: dict[str, t.Any] = dict(out.get("metadata") or {})
    annotations = dict(metadata.get("annotations") or {})
    if LAST_APPLIED in annotations:
        annotations[LAST_APPLIED] = REDACTED
        out["metadata"] = {**metadata, "annotations": annotations}
    return out
