# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Operator versions and the upgrade rule of the KubeVirt guides: from release N-1 to N only, never down.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import re
import typing as t

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")


@dataclasses.dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int

    def __str__(self) -> str:
        return f"v{self.major}.{self.minor}.{self.patch}"

    @property
    def line(self) -> str:
        return f"v{self.major}.{self.minor}"


def parse(text: t.Any) -> Version | None:
    """``v1.9.0``, ``1.9``, ``1.20.0-rc.1``; an image reference's tag (``quay.io/x/virt-operator:v1.9.0``) too.
    None for anything else (a digest, ``latest``)."""
    if not isinstance(text, str) or not text:
        return None
    candidate = text.rsplit(":", 1)[-1] if "/" in text or ("@" not in text and text.count(":") == 1) else text
    if "@" in text:
        return None
    match = _VERSION.match(candidate.strip())
    if not match:
        return None
    return Version(int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))


def step_problem(current: Version, target: Version) -> str | None:
    """Why going from ``current`` to ``target`` is refused, with the path to take; None when it is allowed."""
    if target < current:
        return (f"runs {current}, newer than the target {target}: downgrades are not supported; choose the release "
                "profile (or operators_versions pin) that matches the cluster")
    if target.major != current.major:
        return f"runs {current}: a major upgrade to {target} is not a supported step"
    if target.minor > current.minor + 1:
        path = " → ".join(f"v{current.major}.{minor}" for minor in range(current.minor + 1, target.minor + 1))
        return (f"runs {current}: {target} skips {target.minor - current.minor - 1} minor release(s); "
                f"upgrade one minor release at a time ({current.line} → {path}), each with a release profile or "
                "operators_versions pin of that release")
    return None
