# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Installing, placing and upgrading the operators the site needs (the ``operators`` action).

Stages: catalog (what each release profile pins) → upgrades (the upgrade rule) → plan (current → target per
operator, pure) → manifests (release files checked, verified and moved into place) / olm (Subscriptions,
InstallPlans) → bundles (what an install writes, also for render mode) → by_manifests / by_olm (the two paths, with
their waits; readiness: an instance up) → run (the entry, the only stage given a connection).

PRIVATE: the interface may change without notice.
"""

# The Python floor (_python.py), checked before anything else is imported.
from .. import _python  # noqa: F401
