# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading an API server's answer off a keep-alive connection: status line, headers and body, framed as HTTP/1.1
frames them (a length, chunks, or the rest of the stream). PRIVATE.

``http.client``'s response built a file object, an ``HTTPResponse`` and a header message for every answer; reading
the same bytes from a buffer kept with the connection costs measurably less CPU per request, and from empty an apply
reads two answers per object.

The rules are ``http.client``'s (CPython ``Lib/http/client.py``, 3.11 to 3.13: ``HTTPResponse.begin``,
``_read_status``, ``_check_close``, ``_read_chunked``; the header block as ``email.parser`` reads it for
``http.client.parse_headers``, policy compat32), the same errors included.
"""

from __future__ import annotations

import dataclasses
import http.client
import re
import socket
import typing as t

_MAXLINE = 65536      # as http.client: one status, header or chunk-size line, and the number of headers
# The largest answer read, as sent and once decompressed (transport.decoded). http.client sets no such limit; an API
# server's largest answers are LISTs, and one of this size already takes gigabytes once decoded into Python objects.
MAX_ANSWER_BYTES = 512 << 20
_MAXHEADERS = 100
_RECEIVE = 65536
# email.feedparser's headerRE: a name of printable characters but the colon, then the colon.
_HEADER = re.compile(r"([\x21-\x39\x3b-\x7e]*):(.*)", re.DOTALL)
_NO_BODY = (http.client.NO_CONTENT, http.client.NOT_MODIFIED)


class Stream:
    """The bytes of one connection as they arrive, with what was received but not yet read. An answer read in full
    leaves nothing behind: anything left means the connection is out of step and is not used again."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = bytearray()
        self._start = 0   # where the unread bytes begin

    def close(self) -> None:
        self.sock.close()

    @property
    def pending(self) -> bool:
        return len(self._buffer) > self._start

    def _receive(self) -> bool:
        data = self.sock.recv(_RECEIVE)
        if not data:
            return False
        if self._start:
            del self._buffer[:self._start]
            self._start = 0
        self._buffer += data
        return True

    def readline(self, limit: int) -> bytes:
        """Up to and with the next newline; at most ``limit`` bytes (the caller refuses a line that long), or what
        is left when the stream ends."""
        while True:
            end = self._buffer.find(b"\n", self._start, self._start + limit)
            if end >= 0:
                return self._take(end + 1 - self._start)
            if len(self._buffer) - self._start >= limit or not self._receive():
                return self._take(min(limit, len(self._buffer) - self._start))

    def head_lines(self) -> list[str] | None:
        """The header lines up to the empty line, with their line ends, when the whole block has arrived, every
        line ends in CRLF and none is too long or too many (kube-apiserver's answers): taken at once, the block is read in one
        pass instead of line by line. None otherwise, and nothing is taken."""
        start = self._start
        if self._buffer.startswith(b"\r\n", start):
            self._skip(2)
            return []
        end = self._buffer.find(b"\r\n\r\n", start)
        if end < 0 or end - start > _MAXLINE:
            return None
        block = self._buffer[start:end]
        lines = block.count(b"\n") + 1
        if lines >= _MAXHEADERS or block.count(b"\r\n") != lines - 1:   # a bare LF: read line by line
            return None
        self._skip(end + 4 - start)
        return [line + "\r\n" for line in block.decode("iso-8859-1").split("\r\n")]

    def read(self, size: int) -> bytes:
        """Exactly ``size`` bytes; fewer only when the stream ends first."""
        while len(self._buffer) - self._start < size and self._receive():
            pass
        return self._take(min(size, len(self._buffer) - self._start))

    def read_to_end(self) -> bytes:
        while self._receive():
            refuse_past(len(self._buffer) - self._start)
        return self._take(len(self._buffer) - self._start)

    def _take(self, size: int) -> bytes:
        data = bytes(self._buffer[self._start:self._start + size])
        self._skip(size)
        return data

    def _skip(self, size: int) -> None:
        self._start += size
        if self._start == len(self._buffer):
            self._buffer.clear()
            self._start = 0


class Headers:
    """The header fields in order; a name looked up in any case gives its first value, as ``HTTPMessage`` does."""

    __slots__ = ("_fields", "_first")

    def __init__(self, fields: t.Sequence[tuple[str, str]]) -> None:
        self._fields = tuple(fields)
        self._first: dict[str, str] = {}
        for name, value in self._fields:
            self._first.setdefault(name.lower(), value)

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._first.get(name.lower(), default)

    def items(self) -> list[tuple[str, str]]:
        return list(self._fields)


@dataclasses.dataclass(frozen=True)
class Reply:
    status: int
    reason: str
    version: t.Literal[10, 11]
    headers: Headers
    body: bytes
    will_close: bool   # the server closes the connection after it (or must: HTTP/1.0 without keep-alive)


