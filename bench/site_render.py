# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site in render mode, timed under every supported ansible-core side by side in one run.

For each version (tests/matrix/versions.txt, the matrix's cached venvs) and each of --runs runs, into a new output
directory every time:
  - a one-task ansible-playbook run (debug on localhost): what any playbook costs to start;
  - the site playbook in render mode on the example inventory, and of that the write_manifests task alone
    (ansible.posix.profile_tasks);
  - write_manifests alone with 500 ConfigMaps.
Targets (the GitOps tree's issue): the site <= 2x the one-task run, <= 1 s of it writing; the same write
bound for 500 objects. Medians are printed; the exit status is 1 when a target is missed.

    python bench/site_render.py [--runs 3] [--versions 2.16.19,2.21.5]
    python bench/site_render.py --nodes 6,200,500 [--versions 2.21.5]

--nodes times the site alone on inventories of that many nodes (the example's three infra nodes, the rest workload
nodes like the example's), under the first version given; target: the largest <= 2x the smallest.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "matrix"))

import run as matrix  # noqa: E402  (tests/matrix/run.py: venvs, collection path, environment)

ONE_TASK = """\
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: One task
      ansible.builtin.debug:
        msg: hello
"""
MANY_OBJECTS = """\
- hosts: localhost
  connection: local
  gather_facts: false
  vars_files: [objects.yml]
  tasks:
    - name: Write the objects
      virtinfra.hyperconverged.write_manifests:
        dest: "{{ out }}"
        objects: "{{ objects }}"
"""


def task_seconds(output: str, name: str) -> float:
    """The time ansible.posix.profile_tasks gives a task in its closing list."""
    match = re.search(rf"^{re.escape(name)} -+ (\d+\.\d+)s$", output, re.MULTILINE)
    if not match:
        raise RuntimeError(f"no profile_tasks line for {name!r}:\n{output[-3000:]}")
    return float(match.group(1))


def timed(command: list[str], env: dict[str, str], cwd: pathlib.Path) -> tuple[float, str]:
    start = time.monotonic()
    result = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False, timeout=600)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{(result.stdout + result.stderr)[-3000:]}")
    return seconds, result.stdout


def measure(venv: pathlib.Path, scratch: pathlib.Path, runs: int) -> dict[str, float]:
    env = matrix.ansible_env(venv, scratch / "ansible-home")
    env["ANSIBLE_CALLBACKS_ENABLED"] = "ansible.posix.profile_tasks"
    playbook = str(venv / "bin" / "ansible-playbook")
    python = f"ansible_python_interpreter={venv / 'bin' / 'python'}"
    (scratch / "one.yml").write_text(ONE_TASK)
    (scratch / "many.yml").write_text(MANY_OBJECTS)
    objects = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{n}", "namespace": "bench"},
                "data": {"key": f"value {n}"}} for n in range(500)]
    (scratch / "objects.yml").write_text(json.dumps({"objects": objects}))  # JSON is YAML
    samples: dict[str, list[float]] = {"one task": [], "site": [], "site write": [], "500 objects": [],
                                       "500 write": []}
    for index in range(runs):
        samples["one task"].append(timed([playbook, "-i", "localhost,", "-e", python, "one.yml"], env, scratch)[0])
        seconds, output = timed([playbook, "-i", str(matrix.INVENTORY), str(ROOT / "playbooks" / "site.yml"), "-e",
                                 python, "-e", f"site_render_dir={scratch / f'site-{index}'}"], env, scratch)
        samples["site"].append(seconds)
        samples["site write"].append(task_seconds(output, "Write one file per object (kind-namespace-name.yaml; "
                                                          "only files this collection wrote are ever replaced)"))
        seconds, output = timed([playbook, "-i", "localhost,", "-e", python, "-e", f"out={scratch / f'many-{index}'}",
                                 "many.yml"], env, scratch)
        samples["500 objects"].append(seconds)
        samples["500 write"].append(task_seconds(output, "Write the objects"))
    return {key: statistics.median(values) for key, values in samples.items()}


