# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Version strings, read once: a release (``v1.9.0``, ``1.20``, ``1.20.0-rc.1``, an image's tag) and a platform's
MAJOR.MINOR (``1.33``, ``4.19``).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import re
import typing as t

_RELEASE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?\Z")
_MAJOR_MINOR = re.compile(r"^v?(\d+)\.(\d+)")
# What a platform version setting takes: MAJOR.MINOR, or with its patch, and nothing else.
PLATFORM = re.compile(r"^\d+\.\d+(\.\d+)?\Z")


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
    match = _RELEASE.match(candidate.strip())
    if not match:
        return None
    return Version(int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))


def major_minor(text: t.Any) -> tuple[int, int] | None:
    """The MAJOR.MINOR a version starts with (``v1.33.2`` -> (1, 33)); None when it does not start with one."""
    match = _MAJOR_MINOR.match(str(text or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None
