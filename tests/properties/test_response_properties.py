# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading answers (_k8s/response.py) over random answers, however their bytes arrive: always what http.client's
own response reads from the same bytes, or the same error. Answers are built from parts that matter to the framing
(version, status, method, header lines with either line end, folds, Connection, a length, chunks with extensions
and trailers, none of these) and parts that are broken (a length too long or not a number, a chunk size that is not
hex, a body cut short). The one difference on purpose, chunks after a 204 or 304, is in test_response.py."""

from __future__ import annotations

import typing as t

from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.virtinfra.hyperconverged.tests.unit.plugins.module_utils._k8s.test_response import ours, theirs

VALUE = st.text(alphabet="ab :;\t,=-/\u00e9", max_size=12)
NAME = st.sampled_from(["Audit-Id", "Content-Type", "Warning", "X-A", "x-a", "Retry-After", "Cache-Control"])
EOL = st.sampled_from([b"\r\n", b"\n"])


@st.composite
def answers(draw: st.DrawFn) -> bytes:
    version = draw(st.sampled_from([b"HTTP/1.1", b"HTTP/1.0"]))
    status = draw(st.sampled_from([200, 201, 204, 304, 404, 409, 429, 500]))
    head = [b"%s %d Reason" % (version, status) + draw(EOL)]
    for _line in range(draw(st.integers(0, 5))):
        head.append(f"{draw(NAME)}:{draw(VALUE)}".encode("latin-1") + draw(EOL))
        if draw(st.booleans()) and draw(st.booleans()):
            head.append(b"\t" + draw(VALUE).encode("latin-1") + draw(EOL))   # a folded line
    connection = draw(st.sampled_from([None, "close", "keep-alive", "Keep-Alive, x"]))
    if connection:
        head.append(f"Connection: {connection}\r\n".encode())
    body = draw(st.binary(max_size=40))
    framing = draw(st.sampled_from(["length", "chunked", "none", "long length", "bad length", "bad chunk", "cut",
                                    "cut chunks"]))
    if status in (204, 304) and framing in ("chunked", "bad chunk", "cut chunks"):
        framing = "length"   # where ours differs from http.client on purpose: test_response.py
    if framing in ("length", "long length", "bad length", "cut"):
        length = {"length": str(len(body)), "long length": str(len(body) + 3), "bad length": "x1",
                  "cut": str(len(body))}[framing]
        head.append(f"Content-Length: {length}\r\n".encode())
        payload = body[:len(body) // 2] if framing == "cut" else body
    elif framing in ("chunked", "bad chunk", "cut chunks"):
        head.append(b"Transfer-Encoding: chunked\r\n")
        pieces, rest = [], body
        while rest:
            size = draw(st.integers(1, max(1, len(rest))))
            extension = b";name=value" if draw(st.booleans()) else b""
            pieces.append(b"%x%s\r\n%s\r\n" % (size, extension, rest[:size]))
            rest = rest[size:]
        trailer = b"X-Trailer: 1\r\n" if draw(st.booleans()) else b""
        payload = b"".join(pieces) + (b"zz\r\n" if framing == "bad chunk" else b"0\r\n" + trailer + b"\r\n")
        if framing == "cut chunks":
            payload = payload[:draw(st.integers(0, len(payload) - 1))]
    else:
        payload = body
    return b"".join(head) + draw(EOL) + payload


def outcome(read: t.Callable[[], dict[str, t.Any]]) -> t.Any:
    try:
        return read()
    except Exception as exc:  # the error's class is the outcome to compare
        return type(exc)


@settings(max_examples=400, deadline=None)
@given(answers(), st.sampled_from(["GET", "HEAD", "PATCH"]), st.one_of(st.none(), st.integers(1, 16)))
def test_reads_every_answer_as_http_client_does_however_it_arrives(data: bytes, method: str,
                                                                   piece: int | None) -> None:
    assert outcome(lambda: ours(data, method, piece)) == outcome(lambda: theirs(data, method))
