# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A TCP proxy that delays every byte by a fixed time in each direction: a remote API server, one round trip away.

    python bench/delay_proxy.py --listen 127.0.0.1:0 --to 127.0.0.1:6443 --delay-ms 1

Prints the port it listens on, then forwards until killed. Each direction of a connection has a reader and a writer
thread: a chunk read at time T is written at T + delay, so a request or answer of many TLS records is delayed once,
not once per record, and throughput is not limited (what a network link with that latency does). Threads and
time.sleep, not asyncio, because an event loop's timer granularity (epoll: milliseconds) is coarser than the 0.25 ms
the bench measures. Used where the kernel's netem qdisc is not available to delay loopback traffic.
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import socket
import sys
import threading
import time


def _pump(source: socket.socket, target: socket.socket, delay: float) -> None:
    chunks: queue.SimpleQueue[tuple[float, bytes]] = queue.SimpleQueue()

    def deliver() -> None:
        while True:
            due, data = chunks.get()
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            if not data:
                with contextlib.suppress(OSError):
                    target.shutdown(socket.SHUT_WR)
                return
            try:
                target.sendall(data)
            except OSError:
                return

    writer = threading.Thread(target=deliver, daemon=True)
    writer.start()
    while True:
        try:
            data = source.recv(262144)
        except OSError:
            data = b""
        chunks.put((time.perf_counter() + delay, data))
        if not data:
            break
    writer.join()


def _serve(client: socket.socket, upstream: tuple[str, int], delay: float) -> None:
    try:
        server = socket.create_connection(upstream)
    except OSError:
        client.close()
        return
    for sock in (client, server):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    there = threading.Thread(target=_pump, args=(client, server, delay), daemon=True)
    there.start()
    _pump(server, client, delay)
    there.join()
    client.close()
    server.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--to", required=True, help="HOST:PORT of the server")
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay in milliseconds")
    options = parser.parse_args()
    host, port = options.listen.rsplit(":", 1)
    to_host, to_port = options.to.rsplit(":", 1)
    listener = socket.create_server((host, int(port)), backlog=128)
    print(listener.getsockname()[1], flush=True)
    delay = options.delay_ms / 1000
    while True:
        client, _address = listener.accept()
        threading.Thread(target=_serve, args=(client, (to_host, int(to_port)), delay), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
