# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Host-role benchmark on podman hosts (systemd as PID 1, image from tests/hosts/build-images).

Runs the podman molecule scenario's prepare and converge playbooks: each host alone (converge, then the no-op
rerun), then all hosts together with forks; reports wall time and task counts. Needs root, podman and runc.

    ./scripts/bench-hosts [--hosts 3]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "molecule" / "podman"
IMAGE = "localhost/virtinfra-deb12:latest"
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+skipped=(\d+)", re.M)


def start(name: str) -> None:
    subprocess.run(["podman", "rm", "-f", name], capture_output=True, check=False)
    subprocess.run(["podman", "run", "-d", "--name", name, "--hostname", name, "--systemd=always",
                    "--tmpfs", "/srv/hpp", IMAGE, "/sbin/init"], check=True, capture_output=True)


def stop(name: str) -> None:
    subprocess.run(["podman", "rm", "-f", name], capture_output=True, check=False)


def playbook(inventory: pathlib.Path, book: str, limit: str) -> tuple[float, dict[str, tuple[int, int]]]:
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORKS="10", ANSIBLE_HOST_KEY_CHECKING="False")
    start_time = time.perf_counter()
    done = subprocess.run([str(pathlib.Path(sys.executable).with_name("ansible-playbook")), "-i", str(inventory),
                           "--limit", limit, str(SCENARIO / book)], env=env, capture_output=True, text=True,
                          check=False)
    elapsed = time.perf_counter() - start_time
    if done.returncode != 0:
        raise SystemExit(f"{book} failed:\n{done.stdout[-4000:]}")
    recap = {m.group(1): (int(m.group(2)) + int(m.group(6)), int(m.group(3))) for m in RECAP.finditer(done.stdout)}
    return elapsed, recap


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=3)
    options = parser.parse_args()
    solo = [f"bench-solo{i}" for i in range(options.hosts)]
    group = [f"bench-all{i}" for i in range(options.hosts)]
    with tempfile.TemporaryDirectory() as scratch:
        inventory = pathlib.Path(scratch) / "hosts.ini"
        inventory.write_text("[all]\n" + "\n".join(
            f"{name} ansible_connection=containers.podman.podman ansible_python_interpreter=/usr/bin/python3"
            for name in solo + group) + "\n")
        try:
            for name in solo + group:
                start(name)
            rows = []
            for name in solo:
                playbook(inventory, "prepare.yml", name)
                converge, recap = playbook(inventory, "converge.yml", name)
                noop, recap_noop = playbook(inventory, "converge.yml", name)
                rows.append((name, converge, recap[name], noop, recap_noop[name]))
            playbook(inventory, "prepare.yml", ",".join(group))
            converge, recap = playbook(inventory, "converge.yml", ",".join(group))
            noop, recap_noop = playbook(inventory, "converge.yml", ",".join(group))
        finally:
            for name in solo + group:
                stop(name)
    print(f"{'host':<14}{'converge s':>11}{'tasks':>7}{'changed':>9}{'no-op s':>10}{'tasks':>7}{'changed':>9}")
    for name, conv, (tasks, changed), nop, (tasks_noop, changed_noop) in rows:
        print(f"{name:<14}{conv:>11.1f}{tasks:>7}{changed:>9}{nop:>10.1f}{tasks_noop:>7}{changed_noop:>9}")
    total_tasks = sum(v[0] for v in recap.values())
    total_changed = sum(v[1] for v in recap.values())
    noop_tasks = sum(v[0] for v in recap_noop.values())
    noop_changed = sum(v[1] for v in recap_noop.values())
    print(f"{f'all {options.hosts} (forks)':<14}{converge:>11.1f}{total_tasks:>7}{total_changed:>9}"
          f"{noop:>10.1f}{noop_tasks:>7}{noop_changed:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
