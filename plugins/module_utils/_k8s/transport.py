# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sending one HTTP request to the API server and reading its answer: the TLS context (built once per call), then
keep-alive connections straight to the server, or urllib3's pool through a proxy. PRIVATE.

Straight to the server, the workers share keep-alive connections: the request written in one piece (request.py),
the answer read off a buffer kept with the connection (response.py). A request through urllib3's pool costs about
twice the CPU of one on a plain connection (its retry, timeout and response objects, built for every request), and a
from-empty apply sends two requests per object.
An answer the server gzipped (client.py asks for it, as client-go does) is read decompressed: by ``decoded`` here,
by urllib3 through a proxy. Retries, timeouts and errors stay with the caller (client.Connection.exchange), for both.
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import importlib.util
import os
import re
import select
import socket
import ssl
import sys
import tempfile
import threading
import typing as t
import zlib
from urllib.parse import unquote, urlsplit, urlunsplit

from .._common.errors import ClusterFailed
from .kubeconfig import Endpoint
from .proxies import shown
from .request import host_header, request_bytes
from .response import MAX_ANSWER_BYTES, Stream, read_answer, refuse_past

# urllib3 is imported only for a proxy: importing it compiles its URL patterns, in ansible-playbook's process,
# where every run of a cluster module loads this file. Whether it is there is
# still checked up front, so the cluster modules report a missing package (client.KUBERNETES_IMPORT_ERROR) the same
# way whatever the endpoint.
IMPORT_ERROR: ImportError | None = None
if importlib.util.find_spec("urllib3") is None:
    IMPORT_ERROR = ImportError("No module named 'urllib3'", name="urllib3")

Headers = t.Sequence[tuple[str, str]]
# t.Optional, not X | None: ansible-test sanity's pylint reads | in a module-level alias as an unsupported operation.
Answer = tuple[int, t.Callable[[str], t.Optional[str]], bytes]  # noqa: UP045  (status, header lookup, body)


class TransportError(ClusterFailed):
    """No answer: the connection failed, timed out or broke. ``tls``: the server's certificate was not trusted.
    ``refused``: something on the way answered no (a proxy refused the tunnel), which trying again does not change.
    ``sent``: the request may have reached the server (its bytes were written), so a write may have happened."""

    def __init__(self, reason: str, tls: bool = False, refused: bool = False, sent: bool = True) -> None:
        super().__init__(reason)
        self.tls = tls
        self.refused = refused
        self.sent = sent


class Setup(t.Protocol):
    def send(self, method: str, target: str, body: bytes | None, headers: Headers, timeout: float) -> Answer:
        """One request; the status, a header lookup and the body of the answer."""


def transport(endpoint: Endpoint, maxsize: int) -> Setup:
    """Straight to the server, or through the endpoint's proxy (proxies.py chose it)."""
    context = _tls(endpoint) if endpoint.server.startswith("https") else None
    if endpoint.proxy:
        return Proxied(endpoint, context, maxsize)
    return Direct(endpoint, context, maxsize)


class Direct:
    """Keep-alive connections straight to the server, shared by the call's workers: a request takes an idle one (or
    opens one) and gives it back when the answer is read, so the next step's workers reuse them instead of
    shaking hands again (each step has its own thread pool). The request is written in one piece (request.py) and
    the answer read off the connection's own buffer (response.py)."""

    def __init__(self, endpoint: Endpoint, context: ssl.SSLContext | None, maxsize: int) -> None:
        parts = urlsplit(endpoint.server)
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._host_header = host_header(self._host, self._port, 443 if context is not None else 80)
        self._context = context
        self._server_name = endpoint.tls_server_name or self._host
        self._idle: list[Stream] = []
        self._lock = threading.Lock()
        self._maxsize = maxsize

    def send(self, method: str, target: str, body: bytes | None, headers: Headers, timeout: float) -> Answer:
        request = request_bytes(method, target, self._host_header, headers, body)
        stream = None
        sent = False
        try:
            stream = self._take(timeout)
            stream.sock.sendall(request)
            sent = True
            answer = read_answer(stream, method)
            data = decoded(answer.body, answer.headers.get("content-encoding"))
        except ssl.SSLCertVerificationError as exc:
            _close(stream)
            raise TransportError(exc.verify_message or str(exc), tls=True, sent=False) from None
        except (OSError, EOFError, zlib.error, http.client.HTTPException) as exc:
            # A request whose bytes were not all written may still have reached the server whole (TCP delivered
            # them before the error): only one never begun (no connection) is certainly unsent.
            _close(stream)
            raise TransportError(_reason(exc), sent=sent or stream is not None) from None
        if answer.will_close or stream.pending:   # pending: bytes past the answer, so the framing cannot be trusted
            stream.close()
        else:
            self._give_back(stream)
        return answer.status, answer.headers.get, data

    def _take(self, timeout: float) -> Stream:
        while True:
            with self._lock:
                stream = self._idle.pop() if self._idle else None
            if stream is None:
                break
            if not _dropped(stream.sock):
                stream.sock.settimeout(timeout)
                return stream
            stream.close()   # the server closed it while idle: the next one, or a new one, as urllib3 does
        # As http.client connects: TCP with TCP_NODELAY, then TLS checked against tls-server-name when given.
        sock = socket.create_connection((self._host, self._port), timeout)
        try:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError as exc:   # as http.client: a socket without the option is used as it is
                if exc.errno != errno.ENOPROTOOPT:
                    raise
            if self._context is not None:
                sock = self._context.wrap_socket(sock, server_hostname=self._server_name)
        except BaseException:
            sock.close()
            raise
        return Stream(sock)

    def _give_back(self, stream: Stream) -> None:
        with self._lock:
            if len(self._idle) < self._maxsize:
                self._idle.append(stream)
                return
        stream.close()


