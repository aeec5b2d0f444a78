# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Retries and error reporting of the HTTP client.

The API server cannot be made to answer 429 or 503 on demand, so these faults come from a small local HTTP server
that replays a scripted sequence of responses (the one place a stand-in is used).
"""

from __future__ import annotations

import base64
import gzip
import http.server
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import typing as t

import pytest
import trustme
from tunnels import relay

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import client as client_module
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import (
    Connection,
    DeadlineExceeded,
    KubeError,
    Unreachable,
    forbidden_message,
)
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.transport import Proxied


class Script(http.server.BaseHTTPRequestHandler):
    replies: t.ClassVar[list[tuple[int, t.Any, dict[str, str]]]] = []
    seen: t.ClassVar[list[tuple[str, str, str | None]]] = []
    impersonation: t.ClassVar[list[list[tuple[str, str]]]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        type(self).seen.append((self.command, self.path, self.headers.get("Authorization")))
        type(self).impersonation.append([(k, v) for k, v in self.headers.items() if k.startswith("Impersonate-")])
        status, body, headers = type(self).replies.pop(0)
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PATCH = do_DELETE = _answer

    def log_message(self, *args: t.Any) -> None:
        pass


@pytest.fixture()
def scripted():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Script)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Script.replies, Script.seen, Script.impersonation = [], [], []
    yield server
    server.shutdown()


def connect(server, retries: int = 3) -> tuple[Connection, list[float]]:
    slept: list[float] = []
    host = f"http://127.0.0.1:{server.server_address[1]}"
    return Connection(host=host, api_key="secret-token", retries=retries, backoff=0.5, sleep=slept.append), slept


def kubeconfig(server: str, user: dict[str, t.Any], **cluster: t.Any) -> dict[str, t.Any]:
    return {"apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "k", "cluster": {"server": server, **cluster}}],
            "users": [{"name": "u", "user": user}],
            "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}]}


def status(code: int, message: str = "", **details: t.Any) -> tuple[int, t.Any, dict[str, str]]:
    return (code, {"kind": "Status", "code": code, "message": message, "details": details}, {})


def test_retries_429_and_5xx_with_backoff_and_retry_after(scripted):
    Script.replies = [(429, {"message": "slow down"}, {"Retry-After": "2"}), status(503), status(500),
                      (200, {"kind": "ConfigMap"}, {})]
    connection, slept = connect(scripted)
    assert connection.request("GET", "/api/v1/namespaces/x/configmaps/y") == {"kind": "ConfigMap"}
    # The 429 waits its Retry-After plus up to a second of spread, and does not use up a retry.
    assert 2.0 <= slept[0] <= 3.0 and slept[1:] == [0.5, 1.0]
    assert connection.requests["GET"] == 4
    assert {seen[2] for seen in Script.seen} == {"Bearer secret-token"}


def test_an_exec_plugins_token_is_asked_for_once_per_reuse_period_and_a_renewed_one_is_sent(
        scripted, monkeypatch, tmp_path):
    # A real exec credential plugin, run by the kubernetes library's loader: each run gives a new token that expires
    # within the loader's five-minute margin, so the loader runs it again whenever it is asked.
    runs = tmp_path / "runs"
    plugin = tmp_path / "credential-plugin"
    plugin.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import datetime, json, pathlib
        runs = pathlib.Path({str(runs)!r})
        count = len(runs.read_text()) + 1 if runs.exists() else 1
        runs.write_text("x" * count)
        expires = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=1)
        print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                          "status": {{"token": f"token-{{count}}",
                                     "expirationTimestamp": expires.strftime("%Y-%m-%dT%H:%M:%SZ")}}}}))
        """))
    plugin.chmod(0o700)
    config = kubeconfig(f"http://127.0.0.1:{scripted.server_address[1]}", {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin),
                 "interactiveMode": "Never"}})
    connection = Connection(kubeconfig=config)
    Script.replies = [(200, {}, {})] * 4
    for _request in range(3):
        connection.request("GET", "/api")
    tokens = [str(seen[2]) for seen in Script.seen]
    assert len(set(tokens)) == 1 and tokens[0].startswith("Bearer token-")
    monkeypatch.setattr(client_module, "TOKEN_REUSE_SECONDS", 0.0)   # the reuse period is over
    connection.request("GET", "/api")
    assert str(Script.seen[-1][2]) != tokens[0] and str(Script.seen[-1][2]).startswith("Bearer token-")


