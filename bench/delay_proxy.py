# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A TCP proxy that delays every byte by a fixed time in each direction: a remote API server, one round trip away.

    python bench/delay_proxy.py --listen 127.0.0.1:0 --to 127.0.0.1:6443 --delay-ms 1

Prints the port it listens on, then forwards until killed or until the process that started it ends. A chunk read
at time T is written at T + delay, so a request or answer of many TLS records is delayed once, not once per record,
and throughput is not limited (what a network link with that latency does). Used where the kernel's netem qdisc is
not available to delay loopback traffic, in its place.

netem costs the machine next to nothing; this proxy runs on the cores the clients and the API server share, so it
must cost as little. The proxy itself is bench/delay_proxy.c (one epoll loop), built here with the C compiler on
first use. Its first version was Python, two threads per direction: over the 20,000 requests of
10,000 ConfigMaps from empty at 1 ms it took 4 to 8 CPU s (more the busier the machine: its threads contend for
Python's lock), time the client and the server then did not have. An epoll loop in Python still took about 4. The C
loop takes 2 to 2.6, nine tenths of it in the kernel (the loopback TCP work of its reads and writes).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "delay_proxy.c"


def binary() -> pathlib.Path:
    """The proxy built from SOURCE, once per version of it (in the project's .cache)."""
    code = SOURCE.read_bytes()
    target = HERE.parent / ".cache" / "bench" / f"delay_proxy-{hashlib.sha256(code).hexdigest()[:16]}"
    if not target.exists():
        compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            raise SystemExit("bench/delay_proxy.py needs a C compiler (cc or gcc; on Debian: apt-get install gcc)")
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = target.with_suffix(f".{os.getpid()}")
        subprocess.run([compiler, "-O2", "-Wall", "-o", str(scratch), str(SOURCE)], check=True)
        scratch.replace(target)
        for stale in target.parent.glob("delay_proxy-*"):
            if stale != target:
                stale.unlink(missing_ok=True)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--to", required=True, help="HOST:PORT of the server")
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay in milliseconds")
    options = parser.parse_args()
    host, port = options.listen.rsplit(":", 1)
    to_host, to_port = options.to.rsplit(":", 1)
    program = str(binary())
    # The same process after exec: the C proxy's parent is this one's, which it outlives by no more than a signal.
    os.execv(program, [program, host, port, to_host, to_port, str(round(options.delay_ms * 1e6)), str(os.getppid())])
    return 1


if __name__ == "__main__":
    sys.exit(main())
