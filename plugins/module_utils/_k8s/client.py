# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One HTTP client per module call: connection set-up, retries, request counting.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import collections
import json
import random
import re
import threading
import time
import typing as t
from urllib.parse import quote, urlencode, urlsplit

from .._common.errors import ClusterFailed
from .._common.names import COLLECTION
from . import kubeconfig as _kubeconfig
from . import proxies
from . import transport as _transport
from .endpoints import endpoint, impersonation_headers
from .kubeconfig import KubeconfigError
from .transport import TransportError, transport

# urllib3 or PyYAML missing: reported by the modules with missing_required_lib (the kubernetes package brings both).
KUBERNETES_IMPORT_ERROR: ImportError | None = _transport.IMPORT_ERROR or _kubeconfig.IMPORT_ERROR

RETRIABLE_STATUS = frozenset({409, 429, 500, 502, 503, 504})
# 429s retried on top of the retries (client-go retries them ten times); the call's time limit still bounds them.
THROTTLED_RETRIES = 10
# How long a bearer token is reused before the kubeconfig loader is asked again. The loader renews exec/OIDC tokens
# five minutes before they expire, and asking it on every request costs more than some requests themselves.
TOKEN_REUSE_SECONDS = 10.0
_FORBIDDEN = re.compile(r'User "(?P<user>[^"]*)" cannot (?P<verb>\S+) resource "(?P<resource>[^"]*)"'
                        r'(?: in API group "(?P<group>[^"]*)")?(?: in the namespace "(?P<ns>[^"]*)")?')


