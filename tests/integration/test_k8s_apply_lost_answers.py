# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A write whose answer is lost is an unknown, not a "no". Between k8s_apply and the real API server stands a TLS
proxy that passes every request on and loses the answers the test chooses (cut short, a header past the line limit,
a header that never ends), after the server has carried the request out; what the run reports is compared with what
the server holds."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import socket
import ssl
import threading
import typing as t

import pytest
import trustme
from test_k8s_apply import apply
from test_k8s_apply_faults import names
from test_k8s_apply_safety import config_map

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, ApplyFailed, Options
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection

Chooser = t.Callable[[str, str], str | None]   # (method, target) -> how to lose the answer, or None


class LosingProxy:
    """TLS on both sides: each request is read whole, sent to the API server, and its answer relayed, or lost as
    ``choose`` says: "cut" (the head and a part of the body, then the connection closes), "long-header" (a header
    line past 64 KiB) or "silent" (nothing, then the connection closes)."""

    def __init__(self, plane: t.Any, tmp_path: t.Any, choose: Chooser) -> None:
        self.choose = choose
        self.lost: list[tuple[str, str]] = []
        authority = trustme.CA()
        self.ca_file = tmp_path / "proxy-ca.pem"
        authority.cert_pem.write_to_path(str(self.ca_file))
        self._server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        authority.issue_cert("127.0.0.1").configure_cert(self._server_context)
        self._upstream = ssl.create_default_context(cafile=str(plane.workdir / "certs" / "apiserver.crt"))
        self._port = plane.port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"https://127.0.0.1:{self._listener.getsockname()[1]}"
        self._closing = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._closing = True
        self._listener.close()

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _address = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        with contextlib.suppress(OSError, ssl.SSLError), \
                self._server_context.wrap_socket(raw, server_side=True) as client:
            reader = client.makefile("rb")
            upstream = http.client.HTTPSConnection("127.0.0.1", self._port, context=self._upstream, timeout=60)
            while True:
                line = reader.readline()
                if not line:
                    return
                method, target, _version = line.decode().split(" ", 2)
                headers = []
                while (header := reader.readline()) not in (b"\r\n", b""):
                    name, _sep, value = header.decode("latin-1").partition(":")
                    headers.append((name.strip(), value.strip()))
                length = int({k.lower(): v for k, v in headers}.get("content-length") or 0)
                body = reader.read(length) if length else None
                upstream.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
                for name, value in headers:
                    upstream.putheader(name, value)
                upstream.endheaders(body)
                answer = upstream.getresponse()
                data = answer.read()
                how = self.choose(method, target)
                if how is not None:
                    self.lost.append((method, target))
                    if how == "cut":
                        client.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                       b"Content-Length: %d\r\n\r\n" % len(data) + data[:len(data) // 2])
                    elif how == "long-header":
                        client.sendall(b"HTTP/1.1 200 OK\r\nX-Padding: " + b"x" * 70000 + b"\r\n\r\n")
                    return   # "silent" too: the connection closes with no answer
                head = f"HTTP/1.1 {answer.status} {answer.reason}\r\n".encode()
                for name, value in answer.getheaders():
                    if name.lower() not in ("transfer-encoding", "content-length", "connection"):
                        head += f"{name}: {value}\r\n".encode("latin-1")
                client.sendall(head + b"Content-Length: %d\r\n\r\n" % len(data) + data)


def writes_of(kind: str) -> Chooser:
    """Loses the answer of every real (not dry-run) write to ``kind``."""
    def choose(method: str, target: str) -> str | None:
        if method in ("PATCH", "POST", "PUT", "DELETE") and f"/{kind}" in target and "dryRun" not in target:
            return "cut"
        return None
    return choose


@pytest.fixture
def namespace(control_plane, request) -> str:
    name = "lost-" + hashlib.sha256(request.node.name.encode()).hexdigest()[:10]
    control_plane.kubectl_run("create", "namespace", name)
    return name


def through(proxy: LosingProxy, plane: t.Any) -> Connection:
    return Connection(host=proxy.url, api_key=plane.admin_token, ca_cert=str(proxy.ca_file), retries=1, backoff=0.01,
                      request_timeout=10)


@pytest.mark.parametrize("how", ["cut", "long-header", "silent"])
def test_writes_whose_answers_are_lost_are_read_back_and_reported_as_written(tmp_path, control_plane, namespace,
                                                                             how):
    proxy = LosingProxy(control_plane, tmp_path,
                        lambda m, p: how if writes_of("configmaps")(m, p) else None)
    try:
        objects = [config_map(namespace, f"cm-{i}") for i in range(4)]
        report = Applier(through(proxy, control_plane), Options(workers=2)).run(objects)
    finally:
        proxy.close()
    assert proxy.lost, "the proxy lost no answer: the test tested nothing"
    assert report["changed"] is True
    assert {o["name"]: o["action"] for o in report["objects"]} == {f"cm-{i}": "created" for i in range(4)}
    assert names(control_plane, "configmaps", namespace) >= {f"cm-{i}" for i in range(4)}
    # Each recovered write is said: how many, which.
    recovered = sorted(w.split(":")[0] for w in report["warnings"] if "the answer to its write was lost" in w)
    assert recovered == [f"ConfigMap {namespace}/cm-{i}" for i in range(4)]   # every write's answer was lost


def test_when_the_object_cannot_be_read_back_its_outcome_is_unknown_never_nothing_written(
        tmp_path, control_plane, namespace):
    written = threading.Event()

    def choose(method: str, target: str) -> str | None:
        if writes_of("configmaps")(method, target):
            written.set()
            return "cut"
        if method == "GET" and written.is_set():   # the reads after the first write: the read-back
            return "cut"
        return None

    proxy = LosingProxy(control_plane, tmp_path, choose)
    try:
        objects = [config_map(namespace, f"cm-{i}") for i in range(3)]
        with pytest.raises(ApplyFailed) as failure:
            Applier(through(proxy, control_plane), Options(workers=1)).run(objects)
    finally:
        proxy.close()
    partial = failure.value.partial
    assert partial["changed"] is True and partial["written"] == []
    unknown = {u["name"] for u in partial["unknown"]}
    assert unknown and unknown <= {f"cm-{i}" for i in range(3)}
    assert "nothing was written" not in str(failure.value)
    assert "outcome unknown" in str(failure.value) and "could not be read back" in str(failure.value)
    # What it calls unknown, the server does hold: "nothing was written" would have been false.
    assert unknown <= names(control_plane, "configmaps", namespace)


def test_a_delete_whose_answer_is_lost_is_read_back_and_reported_as_deleted(tmp_path, control_plane, namespace):
    objects = [config_map(namespace, f"cm-{i}") for i in range(3)]
    apply(control_plane, objects, apply_set="lost-delete", apply_set_namespace=namespace)
    proxy = LosingProxy(control_plane, tmp_path,
                        lambda m, p: "cut" if m == "DELETE" and "dryRun" not in p and "/configmaps/cm-" in p else None)
    try:
        report = Applier(through(proxy, control_plane),
                         Options(apply_set="lost-delete", apply_set_namespace=namespace, state="absent")).run(objects)
    finally:
        proxy.close()
    assert proxy.lost
    assert sorted(d["name"] for d in report["deleted"]) == ["cm-0", "cm-1", "cm-2"]
    assert sorted(w.split(":")[0] for w in report["warnings"] if "the answer to its delete was lost" in w) == [
        f"ConfigMap {namespace}/cm-{i}" for i in range(3)]
    assert not names(control_plane, "configmaps", namespace) & {"cm-0", "cm-1", "cm-2"}
    json.dumps(report)   # the report stays plain data
