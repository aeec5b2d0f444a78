# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The operators stage's entry: settings checked, then the path the source names (by_manifests, by_olm); every
problem before the first write, an exact result after.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .._k8s.discovery import Discovery
from .._k8s.waits import Waiter
from . import by_manifests, by_olm
from .context import Context, Failed, Fetch
from .settings import Settings

__all__ = ["Failed", "run"]


def run(connection: t.Any, settings: Settings, fetch: Fetch, say: t.Callable[[str], None],
        waiter: Waiter | None = None) -> dict[str, t.Any]:
    ctx = Context(connection, settings, fetch, say, waiter or Waiter(settings.wait_timeout, say),
                  Discovery(connection))
    problems = settings.problems()
    if problems:
        ctx.refuse(problems)
    path = by_olm if settings.source == "olm" else by_manifests
    return path.remove(ctx) if settings.state == "absent" else path.install(ctx)
