# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The release profile the site computes with: in apply mode the one the cluster runs, in render mode the setting.

Where both say something they must agree: a site_release the user set that names another profile than the cluster
runs is refused before any write, with both values, unless site_release_mismatch is ``use-setting``. A site_release
left to its default gives way to the cluster, and the summary says so. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import PROFILES, known_releases
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.running_release import Running
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.catalog import PINS


@dataclasses.dataclass(frozen=True)
class Chosen:
    release: str
    source: str                      # as the summary says it: "site_release", "the cluster (...)"
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def _profiles_of(found: Running) -> list[str]:
    """The profiles of what runs: HCO's own minor, or for KubeVirt alone every profile pinning that KubeVirt minor."""
    minor = found.minor
    if minor is None:
        return []
    if found.component == "HCO":
        name = f"{minor[0]}.{minor[1]}"
        return [name] if name in PROFILES else []
    return [name for name in known_releases()
            if Running("KubeVirt", PINS.get(name, {}).get("kubevirt", ""), "").minor == minor]


def choose(setting: str, given: bool, mismatch: str, found: Running | None) -> Chosen:
    """``setting``: site_release's value; ``given``: whether the user set it; ``found``: what the cluster runs
    (None: render mode, or nothing running yet)."""
    if found is None:
        return Chosen(setting, "site_release" if given else "site_release's default")
    runs = f"{found.component} {found.version} ({found.where})"
    candidates = _profiles_of(found)
    if not candidates:
        uncovered = f"site_release: the cluster runs {runs}, which no release profile covers ({', '.join(known_releases())})"
        if given:
            return Chosen(setting, "site_release", warnings=(f"{uncovered}; computed with {setting} as set",))
        return Chosen(setting, "site_release's default",
                      problems=(f"{uncovered}; set site_release to the profile to compute with",))
    if setting in candidates:
        return Chosen(setting, f"the cluster ({runs})" if not given else f"site_release, as the cluster runs ({runs})")
    if not given:
        chosen = candidates[-1]
        also = f" (or {', '.join(candidates[:-1])}: set site_release to choose)" if len(candidates) > 1 else ""
        said = (f"site_release: computed with {chosen}, the profile the cluster runs ({runs}){also}; "
                f"site_release's default {setting} is not used")
        return Chosen(chosen, f"the cluster ({runs})", warnings=(said,))
    if mismatch == "use-setting":
        said = (f"site_release: {setting} is not what the cluster runs ({runs}: {' or '.join(candidates)}); computed "
                f"with {setting} as site_release_mismatch says")
        return Chosen(setting, "site_release (site_release_mismatch: use-setting)", warnings=(said,))
    refused = (f"site_release: {setting} is not what the cluster runs ({runs}: profile {' or '.join(candidates)}); "
               f"set site_release to {candidates[-1]!r}, upgrade the cluster first, or set site_release_mismatch: "
               f"use-setting to write what {setting} computes anyway")
    return Chosen(setting, "site_release", problems=(refused,))
