# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Server-side apply, discovery, drift and waits against a Kubernetes API server. PRIVATE.

``apply.py`` runs the apply pipeline (parse, resolve, read, ownership, parent, validate, plan, prune.find, access,
lock, write, prune, waits, report), one module per stage.
"""

# The Python floor (_python.py), checked before anything else is imported.
from .. import _python  # noqa: F401
