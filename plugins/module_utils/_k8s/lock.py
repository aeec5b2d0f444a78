# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A lock per apply set: a ``coordination.k8s.io`` Lease beside the apply-set parent.

Two runs on one apply set (two AWX jobs from one template, a retry while the first still runs) must not interleave: one
would prune what the other has just created and both would report success. A run that writes or prunes holds the
Lease ``<parent>-lock`` in the parent's namespace, renews it while it runs and deletes it when it ends. A killed run
stops renewing; the Lease is then taken over once it has not changed for its duration, as client-go's leader election
judges expiry (by what this client observed, so clock skew between machines does not matter). A second run waits up
to ``timeout`` seconds and then fails naming the holder.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import datetime
import getpass
import os
import socket
import threading
import time
import typing as t

from .._common.names import COLLECTION
from .applyset import lease_name
from .client import Connection, KubeError

LEASE_SECONDS = 15      # how long a silent holder keeps the lock
RENEW_SECONDS = 5       # how often the holder renews it
POLL_SECONDS = 1.0
APPLYSET_ANNOTATION = f"{COLLECTION}/applyset"


class LockFailed(KubeError):
    """The lock could not be taken in time, or was lost while the run held it."""


def holder_identity(now: datetime.datetime | None = None) -> str:
    """Who holds the lock: user, host, process, start time, and the AWX/AAP job when the job environment names it."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = str(os.getuid())
    started = (now or datetime.datetime.now(datetime.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    identity = f"{user}@{socket.gethostname()} pid {os.getpid()} since {started}"
    job = os.environ.get("JOB_ID") or os.environ.get("AWX_JOB_ID")
    return identity + (f" (AWX job {job})" if job else "")


def _micro_time() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class ApplySetLock:
    """``with ApplySetLock(connection, namespace, parent, timeout):`` holds the lock for the block."""

    def __init__(self, connection: Connection, namespace: str, parent: str, timeout: float, *,
                 identity: str | None = None, lease_seconds: int = LEASE_SECONDS,
                 clock: t.Callable[[], float] = time.monotonic, sleep: t.Callable[[float], None] = time.sleep) -> None:
        self.connection = connection
        self.namespace = namespace
        self.parent = parent
        self.name = lease_name(parent)
        self.timeout = timeout
        self.identity = identity or holder_identity()
        self.lease_seconds = lease_seconds
        self._clock = clock
        self._sleep = sleep
        self._lease: dict[str, t.Any] | None = None
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self.lost: str = ""
        self.release_problem = ""   # why the Lease could not be deleted at the end, if it could not
        self.waited = 0.0
        self.waited_for = ""      # the holder this run waited for, if any

    @property
    def _collection(self) -> str:
        return f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases"

    def _body(self, resource_version: str | None = None) -> dict[str, t.Any]:
        now = _micro_time()
        metadata: dict[str, t.Any] = {"name": self.name, "namespace": self.namespace,
                                      "annotations": {APPLYSET_ANNOTATION: f"ConfigMap {self.namespace}/{self.parent}"},
                                      "labels": {"app.kubernetes.io/managed-by": COLLECTION}}
        if resource_version:
            metadata["resourceVersion"] = resource_version
        return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": metadata,
                "spec": {"holderIdentity": self.identity, "leaseDurationSeconds": self.lease_seconds,
                         "acquireTime": now, "renewTime": now}}

    def acquire(self) -> None:
        start = self._clock()
        observed: tuple[str, float] | None = None   # (resourceVersion, when this client first saw it)
        # Most often no run holds the lock and the Lease does not exist: create it straight away (a 409 says it
        # exists, and it is then read).
        taken = self._write("POST", self._collection, self._body())
        while not taken:
            try:
                lease = self.connection.request("GET", f"{self._collection}/{self.name}", counts_as_write=False)
            except KubeError as exc:
                if exc.status != 404:
                    raise LockFailed(f"cannot read the apply-set lock Lease {self.namespace}/{self.name}: {exc}",
                                     exc.status) from None
                taken = self._write("POST", self._collection, self._body())
                continue
            spec = lease.get("spec") or {}
            holder = spec.get("holderIdentity") or ""
            version = lease["metadata"].get("resourceVersion", "")
            now = self._clock()
            if observed is None or observed[0] != version:
                observed = (version, now)
            silent = now - observed[1]
            if not holder or silent >= float(spec.get("leaseDurationSeconds") or self.lease_seconds):
                # Free, or its holder stopped renewing (a killed run): take it over, unless another run is quicker.
                taken = self._write("PUT", f"{self._collection}/{self.name}", self._body(version))
                if taken and holder:
                    self.waited_for = f"{holder} (stopped renewing)"
                continue
            if now - start >= self.timeout:
                raise LockFailed(f"apply set ConfigMap {self.namespace}/{self.parent} is locked by {holder} (Lease "
                                 f"{self.name}, renewed {spec.get('renewTime', '?')}); waited {self.timeout:.0f} s "
                                 "(lock_timeout): another run is writing this apply set", 409)
            self.waited_for = holder
            self._sleep(POLL_SECONDS)
        self.waited = self._clock() - start
        self._renewer = threading.Thread(target=self._renew_loop, name="applyset-lock", daemon=True)
        self._renewer.start()

    def _write(self, method: str, path: str, body: dict[str, t.Any]) -> bool:
        """Create or take over the Lease; False when another run won the race (409: look again)."""
        try:
            lease = self.connection.request(method, path, body=body, retry=False)
        except KubeError as exc:
            if exc.status == 409:
                return False
            raise LockFailed(f"cannot take the apply-set lock Lease {self.namespace}/{self.name}: {exc}",
                             exc.status) from None
        with self._guard:
            self._lease = lease
        return True

    def _renew_loop(self) -> None:
        while not self._stop.wait(RENEW_SECONDS):
            with self._guard:
                current = self._lease
            if current is None:
                return
            body = dict(current, spec=dict(current["spec"], renewTime=_micro_time()))
            try:
                renewed = self.connection.request("PUT", f"{self._collection}/{self.name}", body=body, retry=False)
            except KubeError as exc:
                self.lost = f"the apply-set lock Lease {self.namespace}/{self.name} could not be renewed: {exc}"
                return
            with self._guard:
                self._lease = renewed

    def verify(self) -> None:
        """Raise if the lock was lost (not renewed in time): what the run was about to do is no longer safe."""
        if self.lost:
            raise LockFailed(self.lost)

    def release(self) -> None:
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        with self._guard:
            lease, self._lease = self._lease, None
        if lease is None or self.lost:
            return
        # Only the Lease this run holds (a taken-over one has another resourceVersion); if it is gone or taken over,
        # it belongs to the new holder.
        try:
            self.connection.request(
                "DELETE", f"{self._collection}/{self.name}", retry=False,
                body={"apiVersion": "v1", "kind": "DeleteOptions",
                      "preconditions": {"uid": lease["metadata"]["uid"],
                                        "resourceVersion": lease["metadata"]["resourceVersion"]}})
        except KubeError as exc:
            if exc.status not in (404, 409):   # gone, or taken over: the new holder's now
                self.release_problem = (f"the apply-set lock Lease {self.namespace}/{self.name} could not be "
                                        f"deleted ({exc}); the next run waits until it expires "
                                        f"({self.lease_seconds} s)")

    def __enter__(self) -> ApplySetLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