def _close(stream: Stream | None) -> None:
    if stream is not None:
        stream.close()


class Proxied:
    """urllib3's pool through an HTTP(S) or SOCKS proxy (which it tunnels HTTPS through). Credentials in the proxy's
    URL are sent as Go's transport sends them: Proxy-Authorization, Basic (SOCKS: urllib3 reads them itself)."""

    def __init__(self, endpoint: Endpoint, context: ssl.SSLContext | None, maxsize: int) -> None:
        import urllib3  # here, not at the top (see IMPORT_ERROR)
        from urllib3._collections import HTTPHeaderDict  # 1.26 and 2.x (2.x also exports it at the top)
        self._urllib3, self._headers = urllib3, HTTPHeaderDict
        args: dict[str, t.Any] = {"maxsize": maxsize}
        if context is not None:
            args.update(ssl_context=context, cert_reqs="CERT_NONE" if endpoint.insecure else "CERT_REQUIRED")
            if endpoint.tls_server_name:
                args["server_hostname"] = endpoint.tls_server_name
        proxy = str(endpoint.proxy)
        self._shown = shown(proxy)
        parts = urlsplit(proxy)
        scheme = parts.scheme.lower()
        if scheme in ("socks4", "socks4a", "socks5", "socks5h"):
            try:
                from urllib3.contrib.socks import SOCKSProxyManager
            except ImportError:   # urllib3 speaks SOCKS through PySocks (requirements.txt; an EE has it)
                raise TransportError(f"the proxy {self._shown} is a SOCKS proxy, which needs the PySocks Python "
                                     "package where the module runs (pip install PySocks)", refused=True) from None
            if scheme == "socks5":
                # Go's SOCKS5 dialer (go1.24 net/http/socks_bundle.go, socksDialer.connect) sends the server's
                # name to the proxy, which resolves it: kubectl's socks5:// is urllib3's socks5h://.
                proxy = urlunsplit(parts._replace(scheme="socks5h"))
            self._pool: t.Any = SOCKSProxyManager(proxy, **args)
        else:
            if parts.username is not None:
                credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
                args["proxy_headers"] = urllib3.make_headers(proxy_basic_auth=credentials)
                proxy = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
            self._pool = urllib3.ProxyManager(proxy, **args)
        server = urlsplit(endpoint.server)
        self._origin = f"{server.scheme}://{server.netloc}"

    def send(self, method: str, target: str, body: bytes | None, headers: Headers, timeout: float) -> Answer:
        urllib3 = self._urllib3
        collected = self._headers()
        for name, value in headers:   # one header per impersonated group, as the API server reads them
            collected.add(name, value)
        try:
            response = self._pool.request(method, self._origin + target, body=body, headers=collected,
                                          timeout=urllib3.Timeout(total=timeout), retries=False,
                                          preload_content=False, decode_content=False)
            try:
                data = decoded(_bounded_read(response), response.headers.get("content-encoding"))
            finally:
                response.release_conn()
        except urllib3.exceptions.ProxyError as exc:
            refusal = _TUNNEL_REFUSED.search(str(exc))
            if refusal:   # the proxy's own answer to CONNECT: no request reached the server
                raise TransportError(f"the proxy {self._shown} refused the tunnel to {self._origin}: "
                                     f"{refusal['answer']}", refused=True, sent=False) from None
            raise TransportError(f"the proxy {self._shown} is unreachable: {_reason(exc)}", sent=False) from None
        except urllib3.exceptions.SSLError as exc:
            raise TransportError(_reason(exc), tls=True, sent=False) from None
        except (urllib3.exceptions.HTTPError, OSError, EOFError, zlib.error, http.client.HTTPException) as exc:
            raise TransportError(f"{_reason(exc)} (through the proxy {self._shown})") from None
        return response.status, response.headers.get, data