def test_a_server_behind_a_path_gets_every_request_under_that_path(scripted):
    # As Rancher serves a cluster's API under /k8s/clusters/<id>.
    host = f"http://127.0.0.1:{scripted.server_address[1]}/k8s/clusters/c-1/"
    connection = Connection(host=host, api_key="secret-token")
    Script.replies = [(200, {}, {})] * 2
    connection.request("GET", "/api")
    connection.request("PATCH", "/api/v1/namespaces/x/configmaps/y", query={"fieldManager": "m", "dryRun": None},
                       body={})
    assert [(method, path) for method, path, _token in Script.seen] == [
        ("GET", "/k8s/clusters/c-1/api"), ("PATCH", "/k8s/clusters/c-1/api/v1/namespaces/x/configmaps/y?fieldManager=m")]


def test_a_429_storm_outlasts_the_retries_but_not_the_throttle_budget(scripted):
    Script.replies = [(429, {"message": "too many requests"}, {"Retry-After": "1"})] * 12 + [(200, {}, {})]
    connection, slept = connect(scripted, retries=2)
    assert connection.request("GET", "/api") == {}
    assert len(slept) == 12 and all(1.0 <= s <= 2.0 for s in slept)

    Script.replies = [(429, {"message": "too many requests"}, {"Retry-After": "1"})] * 13 + [(200, {}, {})]
    connection, slept = connect(scripted, retries=2)
    with pytest.raises(KubeError) as failure:
        connection.request("GET", "/api")
    assert failure.value.status == 429 and len(slept) == 12


def test_gives_up_after_the_retry_budget(scripted):
    Script.replies = [status(503, "busy")] * 3
    connection, slept = connect(scripted, retries=2)
    with pytest.raises(KubeError) as failure:
        connection.request("GET", "/api")
    assert failure.value.status == 503 and str(failure.value) == "busy"
    assert len(slept) == 2


def test_resource_version_conflicts_are_retried_but_apply_conflicts_are_not(scripted):
    # An apply conflict as kube-apiserver 1.34 answers it: the cause's type is serialised as "reason".
    Script.replies = [status(409, "the object has been modified"), (200, {}, {}),
                      status(409, "Apply failed with 1 conflict",
                             causes=[{"reason": "FieldManagerConflict", "field": ".spec.x"}])]
    connection = connect(scripted)[0]
    assert connection.request("PATCH", "/a", body={}) == {}
    with pytest.raises(KubeError) as failure:
        connection.request("PATCH", "/a", body={})
    assert failure.value.status == 409 and failure.value.causes[0]["field"] == ".spec.x"
    assert connection.requests["PATCH"] == 3


def test_forbidden_is_reported_as_user_verb_resource_namespace(scripted):
    Script.replies = [status(403, 'kubevirts.kubevirt.io "kubevirt" is forbidden: User "ci" cannot patch resource '
                             '"kubevirts" in API group "kubevirt.io" in the namespace "kubevirt"')]
    connection, slept = connect(scripted)
    with pytest.raises(KubeError) as failure:
        connection.request("PATCH", "/apis/kubevirt.io/v1/namespaces/kubevirt/kubevirts/kubevirt", body={})
    assert str(failure.value) == "user ci cannot patch kubevirts.kubevirt.io in namespace kubevirt"
    assert slept == []


def test_forbidden_message_at_cluster_scope_and_unparsable_text():
    text = 'User "limited" cannot list resource "nodes" in API group "" at the cluster scope'
    expected = "user limited cannot list nodes at cluster scope"
    assert forbidden_message({"message": text}, "GET", "/api/v1/nodes") == expected
    assert forbidden_message({"message": "nope"}, "GET", "/x") == "forbidden: GET /x: nope"


def test_unreachable_server_is_a_clear_error_after_retries():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    slept: list[float] = []
    connection = Connection(host=f"http://127.0.0.1:{port}", api_key="never-printed", retries=2,
                            sleep=slept.append)
    with pytest.raises(Unreachable) as failure:
        connection.request("GET", "/api")
    assert str(failure.value) == f"API server http://127.0.0.1:{port} is unreachable: connection refused"
    assert len(slept) == 2


