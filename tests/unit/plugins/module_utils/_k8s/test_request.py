# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Our request bytes are http.client's: both write the same request, and refuse the same ones (the stdlib is the
reference: its HTTPConnection writes into a socket that records what it is given)."""

from __future__ import annotations

import http.client
import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.request import host_header, request_bytes


class Recorder:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sent.append(bytes(data))


def stdlib(method: str, target: str, host: str, port: int, https: bool, headers: t.Sequence[tuple[str, str]],
           body: bytes | None) -> bytes:
    """What the transport sent before: putrequest, a putheader per header, Content-Length, endheaders."""
    kind = http.client.HTTPSConnection if https else http.client.HTTPConnection
    connection = kind(host, port)
    recorder = Recorder()
    connection.sock = recorder
    connection.putrequest(method, target, skip_accept_encoding=True)
    for name, value in headers:
        connection.putheader(name, value)
    if body is not None:
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    return b"".join(recorder.sent)


def ours(method: str, target: str, host: str, port: int, https: bool, headers: t.Sequence[tuple[str, str]],
         body: bytes | None) -> bytes:
    return request_bytes(method, target, host_header(host, port, 443 if https else 80), headers, body)


KUBE = [("Accept", "application/json"), ("User-Agent", "virtinfra.hyperconverged"),
        ("Authorization", "Bearer abc.def"), ("Impersonate-User", "system:serviceaccount:ns:sa"),
        ("Impersonate-Group", "a"), ("Impersonate-Group", "b")]
CASES = [
    ("GET", "/api/v1/namespaces/default", "127.0.0.1", 6443, True, KUBE, None),
    ("PATCH", "/api/v1/namespaces/x/configmaps/y?dryRun=All&fieldManager=virtinfra&force=true", "10.0.0.1", 443,
     True, [*KUBE, ("Content-Type", "application/apply-patch+yaml")], b'{"kind":"ConfigMap"}'),
    ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "api.example.com", 8443, True, KUBE, b""),
    ("DELETE", "/api/v1/namespaces/x", "::1", 6443, True, KUBE, b"{}"),
    ("GET", "/version", "::1", 443, True, [], None),
    ("GET", "/version", "kube.example", 80, False, [], None),
    ("GET", "/version", "kube.example", 8080, False, [("X-Folded", "a\r\n b"), ("Odd Name", "x")], None),
    ("GET", "/version", "bücher.example", 6443, True, [("X-Latin", "café")], None),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[2]}-{c[3]}" for c in CASES])
def test_writes_what_http_client_writes(case: tuple[t.Any, ...]) -> None:
    assert ours(*case) == stdlib(*case)


REFUSED = [
    ("GET", "/a b", KUBE),                                     # a space in the target
    ("GET", "/a\r\nX-Injected: 1", KUBE),                      # a new line in the target
    ("GE\nT", "/version", KUBE),                               # a control character in the method
    ("GET", "/version", [("Authorization", "Bearer a\r\nX-Injected: 1")]),   # a value starting a new line
    ("GET", "/version", [("Authorization", "Bearer a\nb")]),
    ("GET", "/version", [("Bad:Name", "x")]),
    ("GET", "/version", [("Ünicode", "x")]),                   # a name that is not ASCII
    ("GET", "/version", [("X-Value", "€")]),                   # a value that is not latin-1
]


@pytest.mark.parametrize("method, target, headers", REFUSED)
def test_refuses_what_http_client_refuses(method: str, target: str, headers: list[tuple[str, str]]) -> None:
    with pytest.raises((ValueError, http.client.InvalidURL)) as theirs:
        stdlib(method, target, "127.0.0.1", 6443, True, headers, None)
    with pytest.raises(type(theirs.value)):
        ours(method, target, "127.0.0.1", 6443, True, headers, None)
