# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Connections straight to the server: kept alive per thread, replaced when the server closed them, the
bounded gzip answers and the TLS settings (the proxy rules: test_proxies.py). (TLS through the same connections: test_client.py, against an HTTPS server.)"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import http.server
import json
import pathlib
import ssl
import subprocess
import sys
import threading
import time
import typing as t
import zlib

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import transport as transport_module
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.kubeconfig import Endpoint
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.transport import (
    Direct,
    TransportError,
    decoded,
    transport,
)


class KeepAlive(http.server.BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive; answers with the client's port, so a test sees which connection carried it."""

    protocol_version = "HTTP/1.1"
    close_after_answer: t.ClassVar[bool] = False
    # Requests wait here until this many are in the server at once (or 10 s pass), so a test knows they overlapped.
    gather: t.ClassVar[threading.Barrier | None] = None

    def do_PATCH(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/stray":   # a 204 that carries bytes anyway: no answer may be read from them
            self.wfile.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nstray")
            return
        gather = type(self).gather
        if gather is not None:
            # If they did not overlap, answer anyway: the test then sees the connection they shared.
            with contextlib.suppress(threading.BrokenBarrierError):
                gather.wait(timeout=10)
        data = f'{{"port": {self.client_address[1]}, "got": {len(body)}}}'.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        # Closed without saying so (no "Connection: close"), as a server's idle timeout closes a connection.
        self.close_connection = type(self).close_after_answer

    do_GET = do_PATCH

    def log_message(self, *args: t.Any) -> None:
        pass


@pytest.fixture()
def server():
    KeepAlive.close_after_answer, KeepAlive.gather = False, None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), KeepAlive)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def port_of(answer: tuple[int, t.Any, bytes]) -> int:
    return int(answer[2].split(b'"port": ')[1].split(b",")[0])


def test_a_connection_is_kept_alive_and_reused_by_the_next_request_whichever_thread_sends_it(server):
    direct = transport(Endpoint(server=server), maxsize=8)
    assert isinstance(direct, Direct)
    first = direct.send("PATCH", "/x", b"{}", [("Content-Type", "application/json")], 5)
    again = direct.send("PATCH", "/x", b"{\"a\": 1}", [], 5)
    assert first[0] == 200 and port_of(first) == port_of(again) and b'"got": 8' in again[2]
    # The next step's workers are new threads: they take the idle connection instead of opening another.
    ports: list[int] = []
    worker = threading.Thread(target=lambda: ports.append(port_of(direct.send("GET", "/x", None, [], 5))))
    worker.start()
    worker.join()
    assert ports == [port_of(first)]


def test_requests_in_flight_at_once_each_have_a_connection(server):
    # The server holds each request until all three are in it: they cannot share a connection one after another.
    # (A fixed pause raced on a loaded machine: a thread could start after the first answer came back.)
    KeepAlive.gather = threading.Barrier(3)
    direct = transport(Endpoint(server=server), maxsize=8)
    ports: list[int] = []
    workers = [threading.Thread(target=lambda: ports.append(port_of(direct.send("GET", "/x", None, [], 5))))
               for _worker in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(set(ports)) == 3
    KeepAlive.gather = None
    assert port_of(direct.send("GET", "/x", None, [], 5)) in ports   # one of them, kept alive


def test_a_connection_the_server_closed_while_idle_is_replaced_without_an_error(server):
    KeepAlive.close_after_answer = True
    direct = transport(Endpoint(server=server), maxsize=8)
    first = direct.send("GET", "/x", None, [], 5)
    time.sleep(0.05)   # the server's close reaches the client
    second = direct.send("GET", "/x", None, [], 5)
    assert second[0] == 200 and port_of(second) != port_of(first)


def test_a_connection_with_bytes_past_its_answer_is_not_used_again(server):
    direct = transport(Endpoint(server=server), maxsize=8)
    first = direct.send("GET", "/x", None, [], 5)
    assert direct.send("GET", "/stray", None, [], 5)[0] == 204
    after = direct.send("GET", "/x", None, [], 5)
    assert after[0] == 200 and port_of(after) != port_of(first)


class Compressing(http.server.BaseHTTPRequestHandler):
    """Answers a LIST as kube-apiserver does when the client accepts gzip: compressed and chunked. ``cut`` leaves
    that many bytes off the end of the compressed body (a broken answer)."""

    protocol_version = "HTTP/1.1"
    cut: t.ClassVar[int] = 0
    plain = json.dumps({"kind": "ConfigMapList", "items": [{"metadata": {"name": f"cm-{i}"}} for i in range(5000)]})

    def do_GET(self) -> None:
        data = type(self).plain.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if "gzip" in (self.headers.get("Accept-Encoding") or ""):
            data = gzip.compress(data, compresslevel=1)
            data = data[:len(data) - type(self).cut]
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for start in range(0, len(data), 4096):
            piece = data[start:start + 4096]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args: t.Any) -> None:
        pass


