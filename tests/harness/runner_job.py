# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A job run by ansible-runner in a process of its own, as AWX runs one (its worker is a process apart from the web
and task services), and not in the test's process: ansible-runner starts ansible-playbook on a pseudo-terminal, and
forking for one from a pytest-xdist worker, which has threads of its own, is what Python warns may deadlock
(DeprecationWarning: "This process is multi-threaded, use of forkpty() may lead to deadlocks in the child")."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import subprocess
import sys
import typing as t

# Runs in the child: ansible_runner.run with the keyword arguments on stdin; its status and artifact directory out.
_CHILD = """\
import json, sys
import ansible_runner
run = ansible_runner.run(**json.load(sys.stdin))
print(json.dumps({"status": run.status, "rc": run.rc, "artifacts": run.config.artifact_dir}))
"""


@dataclasses.dataclass(frozen=True)
class Job:
    status: str
    rc: int | None
    artifacts: pathlib.Path

    @property
    def stdout(self) -> str:
        return (self.artifacts / "stdout").read_text(errors="replace")

    @property
    def events(self) -> list[dict[str, t.Any]]:
        """The job's events in their order, as ansible-runner stores them (AWX's job events come from the same)."""
        found = [json.loads(path.read_text()) for path in (self.artifacts / "job_events").glob("*.json")]
        return sorted(found, key=lambda event: event["counter"])


def run_job(**kwargs: t.Any) -> Job:
    """ansible_runner.run(**kwargs) in a child Python (quiet: its output is in the artifacts)."""
    done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps({**kwargs, "quiet": True}),
                          capture_output=True, text=True, check=False, timeout=1200)
    if done.returncode != 0:
        raise RuntimeError(f"ansible-runner's process failed ({done.returncode}):\n{done.stderr[-4000:]}")
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return Job(answer["status"], answer["rc"], pathlib.Path(answer["artifacts"]))