def read_answer(stream: Stream, method: str) -> Reply:
    """The next answer on the stream, skipping interim ``100 Continue`` answers as http.client does."""
    while True:
        version, status, reason = _status_line(stream)
        if status != http.client.CONTINUE:
            break
        header_block(stream)
    if version in ("HTTP/1.0", "HTTP/0.9"):
        number: t.Literal[10, 11] = 10
    elif version.startswith("HTTP/1."):
        number = 11
    else:
        raise http.client.UnknownProtocol(version)
    headers = header_block(stream)
    will_close = _closes(number, headers)
    chunked = (headers.get("transfer-encoding") or "").lower() == "chunked"
    length = _length(headers) if not chunked else None
    if status in _NO_BODY or 100 <= status < 200 or method == "HEAD":
        body = b""
    elif chunked:
        body = _chunked(stream)
    elif length is not None:
        refuse_past(length)
        body = stream.read(length)
        if len(body) < length:
            raise http.client.IncompleteRead(body, length - len(body))
    else:
        will_close = True   # no length and not chunked: the body ends when the server closes the connection
        body = stream.read_to_end()
    return Reply(status, reason.strip(), number, headers, body, will_close)


def _status_line(stream: Stream) -> tuple[str, int, str]:
    line = _line(stream, "status line").decode("iso-8859-1")
    if not line:
        raise http.client.RemoteDisconnected("Remote end closed connection without response")
    parts = line.split(None, 2)
    version, code, reason = (parts + ["", ""])[:3] if len(parts) >= 2 else ("", "", "")
    if not version.startswith("HTTP/"):
        raise http.client.BadStatusLine(line)
    try:
        status = int(code)
    except ValueError:
        raise http.client.BadStatusLine(line) from None
    if not 100 <= status <= 999:
        raise http.client.BadStatusLine(line)
    return version, status, reason


def _closes(version: int, headers: Headers) -> bool:
    connection = (headers.get("connection") or "").lower()
    if version == 11:
        return "close" in connection
    # HTTP/1.0 keeps the connection only when told to.
    return not (headers.get("keep-alive") or "keep-alive" in connection
                or "keep-alive" in (headers.get("proxy-connection") or "").lower())


def _length(headers: Headers) -> int | None:
    try:
        length = int(headers.get("content-length") or "")
    except ValueError:
        return None
    return length if length >= 0 else None


def _chunked(stream: Stream) -> bytes:
    pieces: list[bytes] = []
    total = 0
    while True:
        line = _line(stream, "chunk size")
        try:
            size = int(line.split(b";", 1)[0], 16)   # chunk extensions are ignored
        except ValueError:
            raise http.client.IncompleteRead(b"".join(pieces)) from None
        if size == 0:
            break
        total += size
        refuse_past(total)
        piece = stream.read(size)
        if len(piece) < size:
            raise http.client.IncompleteRead(b"".join(pieces) + piece, size - len(piece))
        pieces.append(piece)
        if len(stream.read(2)) < 2:   # the CRLF after the chunk's data
            raise http.client.IncompleteRead(b"".join(pieces), 2)
    while True:   # the trailer fields, if any, up to the empty line (or the end of the stream)
        line = _line(stream, "trailer line")
        if line in (b"\r\n", b"\n", b""):
            return b"".join(pieces)


def header_block(stream: Stream) -> Headers:
    """The header lines up to the empty line, as ``email.parser`` (policy compat32) reads them for http.client: a
    folded line continues the header before it, and a line that is not a header ends the headers (the rest of the
    block is read and dropped)."""
    lines = stream.head_lines()
    fields: list[tuple[str, str]] = []
    ended = False
    for text in _lines_one_by_one(stream) if lines is None else lines:
        if ended:
            continue
        if text[0] in " \t":
            if fields:
                fields[-1] = (fields[-1][0], fields[-1][1] + text)
            continue
        header = _HEADER.match(text)
        if header is None:
            ended = True
            continue
        name, value = header.groups()
        fields.append((name, value.lstrip(" \t")))
    return Headers([(name, value.rstrip("\r\n")) for name, value in fields])


def _lines_one_by_one(stream: Stream) -> t.Iterator[str]:
    """The header lines with their line ends, read one at a time, refused as http.client refuses them."""
    for count in range(1, _MAXHEADERS + 2):
        line = _line(stream, "header line")
        if count > _MAXHEADERS:
            raise http.client.HTTPException(f"got more than {_MAXHEADERS} headers")
        if line in (b"\r\n", b"\n", b""):
            return
        yield line.decode("iso-8859-1")


def refuse_past(size: int) -> None:
    """Refuses an answer past MAX_ANSWER_BYTES (transport.py reads answers through a proxy with it too)."""
    if size > MAX_ANSWER_BYTES:
        raise http.client.HTTPException(f"the answer is larger than {MAX_ANSWER_BYTES:,} bytes")


def _line(stream: Stream, what: str) -> bytes:
    """The next line, refused as http.client refuses one longer than its limit."""
    line = stream.readline(_MAXLINE + 1)
    if len(line) > _MAXLINE:
        raise http.client.LineTooLong(what)
    return line
