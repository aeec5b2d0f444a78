# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tests' CONNECT proxies: once a tunnel is granted, bytes relayed both ways until either side closes."""

from __future__ import annotations

import select
import socket


def relay(client: socket.socket, upstream: socket.socket, idle: float) -> None:
    """Copies what either socket receives to the other; ends when one closes, or after ``idle`` seconds of silence.
    Closes ``upstream``; ``client`` is the caller's."""
    sockets = [client, upstream]
    try:
        while True:
            readable = select.select(sockets, [], [], idle)[0]
            if not readable:
                return
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                (upstream if sock is client else client).sendall(data)
    finally:
        upstream.close()
