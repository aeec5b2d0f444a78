# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Waits both paths share: an operator's instance up and the kinds it brings served.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

from .._k8s.readiness import READY, Verdict, condition
from . import catalog, running
from .context import Context


def await_instance(ctx: Context, wanted: catalog.Instance, name: str) -> None:
    """The instance ``name`` Available, and the kinds it brings served (the site writes them next)."""
    resource = ctx.discovery.find(wanted.api_version, wanted.kind)
    if resource is not None:
        path = resource.path(None, name)

        def probe() -> Verdict:
            live = running.get(ctx.connection, path)
            return condition(live, "Available") if live is not None else Verdict("waiting", "it to exist")

        ctx.waiter.until(f"{wanted.kind} {name}", probe)
    for api_version, kind in wanted.serves:
        def served(api_version: str = api_version, kind: str = kind) -> Verdict:
            ctx.discovery.refresh()
            found = ctx.discovery.find(api_version, kind) is not None
            return READY if found else Verdict("waiting", f"{kind} {api_version} to be served")

        ctx.waiter.until(f"{kind} {api_version} (brought by {wanted.kind} {name})", served)
