# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One mapping laid over another, mapping into mapping. PRIVATE; no Ansible imports."""

from __future__ import annotations

import typing as t


def merge(base: t.Mapping[str, t.Any], over: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """``over`` laid over ``base``: where both hold a mapping the two are merged, otherwise ``over``'s value wins
    whole (a list is replaced, not extended). Neither argument is changed."""
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        merged[key] = merge(below, value) if isinstance(below, t.Mapping) and isinstance(value, t.Mapping) else value
    return merged
