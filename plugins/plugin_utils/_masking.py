# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A result as a module process would return it: no_log values masked, then through JSON. PRIVATE.

A module masks its result with ``remove_values`` and prints it as JSON, which Ansible reads back. ``remove_values``
visits every value in Python (the larger part of a big result's cost) although a no_log value (the
kubeconfig argument, a Secret's data) rarely appears in it. So the result is written as JSON first (in C): when no
no_log value occurs in that text, no value of the result holds one, and the JSON read back is the answer.
Otherwise ``remove_values`` masks it as before.

Why the text check is exact: JSON escapes a string character by character, so a value that contains a no_log string
contains its escaped form in the text; a number is written as ``remove_values`` compares it (``str()``). The text
also holds keys and ``true``/``false``/``null``, which can only make the check say "maybe", never miss.
"""

from __future__ import annotations

import json
import typing as t

from ansible.module_utils.common.parameters import remove_values


def masked(result: dict[str, t.Any], hidden: t.Collection[t.Any]) -> dict[str, t.Any]:
    """``result`` with every no_log value in ``hidden`` masked, read back from JSON (lists, str keys) as Ansible
    reads a module's."""
    try:
        text = json.dumps(result, ensure_ascii=False)
    except (TypeError, ValueError):   # a value JSON cannot carry: remove_values says what it makes of it
        return t.cast(dict[str, t.Any], remove_values(result, hidden))
    if any(not isinstance(value, str) or json.dumps(value, ensure_ascii=False)[1:-1] in text for value in hidden):
        text = json.dumps(remove_values(result, hidden), ensure_ascii=False)
    return t.cast(dict[str, t.Any], json.loads(text))