@pytest.fixture()
def compressing():
    Compressing.cut = 0
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Compressing)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_compressed_answer_is_read_as_the_server_wrote_it_and_its_connection_kept(compressing):
    direct = transport(Endpoint(server=compressing), maxsize=8)
    status, header, body = direct.send("GET", "/api/v1/configmaps", None, [("Accept-Encoding", "gzip")], 5)
    assert (status, header("content-encoding")) == (200, "gzip")
    assert body == Compressing.plain.encode()
    assert direct.send("GET", "/api/v1/configmaps", None, [], 5)[2] == Compressing.plain.encode()   # not asked
    assert len(t.cast(t.Any, direct)._idle) == 1   # one connection carried both


def test_a_truncated_compressed_answer_is_a_transport_error(compressing):
    Compressing.cut = 100
    direct = transport(Endpoint(server=compressing), maxsize=8)
    with pytest.raises(TransportError):
        direct.send("GET", "/api/v1/configmaps", None, [("Accept-Encoding", "gzip")], 5)
    assert not t.cast(t.Any, direct)._idle   # its connection is not reused


def test_decoded_passes_identity_through_and_refuses_an_encoding_not_asked_for():
    assert decoded(b"{}", None) == decoded(b"{}", "identity") == decoded(b"{}", "") == b"{}"
    assert decoded(gzip.compress(b'{"a": 1}'), "GZIP ") == b'{"a": 1}'
    with pytest.raises(http.client.HTTPException, match="not asked for: br"):
        decoded(b"\x00", "br")


def test_no_answer_is_a_transport_error():
    # A port nothing listens on.
    direct = transport(Endpoint(server="http://127.0.0.1:9"), maxsize=8)
    with pytest.raises(TransportError, match="connection refused") as failure:
        direct.send("GET", "/x", None, [], 5)
    assert not failure.value.tls


def test_a_gzip_bomb_is_refused_past_the_answer_limit(monkeypatch):
    monkeypatch.setattr(transport_module, "MAX_ANSWER_BYTES", 1 << 20)
    bomb = gzip.compress(b"\0" * ((1 << 20) + 1))   # a kilobyte that inflates past the limit
    assert len(bomb) < 4096
    with pytest.raises(http.client.HTTPException, match="larger than 1,048,576 bytes once decompressed"):
        decoded(bomb, "gzip")
    assert decoded(gzip.compress(b"\0" * (1 << 20)), "gzip") == b"\0" * (1 << 20)   # the limit itself is read


def test_a_multistream_gzip_answer_is_read_whole_as_go_reads_it():
    assert decoded(gzip.compress(b'{"a":') + gzip.compress(b" 1}"), "gzip") == b'{"a": 1}'
    with pytest.raises(EOFError):
        decoded(gzip.compress(b'{"a": 1}')[:-6], "gzip")
    with pytest.raises(zlib.error):
        decoded(gzip.compress(b"{}") + b"junk", "gzip")


@pytest.mark.parametrize("insecure", [False, True])
def test_the_tls_context_has_the_settings_urllib3_gave_it(insecure, monkeypatch, tmp_path):
    # The context was urllib3's create_urllib3_context until urllib3 became a proxy-only import; ours must not
    # weaken (or tighten) any setting a connection to the API server gets.
    from urllib3.util.ssl_ import create_urllib3_context

    monkeypatch.setenv("SSLKEYLOGFILE", str(tmp_path / "keys"))
    ours = transport_module._context(insecure)
    theirs = create_urllib3_context(cert_reqs=ssl.CERT_NONE if insecure else ssl.CERT_REQUIRED)
    for setting in ("minimum_version", "maximum_version", "options", "verify_flags", "verify_mode", "check_hostname",
                    "post_handshake_auth", "hostname_checks_common_name", "keylog_filename", "protocol"):
        assert getattr(ours, setting) == getattr(theirs, setting), setting
    assert ours.get_ciphers() == theirs.get_ciphers()
    assert ours.verify_mode == (ssl.CERT_NONE if insecure else ssl.CERT_REQUIRED)


def test_urllib3_is_imported_only_for_a_proxy():
    # Importing it costs 50-65 ms in ansible-playbook's process, where every cluster module loads this file.
    code = ("import sys; sys.path[:0] = sys.argv[1:]; "
            "import ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client; "
            "print('urllib3' in sys.modules)")
    collections = pathlib.Path(transport_module.__file__).parents[6]   # the directory holding ansible_collections
    done = subprocess.run([sys.executable, "-c", code, str(collections)], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_missing_urllib3_is_reported_by_the_cluster_modules_whatever_the_endpoint():
    # sys.modules[name] = None is how Python marks a package as not importable (find_spec and import agree).
    code = ("import sys; sys.path[:0] = sys.argv[1:]; sys.modules['urllib3'] = None; "
            "from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import client; "
            "print(type(client.KUBERNETES_IMPORT_ERROR).__name__, client.KUBERNETES_IMPORT_ERROR.name)")
    collections = pathlib.Path(transport_module.__file__).parents[6]
    done = subprocess.run([sys.executable, "-c", code, str(collections)], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["ImportError", "urllib3"]
