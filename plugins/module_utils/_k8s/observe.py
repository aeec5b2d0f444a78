# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""state=observed: read-only; the fields of each desired object whose live value differs, and who set them
(operands another operator owns). PRIVATE."""

from __future__ import annotations

import typing as t

from .context import Context
from .fields import mismatches, ownership, owns, strip
from .model import Item
from .report import report


def run(ctx: Context, items: list[Item]) -> dict[str, t.Any]:
    for item in items:
        if item.live is None:
            item.action = "missing"
            continue
        item.drift = mismatches(strip(item.desired), strip(item.live))
        owners = ownership(item.live)
        for entry in item.drift:
            entry["managers"] = sorted(n for n, paths in owners.items() if owns(paths, entry["_path"]))
        item.action = "drifted" if item.drift else "unchanged"
    result = report(ctx, items, [])
    result["changed"] = False
    return result
