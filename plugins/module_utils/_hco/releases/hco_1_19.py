# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Release profile of HCO 1.19.0 (branch release-1.19 @ 7313576e; KubeVirt v1.9.0, CDI v1.66.0, SSP v0.26.0).

1.19 and the 1.20 profile's commit share the code of 2026-08-18 (fb63925b); what 1.20 changed after it is the
architecture table: 1.19 still sets ``ovmfPath`` (``/usr/share/OVMF`` on amd64, ``/usr/share/AAVMF`` on arm64, an
empty, omitted, one on s390x), which 1.20 stopped doing (03da3cff, "stop overriding OVMFPath"). PRIVATE.
"""

from __future__ import annotations

import dataclasses

from .hco_1_20 import PROFILE as _NEXT

_OVMF = {"amd64": "/usr/share/OVMF", "arm64": "/usr/share/AAVMF"}

PROFILE = dataclasses.replace(
    _NEXT,
    name="1.19",
    hco_version="1.19.0",
    summary="HCO 1.19.0: v1 stored, v1beta1 converted; KubeVirt v1.9.0, CDI v1.66.0, CNAO v0.102.0, SSP v0.26.0, "
            "AAQ v1.8.0",
    env_defaults={**_NEXT.env_defaults, "HCO_KV_IO_VERSION": "1.19.0"},
    kubevirt={
        **_NEXT.kubevirt,
        "architectures": {arch: {**data, **({"ovmfPath": _OVMF[arch]} if arch in _OVMF else {})}
                          for arch, data in _NEXT.kubevirt["architectures"].items()},
    },
)
