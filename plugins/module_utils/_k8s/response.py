# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading the head of an API server's answer: ``http.client``'s response, its header block read without the email
package. PRIVATE.

``http.client.parse_headers`` hands the header block to ``email.parser``, about 20 us of CPU per answer (seven
headers from kube-apiserver); reading the lines into an ``HTTPMessage`` directly takes about 8 us. From empty, an
apply reads two answers per object. Everything else (status line, body, chunked transfer, keep-alive) is
``http.client``'s own.
"""

from __future__ import annotations

import http.client
import re
import typing as t

_MAXLINE = 65536      # as http.client: one header line, and the number of headers
_MAXHEADERS = 100
# email.feedparser's headerRE: a name of printable characters but the colon, then the colon.
_HEADER = re.compile(r"([\x21-\x39\x3b-\x7e]*):(.*)", re.DOTALL)


class Response(http.client.HTTPResponse):
    """``HTTPResponse`` whose ``begin`` reads the header lines itself.

    ``begin`` follows CPython's ``Lib/http/client.py`` ``HTTPResponse.begin`` (unchanged from 3.11 to 3.13) step
    by step; only the header block differs. tests/unit compare both on the same bytes.
    """

    def begin(self) -> None:
        if self.headers is not None:
            return
        while True:   # skip interim 100 Continue answers
            version, status, reason = self._read_status()
            if status != http.client.CONTINUE:
                break
            header_block(self.fp)
        self.code = self.status = status
        self.reason = reason.strip()
        if version in ("HTTP/1.0", "HTTP/0.9"):
            self.version = 10
        elif version.startswith("HTTP/1."):
            self.version = 11
        else:
            raise http.client.UnknownProtocol(version)
        self.headers = self.msg = header_block(self.fp)
        encoding = self.headers.get("transfer-encoding")
        self.chunked = bool(encoding) and encoding.lower() == "chunked"
        self.chunk_left = None
        self.will_close = self._check_close()
        self.length = None
        length = self.headers.get("content-length")
        if length and not self.chunked:
            try:
                self.length = int(length)
            except ValueError:
                self.length = None
            if self.length is not None and self.length < 0:
                self.length = None
        if status in (http.client.NO_CONTENT, http.client.NOT_MODIFIED) or 100 <= status < 200 \
                or self._method == "HEAD":
            self.length = 0
        if not self.will_close and not self.chunked and self.length is None:
            self.will_close = True


def header_block(stream: t.BinaryIO) -> http.client.HTTPMessage:
    """The header lines up to the empty line, as ``email.parser`` (policy compat32) reads them for http.client: a
    folded line continues the header before it, and a line that is not a header ends the headers (the rest of the
    block is read and dropped)."""
    message = http.client.HTTPMessage()
    fields: list[tuple[str, str]] = []
    ended = False
    for count in range(1, _MAXHEADERS + 2):
        line = stream.readline(_MAXLINE + 1)
        if len(line) > _MAXLINE:
            raise http.client.LineTooLong("header line")
        if count > _MAXHEADERS:
            raise http.client.HTTPException(f"got more than {_MAXHEADERS} headers")
        if line in (b"\r\n", b"\n", b""):
            break
        if ended:
            continue
        text = line.decode("iso-8859-1")
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
    for name, value in fields:
        message[name] = value.rstrip("\r\n")
    return message