# CPython Lib/http/client.py, HTTPConnection._tunnel, and urllib3 connection.py, HTTPConnection._tunnel (the same
# text): the proxy's status line when it answers CONNECT with anything but 200.
_TUNNEL_REFUSED = re.compile(r"Tunnel connection failed: (?P<answer>\d{3}[^'\")]*)")


def _bounded_read(response: t.Any) -> bytes:
    """The raw body, refused past MAX_ANSWER_BYTES as response.py refuses a direct answer."""
    pieces, size = [], 0
    for piece in response.stream(_CHUNK, decode_content=False):
        size += len(piece)
        refuse_past(size)
        pieces.append(piece)
    return b"".join(pieces)


_CHUNK = 1 << 16


def decoded(body: bytes, encoding: str | None) -> bytes:
    """The body as the server wrote it: gunzipped when the server compressed it (client.py asks for gzip), and no
    larger than MAX_ANSWER_BYTES once it is (a small gzip stream can inflate to gigabytes). A broken or truncated
    stream raises (zlib.error, EOFError), a broken answer like any other."""
    named = (encoding or "").strip().lower()
    if named in ("", "identity"):
        return body
    if named != "gzip":
        raise http.client.HTTPException(f"the server answered in an encoding that was not asked for: {encoding}")
    pieces, size, rest = [], 0, body
    while True:   # member after member, as Go's gzip.Reader reads a multistream body
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        piece = inflater.decompress(rest, MAX_ANSWER_BYTES + 1 - size)
        size += len(piece)
        if size > MAX_ANSWER_BYTES or inflater.unconsumed_tail:
            raise http.client.HTTPException(f"the answer is larger than {MAX_ANSWER_BYTES:,} bytes once "
                                            "decompressed")
        if not inflater.eof:
            raise EOFError("the compressed answer ended before its end-of-stream marker")
        pieces.append(piece)
        rest = inflater.unused_data
        if not rest.strip(b"\0"):
            return b"".join(pieces)


def _dropped(sock: socket.socket) -> bool:
    """An idle keep-alive connection with something to read has been closed by the server."""
    poller = select.poll()   # not select(): no limit on the descriptor's number
    poller.register(sock, select.POLLIN)
    try:
        return bool(poller.poll(0))
    except OSError:
        return True


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or exc
    text = str(reason)
    if "Connection refused" in text or isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return text.split(": ", 1)[-1] or type(exc).__name__


def _tls(target: Endpoint) -> ssl.SSLContext:
    """One context for every connection of the call: the CA (or the system's), the client certificate."""
    for what, path in (("CA certificate", target.ca_file), ("client certificate", target.cert_file),
                       ("client key", target.key_file)):
        if path and not os.path.isfile(path):
            raise TransportError(f"{what} {path}: no such file")
    context = _context(target.insecure)
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
        raise TransportError(f"cannot use the TLS settings for {target.server}: {exc}") from None
    return context


def _context(insecure: bool) -> ssl.SSLContext:
    """The settings urllib3's create_urllib3_context gives a client (urllib3 2.x, src/urllib3/util/ssl_.py), which
    this module used before: TLS 1.2 or later, no compression or session tickets, post-handshake authentication,
    the host name checked against subjectAltName only (as Go's crypto/tls does for kubectl), and from Python 3.13
    the VERIFY_X509_STRICT and VERIFY_X509_PARTIAL_CHAIN flags that ssl.create_default_context sets there. No CA is
    loaded here: _tls loads the kubeconfig's or the system's."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.options |= ssl.OP_NO_SSLv2 | ssl.OP_NO_SSLv3 | ssl.OP_NO_COMPRESSION | ssl.OP_NO_TICKET
    if sys.version_info >= (3, 13):
        context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
    context.post_handshake_auth = True
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    context.hostname_checks_common_name = False
    keylog = os.path.expandvars(os.environ.get("SSLKEYLOGFILE", ""))
    if keylog:
        context.keylog_filename = keylog
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
