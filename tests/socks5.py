# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tests' SOCKS5 proxy (RFC 1928, with RFC 1929's username and password): it alone resolves the names in its
table, as a proxy in front of a cluster resolves the cluster's names, and records how each CONNECT named its target
(a name, or an address the client resolved itself)."""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
import typing as t

from tunnels import relay


class Socks5(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, names: t.Mapping[str, tuple[str, int]], credentials: tuple[str, str] | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.names, self.credentials = dict(names), credentials
        self.asked: list[tuple[str, str]] = []   # ("name" | "address", what the CONNECT named)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(socketserver.BaseRequestHandler):
    server: Socks5

    def handle(self) -> None:
        sock = self.request
        version, count = _read(sock, 2)
        methods = _read(sock, count)
        wanted = 2 if self.server.credentials else 0
        if version != 5 or wanted not in methods:
            sock.sendall(b"\x05\xff")
            return
        sock.sendall(bytes([5, wanted]))
        if wanted == 2 and not self._authenticated(sock):
            return
        _version, command, _reserved, kind = _read(sock, 4)
        if kind == 3:
            host, named = _read(sock, _read(sock, 1)[0]).decode(), "name"
        elif kind == 1:
            host, named = socket.inet_ntoa(_read(sock, 4)), "address"
        else:
            host, named = socket.inet_ntop(socket.AF_INET6, _read(sock, 16)), "address"
        port = struct.unpack("!H", _read(sock, 2))[0]
        self.server.asked.append((named, f"{host}:{port}"))
        target = self.server.names.get(host) if named == "name" else None
        if command != 1 or target is None:   # only names this proxy resolves; 4: host unreachable
            sock.sendall(b"\x05\x04\x00\x01" + bytes(6))
            return
        upstream = socket.create_connection(target)
        sock.sendall(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack("!H", target[1]))
        relay(sock, upstream, 10)

    def _authenticated(self, sock: socket.socket) -> bool:
        _version, length = _read(sock, 2)
        user = _read(sock, length).decode()
        password = _read(sock, _read(sock, 1)[0]).decode()
        good = (user, password) == self.server.credentials
        sock.sendall(b"\x01\x00" if good else b"\x01\x01")
        return good


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the client closed the connection")
        data += chunk
    return data
