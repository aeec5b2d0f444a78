# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The API server's refusals as problems with field paths. PRIVATE."""

from __future__ import annotations

import re

from .client import KubeError, webhook_failure
from .model import Desired, Problem

# Field paths inside the API server's messages: strict decoding ('unknown field "spec.x"') and server-side apply
# ('.spec.x: field not declared in schema', '.spec.replicas: expected numeric ...').
_UNKNOWN_FIELD = re.compile(r'unknown field "([^"]+)"')
_APPLY_PATH = re.compile(r'(?:^|: |\n)\.([A-Za-z0-9_$][^\s:]*): ([^\n]+)')


class WebhookUnavailable(KubeError):
    """An admission webhook could not be called for an object: no retry or other object can do better."""

    def __init__(self, item: Desired, webhook: str, exc: KubeError) -> None:
        super().__init__(f"admission webhook {webhook} failed for {item.api_version} {item.label}: {exc}",
                         exc.status, exc.body)
        self.webhook = webhook
        self.item = item


def problems_of(item: Desired, exc: KubeError) -> list[Problem]:
    """One problem per cause the server gave, at the field it names."""
    problems = []
    for cause in exc.causes or [{"message": str(exc)}]:
        message = str(cause.get("message") or cause.get("reason") or exc)
        field = str(cause.get("field") or "")
        if field:
            problems.append(item.error(field, message))
            continue
        unknown = _UNKNOWN_FIELD.findall(message)
        if unknown:
            problems += [item.error(path, "field not declared in schema") for path in unknown]
            continue
        located = _APPLY_PATH.findall(message)
        if located:
            problems += [item.error(path, text.strip()) for path, text in located]
            continue
        problems.append(item.error("", message))
    return problems


def namespace_missing(exc: KubeError) -> bool:
    details = exc.body.get("details") or {}
    return exc.status == 404 and details.get("kind") == "namespaces"


def fatal(item: Desired, exc: KubeError) -> KubeError | None:
    """The refusal stops every other request of the stage (a failed webhook call: each further request would wait
    the webhook's timeout again, with the same answer); None when it is a problem of this object alone."""
    webhook = webhook_failure(exc.body)
    return WebhookUnavailable(item, webhook, exc) if webhook else None
