# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/delay_proxy.py, which the latency benches measure through: each direction delayed by the delay given and no
more, every byte passed on in order, a half-close passed on after the delay, a reset closing the connection, and no
socket left open once a connection is done. Real sockets, the proxy built as the benches build it."""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import typing as t

import pytest
from harness.hygiene import alive

PROXY = pathlib.Path(__file__).resolve().parents[2] / "bench" / "delay_proxy.py"
DELAY = 0.02   # seconds each way: large beside the scheduling noise of a busy two-core machine

# CI installs a compiler (scripts/host-tools): there a missing one is a failure, not a skip.
NO_COMPILER = shutil.which("cc") is None and shutil.which("gcc") is None


@pytest.fixture(autouse=True)
def _a_compiler() -> None:
    if not NO_COMPILER:
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail("CI=true and no C compiler to build bench/delay_proxy.py's proxy")
    pytest.skip("bench/delay_proxy.py builds its proxy with a C compiler; none is installed")


class Upstream:
    """A server that answers each connection with ``serve``."""

    def __init__(self, serve: t.Callable[[socket.socket], None]) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.serve = serve
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _address = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()


def echo(conn: socket.socket) -> None:
    with conn:
        while data := conn.recv(65536):
            conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)


@pytest.fixture
def proxied() -> t.Iterator[t.Callable[[t.Callable[[socket.socket], None]], tuple[int, subprocess.Popen]]]:
    started: list[tuple[Upstream, subprocess.Popen]] = []

    def start(serve: t.Callable[[socket.socket], None]) -> tuple[int, subprocess.Popen]:
        upstream = Upstream(serve)
        process = subprocess.Popen([sys.executable, str(PROXY), "--to", f"127.0.0.1:{upstream.port}",
                                    "--delay-ms", str(DELAY * 1000)], stdout=subprocess.PIPE, text=True)
        started.append((upstream, process))
        assert process.stdout is not None
        return int(process.stdout.readline()), process

    yield start
    for upstream, process in started:
        process.kill()
        process.wait()
        upstream.listener.close()


def connected(port: int) -> socket.socket:
    """A client connection whose reads give up after 10 s: a proxy that kept an end back fails the test, not hangs."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(10)
    return sock


def received_all(sock: socket.socket) -> bytes:
    chunks = []
    while data := sock.recv(1 << 20):
        chunks.append(data)
    return b"".join(chunks)


def sockets_settled(process: subprocess.Popen, within: float = 5) -> int:
    """The sockets the proxy holds once it holds its listener only, or ``within`` seconds have passed."""
    deadline = time.monotonic() + within
    while True:
        count = sum(1 for fd in os.listdir(f"/proc/{process.pid}/fd")
                    if os.readlink(f"/proc/{process.pid}/fd/{fd}").startswith("socket:"))
        if count <= 1 or time.monotonic() >= deadline:
            return count
        time.sleep(0.01)


def test_each_round_trip_takes_the_delay_twice_and_little_more(proxied):
    port, _process = proxied(echo)
    with connected(port) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        trips = []
        for i in range(20):
            start = time.perf_counter()
            sock.sendall(b"%03d" % i)
            assert sock.recv(16) == b"%03d" % i
            trips.append(time.perf_counter() - start)
    assert min(trips) >= 2 * DELAY
    # Not once per chunk or per read: a proxy that delayed the echo's answer twice would take 3 x DELAY.
    assert sorted(trips)[len(trips) // 2] < 2.5 * DELAY


def test_every_byte_arrives_in_order_both_ways_and_the_end_is_passed_on(proxied):
    port, process = proxied(echo)
    payload = os.urandom(8 << 20)
    with connected(port) as sock:
        answer: list[bytes] = []
        reader = threading.Thread(target=lambda: answer.append(received_all(sock)))
        reader.start()
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)   # the echo sees the end only through the proxy, and ends its answer
        reader.join(timeout=30)
    assert answer == [payload]
    # Both ends closed by now, or within a delay or two: the proxy keeps its listener only.
    assert sockets_settled(process) == 1


def test_a_reset_by_the_server_closes_the_clients_connection(proxied):
    def reset(conn: socket.socket) -> None:
        conn.recv(16)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))   # linger 0: RST on close
        conn.close()

    port, process = proxied(reset)
    with connected(port) as sock:
        sock.sendall(b"hello")
        assert sock.recv(16) == b""   # the reset, passed on as the end of the stream after the delay
    assert sockets_settled(process) == 1


def test_many_connections_at_once_are_each_served(proxied):
    port, _process = proxied(echo)
    answers: dict[int, bytes] = {}

    def client(number: int) -> None:
        with connected(port) as sock:
            sock.sendall(b"client %d" % number)
            sock.shutdown(socket.SHUT_WR)
            answers[number] = received_all(sock)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert answers == {n: b"client %d" % n for n in range(32)}


def test_the_proxy_ends_with_the_process_that_started_it():
    # A bench killed midway (SIGKILL: nothing of its own runs) must not leave its proxy behind. The go-between starts
    # the proxy as the benches do, says the proxy's pid, and waits to be killed.
    starter = ("import subprocess, sys\n"
               f"proxy = subprocess.Popen([sys.executable, {str(PROXY)!r}, '--to', '127.0.0.1:9', '--delay-ms', '1'],"
               " stdout=subprocess.PIPE, text=True)\n"
               "proxy.stdout.readline()\n"
               "print(proxy.pid, flush=True)\n"
               "sys.stdin.read()\n")
    parent = subprocess.Popen([sys.executable, "-c", starter], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    assert pathlib.Path(f"/proc/{pid}/exe").resolve().name.startswith("delay_proxy-")   # the C proxy, listening
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    left = alive(pid)
    if left:
        os.kill(pid, signal.SIGKILL)   # the test failed; the machine is still left as it was
    assert not left