class KubeError(ClusterFailed):
    """An API request failed; status is the HTTP status (0 when the server could not be reached)."""

    def __init__(self, message: str, status: int = 0, body: dict[str, t.Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body or {}

    @property
    def causes(self) -> list[dict[str, t.Any]]:
        return list((self.body.get("details") or {}).get("causes") or [])


class Unreachable(KubeError):
    """The API server did not answer (connection refused, timeout, TLS failure). ``sent``: the last attempt's request
    may have reached the server, so a write it carried may have happened."""

    def __init__(self, message: str, sent: bool = False) -> None:
        super().__init__(message)
        self.sent = sent


class DeadlineExceeded(KubeError):
    """The call's total time limit ran out."""


# gzip as client-go asks for it (Go's transport does unless DisableCompression): kube-apiserver compresses an answer
# over 128 KiB only (k8s.io/apiserver pkg/endpoints/handlers/responsewriters/writers.go, defaultGzipThresholdBytes,
# at level 1), so a LIST of thousands of objects crosses the network in a fourteenth of its size; the transport
# decompresses it (transport.py: decoded).
ACCEPT_ENCODING = ("Accept-Encoding", "gzip")

# The body as UTF-8 JSON, as Go's encoding/json writes it for kubectl: the API server reads an apply body as YAML,
# which takes a character outside the Basic Multilingual Plane as itself but not as the \\ud83d\\ude00 pair that
# ensure_ascii would write.
_BODY = json.JSONEncoder(ensure_ascii=False)
# A path segment as Go's net/url escapes it (url.go, shouldEscape, encodePath) for client-go: an object's name may
# be any text the server accepts (a custom resource's has no pattern), and the request line is ASCII.
_PATH_SAFE = "/$&+,:;=@"
_PLAIN_PATH = re.compile(r"[A-Za-z0-9/._~:@$&+,;=-]*")


def _payload(body: t.Any, method: str, path: str) -> bytes:
    """The body as sent: bytes as given, text and objects as UTF-8 (objects as JSON)."""
    if isinstance(body, bytes):
        return body
    try:
        return (body if isinstance(body, str) else _BODY.encode(body)).encode("utf-8")
    except UnicodeEncodeError as exc:   # a lone surrogate (\ud800 in the input): no UTF-8 can carry it
        raise KubeError(f"{method} {path}: the object holds text that is not valid Unicode "
                        f"({exc.object[exc.start:exc.end]!a} at character {exc.start} of its JSON), which cannot be "
                        "sent") from None


def _escaped(path: str) -> str:
    """The path's segments percent-encoded; a query a caller wrote into it (``?labelSelector=...``) is already
    encoded and stays as it is."""
    route, mark, written = path.partition("?")
    return quote(route, safe=_PATH_SAFE) + mark + written


# Answers a retry cannot change: refused credentials or rights, an endpoint that does not exist, an invalid object.
PERMANENT_STATUS = frozenset({400, 401, 403, 404, 405, 415, 422})


def forbidden_message(body: t.Mapping[str, t.Any], method: str, path: str) -> str:
    """'user X cannot VERB RESOURCE in NS' from a 403 Status, falling back to the server's own text."""
    text = str(body.get("message") or "")
    match = _FORBIDDEN.search(text)
    if not match:
        return f"forbidden: {method} {path}: {text}".rstrip(": ")
    resource = match["resource"]
    if match["group"]:
        resource = f"{resource}.{match['group']}"
    scope = f"in namespace {match['ns']}" if match["ns"] else "at cluster scope"
    return f"user {match['user']} cannot {match['verb']} {resource} {scope}"


class Counts:
    """What a connection counts, as the calls' results report it."""

    def __init__(self) -> None:
        self.requests: collections.Counter[str] = collections.Counter()
        self.writes = 0   # mutating requests the server accepted (not dry runs, not failed attempts)

    @property
    def request_count(self) -> int:
        return sum(self.requests.values())

    @property
    def write_count(self) -> int:
        """Writes the server accepted (dry runs and failed attempts are not writes)."""
        return self.writes


class Connection(Counts):
    """HTTP access to one API server with the credentials of a kubeconfig context (or explicit host/token)."""

    def __init__(self, *, kubeconfig: str | dict[str, t.Any] | None = None, context: str | None = None,
                 host: str | None = None, api_key: str | None = None,
                 client_cert: str | None = None, client_key: str | None = None,
                 proxy: str | None = None, no_proxy: str | None = None,
                 impersonate_user: str | None = None, impersonate_groups: t.Sequence[str] = (),
                 validate_certs: bool | None = None, ca_cert: str | None = None,
                 request_timeout: float = 30.0, retries: int = 5, backoff: float = 0.5,
                 timeout: float | None = None,
                 sleep: t.Callable[[float], None] = time.sleep) -> None:
        if KUBERNETES_IMPORT_ERROR is not None:
            raise KUBERNETES_IMPORT_ERROR
        # kubernetes.core's options, over what the kubeconfig says.
        try:
            target, self._renewed = endpoint(kubeconfig, context, host, {
                "server": host, "authorization": f"Bearer {api_key}" if api_key else None,
                "cert_file": client_cert, "key_file": client_key, "proxy": proxy,
                "insecure": None if validate_certs is None else not validate_certs, "ca_file": ca_cert}, no_proxy)
        except KubeconfigError as exc:
            raise KubeError(str(exc)) from None
        if impersonate_user or impersonate_groups:   # the options replace the kubeconfig user's as and as-groups
            target = target.but(impersonate_user=impersonate_user or None, impersonate_uid=None,
                                impersonate_groups=tuple(impersonate_groups), impersonate_extra=())
        self._impersonation = impersonation_headers(target)
        self.endpoint = target
        try:
            self.transport = transport(target, maxsize=64)   # idle connections kept (concurrency)
        except TransportError as exc:
            raise KubeError(str(exc)) from None
        self._host = target.server
        self._path_prefix = urlsplit(self._host).path   # a server behind a path (Rancher's /k8s/clusters/<id>)
        self.request_timeout = request_timeout
        self.retries = retries
        self.backoff = backoff
        self._sleep = sleep
        super().__init__()
        self._count_lock = threading.Lock()
        self._queries: dict[tuple[tuple[str, t.Any], ...], str] = {}
        self._token: tuple[float, str | None] | None = None   # (when asked, Authorization header value)
        self.deadline = time.monotonic() + timeout if timeout else None
        self.timeout = timeout

    @property
    def host(self) -> str:
        return self._host

    def _remaining(self, method: str, path: str) -> float | None:
        if self.deadline is None:
            return None
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise DeadlineExceeded(f"the call's time limit of {self.timeout:g} s ran out before {method} {path}")
        return remaining

    def request(self, method: str, path: str, *, query: t.Mapping[str, t.Any] | None = None,
                body: t.Any = None, content_type: str = "application/json",
                accept: str = "application/json", retry: bool = True, counts_as_write: bool = True) -> t.Any:
        """Send one request and return the decoded JSON; retries 409/429/5xx and connection errors with backoff."""
        return self.exchange(method, path, query=query, body=body, content_type=content_type, accept=accept,
                             retry=retry, counts_as_write=counts_as_write)[1]

    def exchange(self, method: str, path: str, *, query: t.Mapping[str, t.Any] | None = None,
                 body: t.Any = None, content_type: str = "application/json",
                 accept: str = "application/json", retry: bool = True,
                 counts_as_write: bool = True) -> tuple[int, t.Any]:
        """As request, with the HTTP status of the answer (an apply that created its object answers 201)."""
        # One loop of attempts: its branches (TLS, connection, 429, retriable statuses) share the attempt counter
        # and the call's deadline, which splitting it would pass around.
        target = self._path_prefix + (path if _PLAIN_PATH.fullmatch(path) else _escaped(path))
        if query:
            target += ("&" if "?" in path else "?") + self._query_string(query)
        headers = [("Accept", accept), ACCEPT_ENCODING, ("User-Agent", COLLECTION), *self._impersonation]
        token = self._bearer()
        if token:
            headers.append(("Authorization", token))
        payload = None if body is None else _payload(body, method, path)
        if payload is not None:
            headers.append(("Content-Type", content_type))
        attempts = self.retries + 1 if retry else 1
        dry_run = bool(query and query.get("dryRun"))
        throttled = 0
        sent = False   # whether any attempt's request may have reached the server
        attempt = -1
        while attempt + 1 < attempts:
            attempt += 1
            remaining = self._remaining(method, path)
            with self._count_lock:
                self.requests[method] += 1
            limit = self.request_timeout if remaining is None else min(self.request_timeout, remaining)
            try:
                status, header, raw = self.transport.send(method, target, payload, headers, limit)
            except TransportError as exc:
                if exc.tls:   # a certificate the client does not trust stays untrusted: no retry
                    raise Unreachable(f"TLS verification of {self._host} failed: {exc} (set ca_cert to the "
                                      "cluster's CA, or validate_certs: false for a test cluster)") from None
                sent = sent or exc.sent
                if exc.refused:
                    raise Unreachable(f"cannot reach the API server {self._host}: {exc} ({self._proxy_named()})"
                                      ) from None
                if attempt + 1 < attempts:
                    self._pause(self._delay(attempt, None), method, path)
                    continue
                raise Unreachable(f"API server {self._host} is unreachable: {exc}", sent=sent) from None
            data = _decode(raw)
            if status < 400:
                if method in ("POST", "PUT", "PATCH", "DELETE") and not dry_run and counts_as_write:
                    with self._count_lock:
                        self.writes += 1
                return status, data
            if status == 429 and retry and throttled < THROTTLED_RETRIES:
                # Priority and fairness turned the request away: not a failure of the server, so it does not use up
                # the retries. Wait as told, spread out so the turned-away requests do not all come back at once.
                throttled += 1
                attempt -= 1
                delay = self._delay(0, header("Retry-After"))
                self._pause(delay + random.uniform(0, min(delay, 1.0)), method, path)
                continue
            if _retriable(status, data) and attempt + 1 < attempts:
                self._pause(self._delay(attempt, header("Retry-After")), method, path)
                continue
            raise self._error(status, data, method, path, self._host, self._proxy_named())
        raise AssertionError("unreachable")  # pragma: no cover

    def _query_string(self, query: t.Mapping[str, t.Any]) -> str:
        """The encoded query, kept for the next request with the same one (each object's dry run and apply send
        the same few queries, and encoding one is not free). A query with a list value is encoded each time."""
        key = tuple(query.items())
        try:
            cached = self._queries.get(key)
        except TypeError:   # unhashable: a list of values
            cached, key = None, ()
        if cached is not None:
            return cached
        encoded = urlencode({k: v for k, v in query.items() if v is not None}, doseq=True)
        if key and len(self._queries) < 64:
            self._queries[key] = encoded
        return encoded

    def _bearer(self) -> str | None:
        """The Authorization header value: the static one, or the one the kubeconfig loader gives (it renews exec
        and OIDC tokens), asked again after TOKEN_REUSE_SECONDS."""
        if self._renewed is None:
            return self.endpoint.authorization
        now = time.monotonic()
        cached = self._token
        if cached is None or now - cached[0] >= TOKEN_REUSE_SECONDS:
            cached = self._token = (now, self._renewed())
        return cached[1]

    def _pause(self, seconds: float, method: str, path: str) -> None:
        remaining = self._remaining(method, path)
        self._sleep(seconds if remaining is None else min(seconds, remaining))

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after and retry_after.isdigit():
            return min(float(retry_after), 10.0)
        return min(self.backoff * (2 ** attempt), 8.0)

    def _proxy_named(self) -> str:
        """The proxy and what chose it, for a message ("" when there is none)."""
        if not self.endpoint.proxy:
            return ""
        return f"proxy {proxies.shown(self.endpoint.proxy)} from {self.endpoint.proxy_source}"

    @staticmethod
    def _error(status: int, data: t.Any, method: str, path: str, host: str = "", proxy: str = "") -> KubeError:
        if isinstance(data, dict) and data.get("kind") == "Status":
            if status == 403:
                return KubeError(forbidden_message(data, method, path), status, data)
            if status == 401:
                return KubeError(f"the API server {host} refused the credentials (HTTP 401 Unauthorized): "
                                 "the token or certificate is not valid there", status, data)
            message = str(data.get("message") or "") or f"{method} {path}: HTTP {status} {data.get('reason') or ''}"
            return KubeError(message.strip(), status, data)
        # Not a Kubernetes Status: a proxy, a web page, or not an API server at all.
        check = f"is the server address right, and does the {proxy} reach it?" if proxy else \
            "is the server address right?"
        return KubeError(f"{method} {host}{path}: HTTP {status} from something that is not a Kubernetes API server "
                         f"({check}): {_summary_line(data)}", status,
                         {"message": _summary_line(data)})


def _summary_line(data: t.Any) -> str:
    """One readable line of an unexpected answer (HTML tags and blank space removed)."""
    text = json.dumps(data) if isinstance(data, (dict, list)) else str(data or "(empty answer)")
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", text, flags=re.S | re.I)
    text = re.sub(r"<[^>]+>", " ", text)
    text = " ".join(text.split())
    return text[:160] + ("..." if len(text) > 160 else "")


def webhook_failure(data: t.Any) -> str | None:
    """The name of the admission webhook whose call failed (it timed out, refused the connection or answered
    nonsense), from the API server's Status; None for any other answer. The API server waited the webhook's own
    timeoutSeconds before answering, and would wait it again on every retry: these are not retried."""
    message = str(data.get("message") or "") if isinstance(data, dict) else ""
    match = _WEBHOOK_FAILED.search(message)
    return match["name"] if match else None


# kubernetes/kubernetes release-1.34, staging/src/k8s.io/apiserver/pkg/util/webhook/error.go, ErrCallingWebhook.Error
_WEBHOOK_FAILED = re.compile(r'failed calling webhook "(?P<name>[^"]+)"')


def _retriable(status: int, data: t.Any) -> bool:
    """409/429/5xx are retried, except a server-side apply field conflict and a failed webhook call, which a retry
    cannot resolve (the second waits as long as the first)."""
    if status in PERMANENT_STATUS or status not in RETRIABLE_STATUS:
        return False
    if status == 409 and isinstance(data, dict):
        causes = (data.get("details") or {}).get("causes") or []
        # metav1.StatusCause serialises its Type as "reason".
        return not any(c.get("reason") == "FieldManagerConflict" for c in causes)
    message = str(data.get("message") or "") if isinstance(data, dict) else ""
    # A 500 for an apply body that does not fit the schema is an answer about the object, not the server.
    return webhook_failure(data) is None and not message.startswith(_TYPED_PATCH)


# kubernetes/kubernetes release-1.34, staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/
# structuredmerge.go, structuredMergeManager.Apply: the error server-side apply returns (as a 500) when the applied
# object does not fit the type's schema.
_TYPED_PATCH = "failed to create typed patch object"


def _decode(raw: bytes) -> t.Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw.decode("utf-8", "replace")
