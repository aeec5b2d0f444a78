# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""state=observed: read-only; the fields of each desired object whose live value differs, and who set them
(operands another operator owns). PRIVATE."""

from __future__ import annotations

import typing as t

from .context import Context
from .fields import mismatches, ownership, owns, strip
from .model import Step, Target
from .report import report


def run(ctx: Context, items: t.Sequence[Target]) -> dict[str, t.Any]:
    result = report(ctx, [_observed(item) for item in items], [])
    result["changed"] = False
    return result


def _observed(item: Target) -> Step:
    """Missing, drifted (each field with the managers that own it now) or unchanged."""
    if item.live is None:
        return Step.of(item, action="missing")
    owners = ownership(item.live)
    drift = tuple({**entry, "managers": sorted(n for n, paths in owners.items() if owns(paths, entry["_path"]))}
                  for entry in mismatches(strip(item.desired), strip(item.live)))
    return Step.of(item, action="drifted" if drift else "unchanged", drift=drift)
