# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The upgrade rule of the KubeVirt guides: from release N-1 to N only, never down.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .._common.versions import Version


def step_problem(current: Version, target: Version, named: t.Callable[[str], str]) -> str | None:
    """Why going from ``current`` to ``target`` is refused, with the path to take; None when it is allowed."""
    if target < current:
        return (f"runs {current}, newer than the target {target}: downgrades are not supported; choose the release "
                f"profile (or {named('versions')} pin) that matches the cluster")
    if target.major != current.major:
        return f"runs {current}: a major upgrade to {target} is not a supported step"
    if target.minor > current.minor + 1:
        path = " → ".join(f"v{current.major}.{minor}" for minor in range(current.minor + 1, target.minor + 1))
        return (f"runs {current}: {target} skips {target.minor - current.minor - 1} minor release(s); "
                f"upgrade one minor release at a time ({current.line} → {path}), each with a release profile or "
                f"{named('versions')} pin of that release")
    return None
