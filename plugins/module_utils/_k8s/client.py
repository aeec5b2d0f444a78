# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One HTTP client per module call: connection set-up, retries, request counting.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import random
import re
import ssl
import tempfile
import threading
import time
import typing as t
from urllib.parse import urlencode, urlsplit

from .kubeconfig import Endpoint, KubeconfigError, default_paths, read

try:
    import urllib3
    from urllib3._collections import HTTPHeaderDict  # urllib3 1.26 and 2.x (2.x also exports it at the top)
    from urllib3.util.ssl_ import create_urllib3_context
except ImportError as exc:  # reported by the module with missing_required_lib (the kubernetes package brings it)
    KUBERNETES_IMPORT_ERROR: ImportError | None = exc
else:
    KUBERNETES_IMPORT_ERROR = None

RETRIABLE_STATUS = frozenset({409, 429, 500, 502, 503, 504})
# 429s retried on top of the retries (client-go retries them ten times); the call's time limit still bounds them.
THROTTLED_RETRIES = 10
# How long a bearer token is reused before the kubeconfig loader is asked again. The loader renews exec/OIDC tokens
# five minutes before they expire, and asking it on every request costs more than some requests themselves.
TOKEN_REUSE_SECONDS = 10.0
_FORBIDDEN = re.compile(r'User "(?P<user>[^"]*)" cannot (?P<verb>\S+) resource "(?P<resource>[^"]*)"'
                        r'(?: in API group "(?P<group>[^"]*)")?(?: in the namespace "(?P<ns>[^"]*)")?')


