# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Our reader reads every answer as http.client's own HTTPResponse does: both read the same bytes, and every field
the transport uses afterwards must agree (the stdlib is the reference, not a copy of ours), however the bytes are
split as they arrive."""

from __future__ import annotations

import http.client
import io
import typing as t

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.response import Stream, read_answer

KUBE_HEAD = (b"Audit-Id: 5d5c0c1e-3b7a-4a55-9b8e-7f1d2a3c4b5e\r\nCache-Control: no-cache, private\r\n"
             b"Content-Type: application/json\r\nX-Kubernetes-Pf-Flowschema-Uid: 1f1e7c44\r\n"
             b"X-Kubernetes-Pf-Prioritylevel-Uid: 2a2b7c44\r\nDate: Thu, 26 Nov 2026 15:30:59 GMT\r\n")

ANSWERS = {
    "kube-apiserver, content length": b"HTTP/1.1 200 OK\r\n" + KUBE_HEAD + b"Content-Length: 2\r\n\r\n{}",
    "chunked": (b"HTTP/1.1 201 Created\r\n" + KUBE_HEAD + b"Transfer-Encoding: chunked\r\n\r\n"
                b"4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n"),
    "chunked, upper case": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    "connection close": b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nConnection: close\r\n\r\nslow down",
    "no length: read to close": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end",
    "HTTP/1.0 keep-alive": b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc",
    "HTTP/1.0": b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc",
    "100 continue first": b"HTTP/1.1 100 Continue\r\nX-A: b\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
    "204": b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
    "304": b"HTTP/1.1 304 Not Modified\r\n\r\n",
    "negative length": b"HTTP/1.1 200 OK\r\nContent-Length: -4\r\nConnection: close\r\n\r\nbody",
    "bad length": b"HTTP/1.1 200 OK\r\nContent-Length: many\r\nConnection: close\r\n\r\nbody",
    "repeated header": b"HTTP/1.1 200 OK\r\nWarning: 299 - \"a\"\r\nWarning: 299 - \"b\"\r\nContent-Length: 0\r\n\r\n",
    "folded header": b"HTTP/1.1 200 OK\r\nX-Long: one\r\n  two\r\n\tthree\r\nContent-Length: 0\r\n\r\n",
    "value spacing": b"HTTP/1.1 200 OK\r\nX-A:\t  padded  \r\nX-B:\r\nContent-Length: 0\r\n\r\n",
    "bare newlines": b"HTTP/1.1 200 OK\nContent-Length: 2\nX-A: b\n\nok",
    "line that is not a header": b"HTTP/1.1 200 OK\r\nX-A: b\r\nnot a header\r\nContent-Length: 2\r\n\r\nok",
    "space before colon": b"HTTP/1.1 200 OK\r\nX-A : b\r\nContent-Length: 2\r\n\r\nok",
    "continuation first": b"HTTP/1.1 200 OK\r\n  lost\r\nContent-Length: 2\r\n\r\nok",
    "latin-1": b"HTTP/1.1 200 OK\r\nX-A: caf\xe9\r\nContent-Length: 0\r\n\r\n",
    "99 headers": b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 98 + b"Content-Length: 0\r\n\r\n",
}


class Socket:
    """A connection whose bytes arrive ``piece`` at a time (a TLS record, a TCP segment), then end."""

    def __init__(self, data: bytes, piece: int | None = None) -> None:
        self.data, self.piece = data, piece or max(1, len(data))

    def recv(self, size: int) -> bytes:
        data, self.data = self.data[:min(size, self.piece)], self.data[min(size, self.piece):]
        return data

    def makefile(self, mode: str) -> t.BinaryIO:   # what http.client's response reads from
        return io.BytesIO(self.data)


def theirs(data: bytes, method: str = "GET") -> dict[str, t.Any]:
    response = http.client.HTTPResponse(Socket(data), method=method)  # type: ignore[arg-type]
    response.begin()
    fields = {"status": response.status, "reason": response.reason, "version": response.version,
              "headers": list(response.headers.items()), "will_close": response.will_close,
              "content-type": response.headers.get("content-type"), "warnings": response.headers.get_all("warning")}
    fields["body"] = response.read()
    return fields


def ours(data: bytes, method: str = "GET", piece: int | None = None) -> dict[str, t.Any]:
    reply = read_answer(Stream(Socket(data, piece)), method)  # type: ignore[arg-type]
    return {"status": reply.status, "reason": reply.reason, "version": reply.version,
            "headers": reply.headers.items(), "will_close": reply.will_close,
            "content-type": reply.headers.get("Content-Type"), "warnings": [v for f, v in reply.headers.items() if f.lower() == "warning"] or None,
            "body": reply.body}


@pytest.mark.parametrize("data", ANSWERS.values(), ids=ANSWERS.keys())
@pytest.mark.parametrize("piece", [None, 1, 5], ids=["at once", "a byte at a time", "five bytes at a time"])
def test_reads_as_http_client_does(data: bytes, piece: int | None) -> None:
    assert ours(data, piece=piece) == theirs(data)


def test_head_has_no_body() -> None:
    data = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
    assert ours(data, method="HEAD") == theirs(data, method="HEAD")
    assert ours(data, method="HEAD")["body"] == b""


@pytest.mark.parametrize("data, error", [
    (b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 100 + b"\r\n", http.client.HTTPException),
    (b"HTTP/1.1 200 OK\r\nX-A: " + b"b" * 70000 + b"\r\n\r\n", http.client.LineTooLong),
    (b"HTTP/1.1 200 " + b"O" * 70000 + b"\r\n\r\n", http.client.LineTooLong),
    (b"HTTP/2 200 OK\r\n\r\n", http.client.UnknownProtocol),
    (b"", http.client.RemoteDisconnected),
    (b"SSH-2.0-OpenSSH_9.6\r\n", http.client.BadStatusLine),
    (b"HTTP/1.1 OK\r\n\r\n", http.client.BadStatusLine),
    (b"HTTP/1.1 42 Low\r\n\r\n", http.client.BadStatusLine),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", http.client.IncompleteRead),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{}", http.client.IncompleteRead),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", http.client.IncompleteRead),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}", http.client.IncompleteRead),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"1" * 70000, http.client.LineTooLong),
], ids=["100 headers", "long header line", "long status line", "HTTP/2", "nothing", "not HTTP", "no status",
        "status below 100", "short body", "short chunk", "bad chunk size", "no CRLF after a chunk",
        "long chunk size line"])
def test_refuses_what_http_client_refuses(data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        theirs(data)
    for piece in (None, 1):
        with pytest.raises(error):
            ours(data, piece=piece)


def test_answers_one_after_another_on_one_connection_leave_nothing_behind() -> None:
    connection = Socket(ANSWERS["chunked"], piece=7)
    stream = Stream(connection)  # type: ignore[arg-type]
    assert read_answer(stream, "GET").body == b'{"a":1}'
    assert not stream.pending
    connection.data = ANSWERS["kube-apiserver, content length"]   # the answer to the next request
    assert read_answer(stream, "GET").body == b"{}"
    assert not stream.pending


def test_bytes_past_an_answer_are_left_pending() -> None:
    # A 204 that carries a body anyway: its bytes are not an answer to the next request.
    stream = Stream(Socket(ANSWERS["204"] + b"stray", piece=4))  # type: ignore[arg-type]
    assert read_answer(stream, "GET").body == b""
    assert stream.pending and stream.readline(100) == b"stray"


@pytest.mark.parametrize("head, taken", [
    (b"X-A: b\r\nX-B: c\r\n\r\n{}", ["X-A: b\r\n", "X-B: c\r\n"]),
    (b"\r\n{}", []),                      # no headers
    (b"X-A: b\r\nX-B: c\n\r\n{}", None),   # a bare LF
    (b"X-A: b\r\nX-B: c\r\n", None),       # not all arrived yet
    (b"X-A: b\r\n" * 100 + b"\r\n", None),  # too many: refused line by line, as http.client refuses them
])
def test_a_whole_head_of_crlf_lines_is_taken_at_once_and_any_other_read_line_by_line(head: bytes, taken) -> None:
    stream = Stream(Socket(b"HTTP/1.1 200 OK\r\n" + head))  # type: ignore[arg-type]
    stream.readline(100)
    assert stream.head_lines() == taken
    if taken is not None:
        assert stream.read(2) == b"{}"
    else:   # nothing was taken
        assert stream.readline(100) == head.split(b"\n")[0] + b"\n"


def test_a_204_or_304_has_no_body_whatever_it_says_unlike_http_client() -> None:
    # RFC 9112 section 6.3: such an answer ends at the empty line after its headers. http.client reads chunks after
    # it when it says chunked; ours leaves them, so the connection is not used again (transport.py).
    for status in (b"204 No Content", b"304 Not Modified"):
        data = b"HTTP/1.1 " + status + b"\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
        assert theirs(data)["body"] == b"{}"
        stream = Stream(Socket(data))  # type: ignore[arg-type]
        assert read_answer(stream, "GET").body == b""
        assert stream.pending