def inventory(directory: pathlib.Path, nodes: int) -> pathlib.Path:
    """The example inventory with ``nodes`` nodes: its infra nodes and as many workload nodes as it takes."""
    example = yaml.safe_load(matrix.INVENTORY.read_text())
    groups = example["all"]["children"]["kubevirt_nodes"]["children"]
    infra = groups["infra_nodes"]["hosts"]
    groups["workload_nodes"]["hosts"] = {
        f"worker{n}": {"ansible_host": f"198.18.{n // 250}.{n % 250 + 1}"} for n in range(1, nodes - len(infra) + 1)}
    directory.mkdir(parents=True)
    shutil.copytree(matrix.INVENTORY.parent / "group_vars", directory / "group_vars")
    (directory / "hosts.yml").write_text(yaml.safe_dump(example))
    return directory


def by_node_count(release: matrix.Release, counts: list[int], runs: int) -> int:
    python = matrix.python_for(release)
    if not python:
        print(f"{release.version}: no Python {' or '.join(release.pythons)} here")
        return 1
    venv = matrix.ensure_venv(release, python)
    medians = {}
    with tempfile.TemporaryDirectory(prefix="virtinfra-bench-") as scratch_name:
        scratch = pathlib.Path(scratch_name)
        env = matrix.ansible_env(venv, scratch / "ansible-home")
        for count in counts:
            hosts = inventory(scratch / f"inventory-{count}", count)
            samples = []
            for index in range(runs):
                seconds, _output = timed([str(venv / "bin" / "ansible-playbook"), "-i", str(hosts),
                                          str(ROOT / "playbooks" / "site.yml"),
                                          "-e", f"ansible_python_interpreter={venv / 'bin' / 'python'}",
                                          "-e", f"site_render_dir={scratch / f'site-{count}-{index}'}"], env, scratch)
                samples.append(seconds)
            medians[count] = statistics.median(samples)
            print(f"{count:>5} nodes: site in render mode {medians[count]:6.2f} s (median of {runs}, "
                  f"ansible-core {release.version})")
    ratio = medians[max(counts)] / medians[min(counts)]
    print(f"{max(counts)} nodes / {min(counts)} nodes: {ratio:.2f}x (target <= 2x)")
    return 0 if ratio <= 2 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--versions", default="", help="comma-separated subset of tests/matrix/versions.txt")
    parser.add_argument("--nodes", default="", help="comma-separated node counts: the site alone at each (see above)")
    args = parser.parse_args()
    wanted = set(filter(None, args.versions.split(",")))
    rows = [r for r in matrix.releases() if not wanted or r.version in wanted]
    if args.nodes:
        newest_first = sorted(rows, key=lambda r: [int(p) for p in r.version.split(".")], reverse=True)
        return by_node_count(newest_first[0], [int(n) for n in args.nodes.split(",")], args.runs)
    print(f"{'ansible-core':<13}{'python':<8}{'one task':>9}{'site':>7}{'ratio':>7}{'writing':>9}"
          f"{'500 objs':>10}{'writing':>9}")
    missed = []
    for release in rows:
        python = matrix.python_for(release)
        if not python:
            print(f"{release.version:<13}no Python {' or '.join(release.pythons)} here: skipped")
            continue
        venv = matrix.ensure_venv(release, python)
        with tempfile.TemporaryDirectory(prefix="virtinfra-bench-") as scratch:
            m = measure(venv, pathlib.Path(scratch), args.runs)
        ratio = m["site"] / m["one task"]
        print(f"{release.version:<13}{matrix.python_minor(venv):<8}{m['one task']:>8.2f}s{m['site']:>6.2f}s"
              f"{ratio:>6.1f}x{m['site write']:>8.2f}s{m['500 objects']:>9.2f}s{m['500 write']:>8.2f}s")
        if ratio > 2 or m["site write"] > 1 or m["500 write"] > 1:
            missed.append(release.version)
    print(f"medians of {args.runs} run(s); targets: site <= 2x the one-task run, writing <= 1 s (site and 500 objects)")
    if missed:
        print("targets missed under: " + ", ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
