# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The registry of release profiles: one data module per HCO release, looked up by name or version. PRIVATE."""

from __future__ import annotations

from ..._common.errors import FieldError, RenderError
from ..profile import ReleaseProfile
from . import hco_1_14, hco_1_15, hco_1_16, hco_1_17, hco_1_18, hco_1_19, hco_1_20

PROFILES: dict[str, ReleaseProfile] = {
    p.name: p for p in (hco_1_20.PROFILE, hco_1_19.PROFILE, hco_1_18.PROFILE, hco_1_17.PROFILE, hco_1_16.PROFILE,
                        hco_1_15.PROFILE, hco_1_14.PROFILE)
}
DEFAULT_RELEASE = "1.20"


def known_releases() -> list[str]:
    return sorted(PROFILES, key=lambda r: tuple(int(x) for x in r.split(".")))


def get_profile(release: str | None = None) -> ReleaseProfile:
    """Look a release up by ``1.20``, ``1.20.0`` or ``v1.20.0``; unknown releases are a clear error."""
    wanted = str(release or DEFAULT_RELEASE).strip().lstrip("v")
    for profile in PROFILES.values():
        if wanted in (profile.name, profile.hco_version):
            return profile
    known = ", ".join(f'"{r}" (HCO {PROFILES[r].hco_version})' for r in known_releases())
    raise RenderError([FieldError("release", f'unknown HCO release "{release}"; known releases: {known}', "input")])