def test_dry_runs_are_not_counted_as_writes(scripted):
    Script.replies = [(200, {}, {}), (200, {}, {})]
    connection = connect(scripted)[0]
    connection.request("PATCH", "/a", query={"dryRun": "All"}, body={})
    connection.request("PATCH", "/a", body={})
    assert (connection.request_count, connection.write_count) == (2, 1)


@pytest.mark.parametrize("code", [400, 401, 403, 404, 422])
def test_answers_a_retry_cannot_change_are_not_retried(scripted, code):
    Script.replies = [status(code, "no")]
    connection, slept = connect(scripted)
    with pytest.raises(KubeError) as failure:
        connection.request("PATCH", "/a", body={})
    assert failure.value.status == code and slept == [] and connection.requests["PATCH"] == 1
    assert connection.write_count == 0


def test_a_web_page_instead_of_an_api_server_is_named_in_one_line(scripted):
    page = "<html><head><title>404 Not Found</title><style>p {}</style></head><body><h1>Not Found</h1></body></html>"
    Script.replies = [(404, page, {}), (200, "", {})]
    connection = connect(scripted)[0]
    with pytest.raises(KubeError) as failure:
        connection.request("GET", "/api")
    message = str(failure.value)
    assert "not a Kubernetes API server" in message and "404 Not Found Not Found" in message
    assert "<" not in message and "None" not in message


def test_the_call_deadline_bounds_retries(scripted):
    Script.replies = [status(503, "busy")] * 10
    clock = [0.0]

    def sleep(seconds: float) -> None:
        clock[0] += seconds
        if clock[0] > 3:
            connection.deadline = time.monotonic() - 1   # the time limit has passed

    connection = Connection(host=f"http://127.0.0.1:{scripted.server_address[1]}", retries=9, backoff=1,
                            timeout=60, sleep=sleep)
    with pytest.raises(DeadlineExceeded, match="time limit of 60 s ran out"):
        connection.request("GET", "/api")
    assert connection.requests["GET"] < 10


def test_a_malformed_kubeconfig_names_the_file_and_line(tmp_path):
    broken = tmp_path / "config"
    broken.write_text("apiVersion: v1\nclusters:\n- cluster: {server: https://x\n  name: a\n")
    with pytest.raises(KubeError) as failure:
        Connection(kubeconfig=str(broken))
    assert str(broken) in str(failure.value) and "line " in str(failure.value)


def test_impersonation_sends_one_header_per_group(scripted):
    host = f"http://127.0.0.1:{scripted.server_address[1]}"
    Script.replies = [(200, {}, {})]
    Connection(host=host, api_key="t", impersonate_user="ops", impersonate_groups=["a", "b"]).request("GET", "/version")
    assert Script.impersonation == [[("Impersonate-User", "ops"), ("Impersonate-Group", "a"), ("Impersonate-Group", "b")]]


def test_a_proxy_carries_the_requests_and_no_proxy_goes_around_it(scripted):
    proxy = f"http://127.0.0.1:{scripted.server_address[1]}"
    Script.replies = [(200, {"gitVersion": "v1.34.0"}, {})]
    through = Connection(host="http://kubernetes.invalid:6443", api_key="t", proxy=proxy, retries=0)
    assert through.request("GET", "/version") == {"gitVersion": "v1.34.0"}
    assert Script.seen[0][1] == "http://kubernetes.invalid:6443/version"   # the absolute form a proxy receives
    Script.replies = [(200, {}, {})]
    around = Connection(host=proxy, api_key="t", proxy="http://127.0.0.1:9", no_proxy="127.0.0.1", retries=0)
    assert around.request("GET", "/version") == {}
    assert Script.seen[1][1] == "/version"


class Gzipping(http.server.BaseHTTPRequestHandler):
    """Compresses its answer when the request accepts gzip, as kube-apiserver does over 128 KiB; records what each
    request accepted."""

    accepted: t.ClassVar[list[str | None]] = []

    def do_GET(self) -> None:
        type(self).accepted.append(self.headers.get("Accept-Encoding"))
        data = json.dumps({"items": [{"name": f"cm-{i}"} for i in range(3000)]}).encode()
        self.send_response(200)
        if "gzip" in (self.headers.get("Accept-Encoding") or ""):
            data = gzip.compress(data)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: t.Any) -> None:
        pass