class KubeError(Exception):
    """An API request failed; status is the HTTP status (0 when the server could not be reached)."""

    def __init__(self, message: str, status: int = 0, body: dict[str, t.Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body or {}

    @property
    def causes(self) -> list[dict[str, t.Any]]:
        return list((self.body.get("details") or {}).get("causes") or [])


class Unreachable(KubeError):
    """The API server did not answer (connection refused, timeout, TLS failure)."""


class DeadlineExceeded(KubeError):
    """The call's total time limit ran out."""


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


def endpoint(kubeconfig: str | dict[str, t.Any] | None, context: str | None, host: str | None,
             overrides: t.Mapping[str, t.Any]) -> tuple[Endpoint, t.Callable[[], str | None] | None]:
    """The server and credentials: the kubeconfig's (none when only a host is given) with the explicit options over
    them; and, for a user whose token a program gives (exec, auth-provider), where to ask for the current one."""
    try:
        found = Endpoint(server="") if host and not kubeconfig else read(kubeconfig, context)
    except KubeconfigError as exc:
        raise KubeError(str(exc)) from None
    renewed = None
    if found.plugin:
        found, renewed = _from_library(kubeconfig, context, found)
    changes = {name: value for name, value in overrides.items() if value is not None and value != ""}
    if "server" in changes:
        changes["server"] = changes["server"].rstrip("/")
    if "ca_file" in changes:
        changes["ca_data"] = None
    if "cert_file" in changes:
        changes["cert_data"] = None
    if "key_file" in changes:
        changes["key_data"] = None
    if "authorization" in changes:
        renewed = None
    found = found.but(**changes)
    if not found.server:
        raise KubeError("no API server: set host, or kubeconfig with a cluster's server")
    return found, renewed


def _from_library(kubeconfig: str | dict[str, t.Any] | None, context: str | None, found: Endpoint
                  ) -> tuple[Endpoint, t.Callable[[], str | None]]:
    """A user whose credentials a program gives: the kubernetes client library's kubeconfig loader runs it (and
    again when the token it gave expires), as kubectl would."""
    try:
        from kubernetes import client as k8s_client
        from kubernetes import config as k8s_config
        from kubernetes.config.config_exception import ConfigException
    except ImportError as exc:
        raise KubeError(f"the kubeconfig's user has {found.plugin} credentials, which need the kubernetes Python "
                        f"package: {exc}") from None
    configuration = k8s_client.Configuration()
    try:
        if isinstance(kubeconfig, dict):
            k8s_config.load_kube_config_from_dict(kubeconfig, context=context, client_configuration=configuration)
        else:
            k8s_config.load_kube_config(config_file=kubeconfig or default_paths(), context=context,
                                        client_configuration=configuration)
    except (ConfigException, OSError) as exc:
        raise KubeError(f"cannot load kubeconfig: {exc}") from exc

    def renewed() -> str | None:
        bearer = configuration.auth_settings().get("BearerToken")
        return bearer.get("value") if bearer else None

    # An exec plugin may give a client certificate instead of a token.
    return found.but(cert_file=configuration.cert_file or found.cert_file,
                     key_file=configuration.key_file or found.key_file), renewed


def pool_manager(target: Endpoint, no_proxy: str | None, maxsize: int) -> t.Any:
    """urllib3's pool (through the proxy unless no_proxy names the server), with one TLS context for every
    connection: as the kubernetes client library builds it (client/rest.py, RESTClientObject), except that embedded
    client keys are loaded from a file that exists only while they are read."""
    args: dict[str, t.Any] = {"maxsize": maxsize}
    if target.server.startswith("https"):
        args["ssl_context"] = _tls(target)
        args["cert_reqs"] = "CERT_NONE" if target.insecure else "CERT_REQUIRED"
        if target.tls_server_name:
            args["server_hostname"] = target.tls_server_name
    if target.proxy and not _bypasses_proxy(target.server, no_proxy or ""):
        if target.proxy.split("://")[0].lower() in ("socks4", "socks4a", "socks5", "socks5h"):
            from urllib3.contrib.socks import SOCKSProxyManager
            return SOCKSProxyManager(target.proxy, **args)
        return urllib3.ProxyManager(target.proxy, **args)
    return urllib3.PoolManager(**args)


def _tls(target: Endpoint) -> ssl.SSLContext:
    for what, path in (("CA certificate", target.ca_file), ("client certificate", target.cert_file),
                       ("client key", target.key_file)):
        if path and not os.path.isfile(path):
            raise KubeError(f"{what} {path}: no such file")
    context = create_urllib3_context(cert_reqs=ssl.CERT_NONE if target.insecure else ssl.CERT_REQUIRED)
    try:
        if target.insecure:
            pass
        elif target.ca_file or target.ca_data:
            data = target.ca_data
            # PEM as text, anything else as DER bytes (what ssl reads from each).
            context.load_verify_locations(cafile=target.ca_file, cadata=data.decode("ascii", "replace")
                                          if data and data.lstrip().startswith(b"-----") else data)
        else:
            context.load_default_certs()
        if target.cert_file or target.cert_data:
            with _pem_files(target) as (cert_file, key_file):
                context.load_cert_chain(cert_file, key_file)
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise KubeError(f"cannot use the TLS settings for {target.server}: {exc}") from None
    return context


@contextlib.contextmanager
def _pem_files(target: Endpoint) -> t.Iterator[tuple[str, str | None]]:
    """Certificate and key as files, for ssl's load_cert_chain: embedded ones written to a private directory that
    is removed as soon as they are loaded."""
    with tempfile.TemporaryDirectory(prefix="virtinfra-tls-") as private:
        cert_file, key_file = target.cert_file, target.key_file
        for name, data in (("cert", target.cert_data), ("key", target.key_data)):
            if data:
                path = os.path.join(private, name)
                with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as stream:
                    stream.write(data)
                cert_file, key_file = (path, key_file) if name == "cert" else (cert_file, path)
        yield t.cast(str, cert_file), key_file


def _bypasses_proxy(url: str, no_proxy: str) -> bool:
    """Whether no_proxy (comma-separated hosts, domains, host:port or CIDRs) names the server."""
    import ipaddress

    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if entry == "*":
            return True
        if not entry:
            continue
        if address is not None:
            with contextlib.suppress(ValueError):
                if address in ipaddress.ip_network(entry, strict=False):
                    return True
        entry = entry.lstrip(".")
        if entry in (host, parts.netloc.lower()) or host.endswith("." + entry) or parts.netloc.endswith("." + entry):
            return True
    return False


class Connection:
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
        target, self._renewed = endpoint(kubeconfig, context, host, {
            "server": host, "authorization": f"Bearer {api_key}" if api_key else None,
            "cert_file": client_cert, "key_file": client_key, "proxy": proxy,
            "insecure": None if validate_certs is None else not validate_certs, "ca_file": ca_cert})
        # Kubernetes' user impersonation headers (k8s.io/client-go transport, ImpersonationConfig).
        self._impersonation: list[tuple[str, str]] = (
            ([("Impersonate-User", impersonate_user)] if impersonate_user else [])
            + [("Impersonate-Group", group) for group in impersonate_groups])
        self.endpoint = target
        self._pool = pool_manager(target, no_proxy, maxsize=64)   # one connection per worker (the concurrency option)
        self._host = target.server
        # Every request goes to one host: without a proxy, its connection pool is used directly, which saves the
        # pool manager's URL parsing and pool lookup on each of them (a fifth of the client's CPU per request).
        self._host_pool = (self._pool.connection_from_url(self._host)
                           if type(self._pool) is urllib3.PoolManager else None)
        parts = urlsplit(self._host)
        self._origin = f"{parts.scheme}://{parts.netloc}"
        self._path_prefix = parts.path   # a server behind a path (Rancher's /k8s/clusters/<id>)
        self.request_timeout = request_timeout
        self.retries = retries
        self.backoff = backoff
        self._sleep = sleep
        self.requests: collections.Counter[str] = collections.Counter()
        self.dry_runs = 0
        self.writes = 0   # mutating requests the server accepted (not dry runs, not failed attempts)
        self._count_lock = threading.Lock()
        self._token: tuple[float, str | None] | None = None   # (when asked, Authorization header value)
        self.deadline = time.monotonic() + timeout if timeout else None
        self.timeout = timeout

    @property
    def host(self) -> str:
        return self._host

    @property
    def request_count(self) -> int:
        return sum(self.requests.values())

    @property
    def write_count(self) -> int:
        """Writes the server accepted (dry runs and failed attempts are not writes)."""
        return self.writes

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
        target = self._path_prefix + path
        if query:
            target += "?" + urlencode({k: v for k, v in query.items() if v is not None}, doseq=True)
        headers = HTTPHeaderDict({"Accept": accept, "User-Agent": "virtinfra.hyperconverged"})
        for name, value in self._impersonation:   # one header per group, as the API server reads them
            headers.add(name, value)
        token = self._bearer()
        if token:
            headers["Authorization"] = token
        payload = None
        if body is not None:
            headers["Content-Type"] = content_type
            payload = body if isinstance(body, (str, bytes)) else json.dumps(body)
        attempts = self.retries + 1 if retry else 1
        dry_run = bool(query and query.get("dryRun"))
        throttled = 0
        attempt = -1
        while attempt + 1 < attempts:
            attempt += 1
            remaining = self._remaining(method, path)
            with self._count_lock:
                self.requests[method] += 1
                if dry_run:
                    self.dry_runs += 1
            limit = self.request_timeout if remaining is None else min(self.request_timeout, remaining)
            try:
                timeout = urllib3.Timeout(total=limit)
                if self._host_pool is not None:
                    response = self._host_pool.request(method, target, body=payload, headers=headers,
                                                       timeout=timeout, retries=False, preload_content=True)
                else:
                    response = self._pool.request(method, self._origin + target, body=payload, headers=headers,
                                                  timeout=timeout, retries=False, preload_content=True)
            except urllib3.exceptions.SSLError as exc:
                # A certificate the client does not trust stays untrusted: no retry.
                raise Unreachable(f"TLS verification of {self._host} failed: {_reason(exc)} (set ca_cert to the "
                                  "cluster's CA, or validate_certs: false for a test cluster)") from None
            except urllib3.exceptions.HTTPError as exc:
                if attempt + 1 < attempts:
                    self._pause(self._delay(attempt, None), method, path)
                    continue
                raise Unreachable(f"API server {self._host} is unreachable: {_reason(exc)}") from None
            data = _decode(response.data)
            if response.status < 400:
                if method in ("POST", "PUT", "PATCH", "DELETE") and not dry_run and counts_as_write:
                    with self._count_lock:
                        self.writes += 1
                return response.status, data
            if response.status == 429 and retry and throttled < THROTTLED_RETRIES:
                # Priority and fairness turned the request away: not a failure of the server, so it does not use up
                # the retries. Wait as told, spread out so the turned-away requests do not all come back at once.
                throttled += 1
                attempt -= 1
                delay = self._delay(0, response.headers.get("Retry-After"))
                self._pause(delay + random.uniform(0, min(delay, 1.0)), method, path)
                continue
            if _retriable(response.status, data) and attempt + 1 < attempts:
                self._pause(self._delay(attempt, response.headers.get("Retry-After")), method, path)
                continue
            raise self._error(response.status, data, method, path, self._host)
        raise AssertionError("unreachable")  # pragma: no cover

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

    @staticmethod
    def _error(status: int, data: t.Any, method: str, path: str, host: str = "") -> KubeError:
        if isinstance(data, dict) and data.get("kind") == "Status":
            if status == 403:
                return KubeError(forbidden_message(data, method, path), status, data)
            if status == 401:
                return KubeError(f"the API server {host} refused the credentials (HTTP 401 Unauthorized): "
                                 "the token or certificate is not valid there", status, data)
            message = str(data.get("message") or "") or f"{method} {path}: HTTP {status} {data.get('reason') or ''}"
            return KubeError(message.strip(), status, data)
        # Not a Kubernetes Status: a proxy, a web page, or not an API server at all.
        return KubeError(f"{method} {host}{path}: HTTP {status} from something that is not a Kubernetes API server "
                         f"(is the server address right?): {_summary_line(data)}", status,
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
    except ValueError:
        return raw.decode("utf-8", "replace")


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or exc
    return str(reason).split(": ", 1)[-1] if "Connection refused" not in str(reason) else "connection refused"
