# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Host readiness for KubeVirt: facts read from /proc, /sys and /dev, and the requirement table. PRIVATE."""

# The Python floor (_python.py), checked before anything else is imported.
from .. import _python  # noqa: F401