def test_answers_are_asked_for_in_gzip_and_read_decompressed_straight_and_through_a_proxy():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Gzipping)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Gzipping.accepted = []
    try:
        here = f"http://127.0.0.1:{server.server_address[1]}"
        straight = Connection(host=here, api_key="t", retries=0)
        proxied = Connection(host="http://kubernetes.invalid:6443", api_key="t", proxy=here, retries=0)
        assert not isinstance(straight.transport, Proxied) and isinstance(proxied.transport, Proxied)
        for connection in (straight, proxied):
            listed = connection.request("GET", "/api/v1/configmaps")
            assert len(listed["items"]) == 3000 and listed["items"][-1] == {"name": "cm-2999"}
        assert [a is not None and "gzip" in a for a in Gzipping.accepted] == [True, True]
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- TLS, as the kubeconfig describes it

class Peer(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the subject of the client certificate the TLS handshake presented."""

    def do_GET(self) -> None:
        peer = self.connection.getpeercert() or {}
        subject = dict(pair[0] for pair in peer.get("subject", ()))
        data = json.dumps({"client": subject.get("commonName") or "", "auth": self.headers.get("Authorization")})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args: t.Any) -> None:
        pass


@pytest.fixture()
def tls_server():
    """An HTTPS server whose certificate names only "kubernetes" (not 127.0.0.1), asking for a client certificate."""
    ca = trustme.CA()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Peer)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("kubernetes").configure_cert(context)
    ca.configure_trust(context)
    context.verify_mode = ssl.CERT_OPTIONAL
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield ca, f"https://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def leftover_key_files() -> list[str]:
    return [name for name in os.listdir(tempfile.gettempdir()) if name.startswith("virtinfra-tls-")]


def test_embedded_ca_and_client_certificate_reach_the_handshake_and_leave_no_file(tls_server):
    ca, server = tls_server
    issued = ca.issue_cert("admin@example.com", common_name="admin@example.com")
    before = leftover_key_files()
    config = kubeconfig(server, {"client-certificate-data": b64(issued.cert_chain_pems[0].bytes()),
                                 "client-key-data": b64(issued.private_key_pem.bytes())},
                        **{"certificate-authority-data": b64(ca.cert_pem.bytes()), "tls-server-name": "kubernetes"})
    answer = Connection(kubeconfig=config, retries=0).request("GET", "/version")
    assert answer == {"client": "admin@example.com", "auth": None}
    assert leftover_key_files() == before


def test_files_named_relative_to_the_kubeconfig_file_and_a_token_beside_the_certificate(tls_server, tmp_path):
    ca, server = tls_server
    issued = ca.issue_cert("ops@example.com", common_name="ops@example.com")
    (tmp_path / "pki").mkdir()
    ca.cert_pem.write_to_path(str(tmp_path / "pki" / "ca.crt"))
    issued.cert_chain_pems[0].write_to_path(str(tmp_path / "pki" / "ops.crt"))
    issued.private_key_pem.write_to_path(str(tmp_path / "pki" / "ops.key"))
    (tmp_path / "token").write_text("file-token\n")
    path = tmp_path / "config"
    path.write_text(json.dumps(kubeconfig(server, {"client-certificate": "pki/ops.crt", "client-key": "pki/ops.key",
                                                   "tokenFile": "token"},
                                          **{"certificate-authority": "pki/ca.crt", "tls-server-name": "kubernetes"})))
    answer = Connection(kubeconfig=str(path), retries=0).request("GET", "/version")
    assert answer == {"client": "ops@example.com", "auth": "Bearer file-token"}   # the token file's newline trimmed


def test_a_certificate_for_another_name_is_refused_without_tls_server_name_and_insecure_skips_the_check(tls_server):
    ca, server = tls_server
    trusted = {"certificate-authority-data": b64(ca.cert_pem.bytes())}
    with pytest.raises(Unreachable, match=r"TLS verification of .* failed"):
        Connection(kubeconfig=kubeconfig(server, {"token": "t"}, **trusted), retries=0).request("GET", "/version")
    with pytest.raises(Unreachable, match=r"TLS verification of .* failed"):   # a CA that did not sign it
        Connection(kubeconfig=kubeconfig(server, {"token": "t"}, **{
            "certificate-authority-data": b64(trustme.CA().cert_pem.bytes()), "tls-server-name": "kubernetes"}),
            retries=0).request("GET", "/version")
    insecure = Connection(kubeconfig=kubeconfig(server, {"token": "t"}, **{"insecure-skip-tls-verify": True}), retries=0)
    assert insecure.request("GET", "/version") == {"client": "", "auth": "Bearer t"}
    # validate_certs: false over a kubeconfig that verifies, as kubernetes.core's option does.
    assert Connection(kubeconfig=kubeconfig(server, {"token": "t"}, **trusted), validate_certs=False,
                      retries=0).request("GET", "/version")["auth"] == "Bearer t"


def test_a_missing_certificate_file_is_named_before_any_request(tmp_path):
    with pytest.raises(KubeError, match=f"client certificate {tmp_path}/gone.crt: no such file"):
        Connection(host="https://127.0.0.1:6443", client_cert=str(tmp_path / "gone.crt"), client_key=str(tmp_path / "k"))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_a_module_with_a_static_credential_never_imports_the_kubernetes_library(tmp_path):
    # Importing the library costs 0.23 s in each module process (bench/site_apply.py); only exec and auth-provider
    # users need it.
    path = tmp_path / "config"
    path.write_text(json.dumps(kubeconfig("https://127.0.0.1:6443", {"token": "t"}, **{"insecure-skip-tls-verify": True})))
    probe = ("import json, sys\n"
             "from ansible_collections.virtinfra.hyperconverged.plugins.modules import cluster_info, k8s_apply, operators\n"
             "from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection\n"
             f"Connection(kubeconfig={str(path)!r})\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'pydantic'))))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": ":".join(sys.path)})
    assert json.loads(done.stdout) == []


class Tunnel(http.server.BaseHTTPRequestHandler):
    """An HTTP proxy that only tunnels (CONNECT), as corporate proxies carry HTTPS; it records where to."""

    tunnels: t.ClassVar[list[str]] = []

    def do_CONNECT(self) -> None:
        type(self).tunnels.append(self.path)
        host, port = self.path.rsplit(":", 1)
        upstream = socket.create_connection((host, int(port)))
        self.send_response(200, "Connection established")
        self.end_headers()
        relay(self.connection, upstream, 5)

    def log_message(self, *args: t.Any) -> None:
        pass


def test_https_through_a_connect_proxy_keeps_the_ca_the_server_name_and_the_client_certificate(tls_server):
    ca, server = tls_server
    issued = ca.issue_cert("ops@example.com", common_name="ops@example.com")
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tunnel)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    Tunnel.tunnels = []
    try:
        config = kubeconfig(server, {"client-certificate-data": b64(issued.cert_chain_pems[0].bytes()),
                                     "client-key-data": b64(issued.private_key_pem.bytes())},
                            **{"certificate-authority-data": b64(ca.cert_pem.bytes()), "tls-server-name": "kubernetes",
                               "proxy-url": f"http://127.0.0.1:{proxy.server_address[1]}"})
        connection = Connection(kubeconfig=config, retries=0)
        assert isinstance(connection.transport, Proxied)
        assert connection.request("GET", "/version") == {"client": "ops@example.com", "auth": None}
        assert Tunnel.tunnels == [server.removeprefix("https://")]
        # The same server name rule through the tunnel: a certificate for another name is refused.
        del config["clusters"][0]["cluster"]["tls-server-name"]
        with pytest.raises(Unreachable, match=r"TLS verification of .* failed"):
            Connection(kubeconfig=config, retries=0).request("GET", "/version")
    finally:
        proxy.shutdown()


def test_without_the_kubernetes_package_static_credentials_work_and_an_exec_user_is_told_what_is_missing(tmp_path):
    static = tmp_path / "static"
    static.write_text(json.dumps(kubeconfig("http://127.0.0.1:9", {"token": "t"})))
    plugin = tmp_path / "plugin"
    plugin.write_text(json.dumps(kubeconfig("http://127.0.0.1:9", {"exec": {"command": "get-token"}})))
    probe = ("import sys\n"
             "sys.modules['kubernetes'] = None   # as if it were not installed\n"
             "from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection, "
             "KubeError\n"
             f"print(Connection(kubeconfig={str(static)!r}).endpoint.authorization)\n"
             "try:\n"
             f"    Connection(kubeconfig={str(plugin)!r})\n"
             "except KubeError as exc:\n"
             "    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": ":".join(sys.path)})
    lines = done.stdout.splitlines()
    assert lines[0] == "Bearer t"
    assert lines[1].startswith("the kubeconfig's user has exec credentials, which need the kubernetes Python package")


def test_an_exec_user_is_loaded_from_the_context_kubectl_would_choose(scripted, tmp_path, monkeypatch):
    server = f"http://127.0.0.1:{scripted.server_address[1]}"
    paths = []
    for name in ("one", "two"):
        plugin = tmp_path / f"plugin-{name}"
        plugin.write_text(f"#!/bin/sh\necho '{{\"apiVersion\": \"client.authentication.k8s.io/v1\", "
                          f"\"kind\": \"ExecCredential\", \"status\": {{\"token\": \"from-{name}\"}}}}'\n")
        plugin.chmod(0o700)
        config = kubeconfig(server, {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin),
                                              "interactiveMode": "Never"}})
        for section in ("clusters", "users", "contexts"):
            config[section][0]["name"] += f"-{name}"
        config["contexts"][0]["context"] = {"cluster": f"k-{name}", "user": f"u-{name}"}
        config["current-context"] = f"c-{name}"
        (tmp_path / name).write_text(json.dumps(config))
        paths.append(str(tmp_path / name))
    # Both files set current-context: kubectl takes the first, the kubernetes library alone would take the last.
    monkeypatch.setenv("KUBECONFIG", ":".join(paths))
    Script.replies = [(200, {}, {})]
    Connection(retries=0).request("GET", "/api")
    assert Script.seen[-1][2] == "Bearer from-one"


def test_an_explicit_api_key_is_sent_instead_of_running_the_users_credential_program(scripted, tmp_path):
    marker = tmp_path / "ran"
    config = kubeconfig(f"http://127.0.0.1:{scripted.server_address[1]}", {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": "touch", "args": [str(marker)]}})
    Script.replies = [(200, {}, {})]
    Connection(kubeconfig=config, api_key="given", retries=0).request("GET", "/api")
    assert Script.seen[-1][2] == "Bearer given" and not marker.exists()


def test_a_query_is_encoded_the_same_each_time_it_is_sent(scripted):
    # Encoded queries are kept for the next request: one sent again, one with a list, one whose value changed.
    Script.replies = [(200, {}, {})] * 5
    connection, _slept = connect(scripted)
    dry_run = {"dryRun": "All", "fieldManager": "virtinfra.hyperconverged", "force": "true", "skip": None}
    connection.request("PATCH", "/api/v1/namespaces/x/configmaps/a", query=dry_run, body={})
    connection.request("PATCH", "/api/v1/namespaces/x/configmaps/b", query=dry_run, body={})
    connection.request("GET", "/api/v1/configmaps", query={"labelSelector": ["a=b", "c in (d, e)"]})
    connection.request("GET", "/api/v1/configmaps", query={"labelSelector": ["a=b", "c in (d, e)"]})
    connection.request("PATCH", "/api/v1/namespaces/x/configmaps/a", query={**dry_run, "force": "false"}, body={})
    assert [path for _method, path, _token in Script.seen] == [
        "/api/v1/namespaces/x/configmaps/a?dryRun=All&fieldManager=virtinfra.hyperconverged&force=true",
        "/api/v1/namespaces/x/configmaps/b?dryRun=All&fieldManager=virtinfra.hyperconverged&force=true",
        "/api/v1/configmaps?labelSelector=a%3Db&labelSelector=c+in+%28d%2C+e%29",
        "/api/v1/configmaps?labelSelector=a%3Db&labelSelector=c+in+%28d%2C+e%29",
        "/api/v1/namespaces/x/configmaps/a?dryRun=All&fieldManager=virtinfra.hyperconverged&force=false",
    ]


def test_the_kubeconfig_users_impersonation_is_sent_unless_the_options_replace_it(scripted):
    host = f"http://127.0.0.1:{scripted.server_address[1]}"
    config = kubeconfig(host, {"token": "t", "as": "ops", "as-uid": "u-1", "as-groups": ["a", "b"],
                               "as-user-extra": {"scopes.example.com/team": ["x y", "z"]}})
    Script.replies = [(200, {}, {}), (200, {}, {})]
    Connection(kubeconfig=config).request("GET", "/version")
    Connection(kubeconfig=config, impersonate_user="other").request("GET", "/version")
    assert Script.impersonation == [
        [("Impersonate-User", "ops"), ("Impersonate-Uid", "u-1"), ("Impersonate-Group", "a"), ("Impersonate-Group", "b"),
         ("Impersonate-Extra-scopes.example.com%2Fteam", "x y"), ("Impersonate-Extra-scopes.example.com%2Fteam", "z")],
        [("Impersonate-User", "other")]]


def test_a_proxy_from_the_environment_carries_the_requests_and_the_result_says_so(scripted, monkeypatch):
    proxy = f"http://127.0.0.1:{scripted.server_address[1]}"
    monkeypatch.setenv("HTTP_PROXY", proxy)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    Script.replies = [(200, {}, {})]
    through = Connection(host="http://kubernetes.invalid:8080", api_key="t", retries=0)
    assert through.request("GET", "/version") == {}
    assert Script.seen[0][1] == "http://kubernetes.invalid:8080/version"
    assert (through.endpoint.proxy, through.endpoint.proxy_source) == (proxy, "HTTP_PROXY")
    # NO_PROXY goes around it (here into a server that does not exist: no request reaches the proxy).
    monkeypatch.setenv("NO_PROXY", ".invalid")
    around = Connection(host="http://kubernetes.invalid:8080", api_key="t", retries=0)
    assert around.endpoint.proxy is None and around.endpoint.proxy_source == "HTTP_PROXY bypassed by NO_PROXY"


class Refusing(http.server.BaseHTTPRequestHandler):
    """A proxy that answers every CONNECT with 403, counting them and keeping the Proxy-Authorization it got."""

    connects: t.ClassVar[list[str | None]] = []

    def do_CONNECT(self) -> None:
        type(self).connects.append(self.headers.get("Proxy-Authorization"))
        self.send_response(403, "Forbidden")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: t.Any) -> None:
        pass


def test_a_refused_tunnel_is_named_as_the_proxys_answer_and_not_asked_again():
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    Refusing.connects = []
    try:
        url = f"http://ops:s3cret@127.0.0.1:{proxy.server_address[1]}"
        connection = Connection(host="https://api.example.invalid:6443", api_key="t", proxy=url, retries=5,
                                sleep=lambda _s: None)
        with pytest.raises(Unreachable) as refused:
            connection.request("GET", "/version")
        message = str(refused.value)
        assert f"the proxy http://127.0.0.1:{proxy.server_address[1]} refused the tunnel" in message
        assert "403 Forbidden" in message and "proxy option" in message and "s3cret" not in message
        assert Refusing.connects == ["Basic " + b64(b"ops:s3cret")]   # once, with the URL's credentials
        assert not refused.value.sent
    finally:
        proxy.shutdown()


def test_text_no_utf8_can_carry_is_named_with_the_request_not_a_crash(scripted):
    connection, _slept = connect(scripted, retries=0)
    with pytest.raises(KubeError, match=r"PATCH /api/v1/namespaces/ns/configmaps/a: the object holds text that is not "
                                        r"valid Unicode \('\\ud800' at character"):
        connection.request("PATCH", "/api/v1/namespaces/ns/configmaps/a", body={"data": {"k": "x\ud800"}})
    assert Script.seen == []   # nothing was sent


def test_a_name_that_is_not_ascii_is_percent_encoded_in_the_path(scripted):
    connection, _slept = connect(scripted, retries=0)
    Script.replies = [(200, {}, {})]
    connection.request("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/r\u00f4le-\U0001f600 x")
    assert Script.seen[0][1] == "/apis/rbac.authorization.k8s.io/v1/clusterroles/r%C3%B4le-%F0%9F%98%80%20x"
    # A query written into the path is the caller's, encoded already: kept as it is, the query option after it.
    Script.replies = [(200, {}, {})]
    connection.request("GET", "/apis/apps/v1/deployments?fieldSelector=metadata.name%3Dvirt-operator",
                       query={"limit": 5})
    assert Script.seen[1][1] == "/apis/apps/v1/deployments?fieldSelector=metadata.name%3Dvirt-operator&limit=5"


def test_a_socks_proxy_without_pysocks_is_named_before_any_request(monkeypatch):
    monkeypatch.setitem(sys.modules, "urllib3.contrib.socks", None)   # as where PySocks is not installed
    with pytest.raises(KubeError, match=r"the proxy socks5h://127.0.0.1:1080 is a SOCKS proxy, which needs the "
                                        r"PySocks Python package"):
        Connection(host="https://api:6443", api_key="t", proxy="socks5h://u:secret@127.0.0.1:1080")
