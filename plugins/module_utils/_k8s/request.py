# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writing a request to the API server: the bytes ``http.client``'s ``putrequest``, ``putheader`` and
``endheaders`` write, with the same refusals, built in one join. PRIVATE.

``http.client`` builds the head one header at a time (a check, an encode and a buffer append each) and sends the
head and the body in two writes (two TLS records). The same request built at once and sent in one write costs less
CPU, and an apply from empty sends two requests per object. The answer is read by response.py, with
``http.client``'s rules.
"""

from __future__ import annotations

import http.client
import re
import typing as t

# CPython Lib/http/client.py (3.11-3.13): _is_legal_header_name, _is_illegal_header_value,
# _contains_disallowed_url_pchar_re and _contains_disallowed_method_pchar_re.
_LEGAL_NAME = re.compile(r"[^:\s][^:\r\n]*")
_ILLEGAL_VALUE = re.compile(r"\n(?![ \t])|\r(?![ \t\n])")
_DISALLOWED_URL = re.compile("[\x00-\x20\x7f]")
_DISALLOWED_METHOD = re.compile("[\x00-\x1f]")


def host_header(host: str, port: int, default_port: int) -> str:
    """The Host header http.client sends for a request whose target is a path: the host (IDNA-encoded when it is
    not ASCII, bracketed when it is an IPv6 address) and the port unless it is the scheme's default."""
    try:
        name = host.encode("ascii").decode("ascii")
    except UnicodeEncodeError:
        name = host.encode("idna").decode("ascii")
    if ":" in name:
        name = f"[{name}]"
    return name if port == default_port else f"{name}:{port}"


def request_bytes(method: str, target: str, host: str, headers: t.Sequence[tuple[str, str]],
                  body: bytes | None) -> bytes:
    """Request line, Host, the headers in order, Content-Length when there is a body, the empty line, the body.

    Refused as http.client refuses them: a control character in the method or the target, a header name that is
    not one, a header value that would start a new line."""
    if _DISALLOWED_METHOD.search(method):
        raise ValueError(f"method can't contain control characters. {method!r}")
    if _DISALLOWED_URL.search(target):
        raise http.client.InvalidURL(f"URL can't contain control characters. {target!r}")
    lines = [f"Host: {host}"]
    for name, value in headers:
        if not name.isascii():
            name.encode("ascii")   # raises UnicodeEncodeError, as http.client's encoding of the name does
        if not _LEGAL_NAME.fullmatch(name):
            raise ValueError(f"Invalid header name {name.encode('ascii', 'backslashreplace')!r}")
        if _ILLEGAL_VALUE.search(value):
            raise ValueError(f"Invalid header value {value.encode('latin-1', 'backslashreplace')!r}")
        lines.append(f"{name}: {value}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    lines.append("\r\n")
    head = f"{method} {target} HTTP/1.1\r\n".encode("ascii") + "\r\n".join(lines).encode("latin-1")
    return head + body if body else head
