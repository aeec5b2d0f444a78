# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Waiting that says what it waits for: a line when it starts, whenever what it waits for changes, and at least every
30 s; the detail on timeout.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import time
import typing as t

from .client import KubeError
from .readiness import Verdict
from .waits import WaitFailed, WaitSpec, verdict

__all__ = ["PROGRESS_EVERY", "WaitFailed", "Waiter", "wait_saying"]

PROGRESS_EVERY = 30.0


@dataclasses.dataclass
class Waiter:
    timeout: float
    say: t.Callable[[str], None]
    interval: float = 2.0
    clock: t.Callable[[], float] = time.monotonic
    sleep: t.Callable[[float], None] = time.sleep
    waited: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)

    def until(self, what: str, probe: t.Callable[[], Verdict]) -> float:
        """Poll ``probe`` until it is ready; the seconds it took. WaitFailed on a failure or the timeout."""
        start = self.clock()
        last_said: float | None = None
        last_detail = ""
        while True:
            verdict = probe()
            now = self.clock()
            if verdict.state == "ready":
                if last_said is not None:
                    self.say(f"{what}: ready after {now - start:.0f} s")
                self.waited.append({"what": what, "seconds": round(now - start, 1)})
                return now - start
            if verdict.state == "failed":
                raise WaitFailed(f"{what}: {verdict.detail}")
            if now - start >= self.timeout:
                raise WaitFailed(f"timed out after {self.timeout:g} s waiting for {what}: {verdict.detail}")
            if last_said is None or now - last_said >= PROGRESS_EVERY or verdict.detail != last_detail:
                self.say(f"waiting for {what}: {verdict.detail} ({now - start:.0f} s of {self.timeout:g} s)")
                last_said, last_detail = now, verdict.detail
            self.sleep(self.interval)


def wait_saying(connection: t.Any, discovery: t.Any, specs: t.Sequence[WaitSpec], timeout: float,
                say: t.Callable[[str], None], waiter: Waiter | None = None) -> list[dict[str, t.Any]]:
    """k8s_apply's waits, one after the other within one ``timeout``, saying what each waits for; the waits done."""
    clock = waiter.clock if waiter else time.monotonic
    deadline = clock() + timeout
    done: list[dict[str, t.Any]] = []
    for spec in specs:
        resource = discovery.find(spec.api_version, spec.kind)
        if resource is None:
            raise WaitFailed(f"cannot wait for {spec.label}: the server has no kind {spec.kind} in {spec.api_version}")
        path = resource.path(spec.namespace, spec.name)

        def probe(spec: WaitSpec = spec, path: str = path) -> Verdict:
            try:
                obj = connection.request("GET", path)
            except KubeError as exc:
                if exc.status != 404:
                    raise
                obj = None
            return verdict(spec, obj)

        each = dataclasses.replace(waiter, waited=[]) if waiter else Waiter(0.0, say)
        each.timeout, each.say = max(deadline - clock(), 0.0), say
        each.until(spec.label, probe)
        done += each.waited
    return done
