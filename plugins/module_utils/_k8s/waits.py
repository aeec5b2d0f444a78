# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Waiting for objects to reach a state: ready as their kind defines it (readiness.py), a condition
(type/status/reason, never one older than the object's generation) or a JSONPath value.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import time
import typing as t

from .._common.errors import ClusterFailed
from . import readiness
from .client import Connection, KubeError
from .readiness import Verdict


class WaitFailed(ClusterFailed):
    pass


@dataclasses.dataclass
class WaitSpec:
    api_version: str
    kind: str
    name: str
    namespace: str | None = None
    condition_type: str | None = None
    condition_status: str = "True"
    condition_reason: str | None = None
    jsonpath: str | None = None
    success: tuple[t.Any, ...] = ()
    failure: tuple[t.Any, ...] = ()
    ready: bool = False

    @property
    def label(self) -> str:
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        what = ("ready" if self.ready else
                f"condition {self.condition_type}={self.condition_status}" if self.condition_type
                else f"{self.jsonpath} in {list(self.success)}")
        return f"{self.kind} {where} ({what})"

    def evaluate(self, obj: dict[str, t.Any] | None) -> bool | None:
        """True when satisfied, False on a failure value, None while still waiting."""
        if obj is None:
            return None
        if self.ready:
            state = readiness.ready(obj).state
            return True if state == "ready" else (False if state == "failed" else None)
        if self.condition_type:
            if readiness.condition(obj, self.condition_type, self.condition_status).state != "ready":
                return None
            if self.condition_reason:
                found = [c for c in (obj.get("status") or {}).get("conditions") or []
                         if c.get("type") == self.condition_type]
                return True if found and found[0].get("reason") == self.condition_reason else None
            return True
        values = [match.value for match in _compile(self.jsonpath or "").find(obj)]
        if any(_matches(v, self.failure) for v in values):
            return False
        if values and all(_matches(v, self.success) for v in values):
            return True
        return None


def verdict(spec: WaitSpec, obj: dict[str, t.Any] | None) -> readiness.Verdict:
    """``spec.evaluate`` with what it still waits for, in words."""
    state = spec.evaluate(obj)
    if state is True:
        return readiness.READY
    if obj is None:
        return readiness.Verdict("waiting", "it to exist")
    if state is False:
        return readiness.Verdict("failed", "reached a failure value")
    if spec.ready:
        return readiness.ready(obj)
    if spec.condition_type:
        found = readiness.condition(obj, spec.condition_type, spec.condition_status)
        return found if found.state != "ready" else readiness.Verdict("waiting", f"reason {spec.condition_reason}")
    values = [match.value for match in _compile(spec.jsonpath or "").find(obj)]
    return readiness.Verdict("waiting", f"{spec.jsonpath} in {list(spec.success)} (now {values or 'absent'})")


def _compile(expression: str) -> t.Any:
    # Imported on the first jsonpath wait: jsonpath-ng builds its parser tables at import, which every task that
    # loads this module would pay, and most runs wait on no jsonpath.
    try:
        from jsonpath_ng.ext import parse as jsonpath_parse
    except ImportError:
        raise WaitFailed("jsonpath waits need the jsonpath-ng Python package") from None
    text = expression.strip()
    if text.startswith("{") and text.endswith("}"):  # kubectl style: {.status.phase}
        text = text[1:-1]
    if text.startswith("."):
        text = "$" + text
    try:
        return jsonpath_parse(text)
    except Exception as exc:  # jsonpath-ng raises several unrelated types for syntax errors
        raise WaitFailed(f"invalid jsonpath {expression!r}: {exc}") from exc


def _matches(value: t.Any, accepted: t.Sequence[t.Any]) -> bool:
    return any(value == a or str(value) == str(a) for a in accepted)


def wait_for_all(connection: Connection, discovery: t.Any, specs: t.Sequence[WaitSpec], timeout: float,
                 interval: float = 1.0, clock: t.Callable[[], float] = time.monotonic,
                 sleep: t.Callable[[float], None] = time.sleep) -> None:
    """Poll until every spec holds; fail at once on a failure value and with the pending list on timeout."""
    deadline = clock() + timeout
    pending = list(specs)
    for spec in pending:
        if spec.jsonpath:
            _compile(spec.jsonpath)  # a bad expression is an error before any waiting
    while pending:
        still = []
        for spec in pending:
            resource = discovery.find(spec.api_version, spec.kind)
            if resource is None:
                raise WaitFailed(f"cannot wait for {spec.label}: the server has no kind {spec.kind} "
                                 f"in {spec.api_version}")
            try:
                obj = connection.request("GET", resource.path(spec.namespace, spec.name))
            except KubeError as exc:
                if exc.status != 404:
                    raise
                obj = None
            verdict = spec.evaluate(obj)
            if verdict is False:
                raise WaitFailed(f"{spec.label}: reached a failure value")
            if verdict is None:
                still.append(spec)
        pending = still
        if pending:
            if clock() >= deadline:
                raise WaitFailed(f"timed out after {timeout:g}s waiting for: "
                                 + "; ".join(spec.label for spec in pending))
            sleep(interval)


# Waiting that says what it waits for: a line when it starts, whenever what it waits for changes, and at least
# every PROGRESS_EVERY seconds; the detail on timeout.
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
