# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fleet in one run against one run per cluster, side by side in one process.

render: N clusters (default 100), each the example inventory's settings and six nodes (named after the cluster),
rendered by one site run from the fleet inventory (--forks) against N single-cluster site runs, each from a
one-cluster inventory of the same settings and nodes into its own directory. Target: fleet <= 0.25x their sum.

apply: N clusters (default 8), each a test API server with the real CRDs (tests/harness), configured once (not
timed); then, --runs times: a no-op of the fleet (one run, --forks) against N single-cluster no-ops, and a settings
change (site_overcommit_percent, alternating) applied by the fleet against the same change applied by N single runs.
Target: fleet <= 0.6x the sum of the single runs, each case. The hosts are limited out (the clusters only).

    python bench/fleet.py render [--clusters 100] [--forks 8] [--singles 100]
    python bench/fleet.py apply [--clusters 8] [--forks 8] [--runs 3]

--singles times that many of the single renders and scales their sum to N (each single run is alike).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from apply import ansible_env  # noqa: E402
from harness.control_plane import ControlPlane, build  # noqa: E402

PLAYBOOK = str(pathlib.Path(sys.executable).parent / "ansible-playbook")
SITE = str(ROOT / "playbooks" / "site.yml")


def example() -> tuple[dict, dict]:
    """The example inventory's settings and its nodes with their facts (group variables merged into each host)."""
    settings = {name: value for name, value in
                yaml.safe_load((ROOT / "examples" / "inventory" / "group_vars" / "all.yml").read_text()).items()
                if value != ""}   # a blank site_kubeconfig would hide the cluster's own kubeconfig
    tree = yaml.safe_load((ROOT / "examples" / "inventory" / "hosts.yml").read_text())
    hosts = {}
    for group in tree["all"]["children"]["kubevirt_nodes"]["children"].values():
        for name, facts in group["hosts"].items():
            hosts[name] = {**group.get("vars", {}), **(facts or {})}
    return settings, hosts


def write_fleet(root: pathlib.Path, count: int, extra: dict, kubeconfigs: list[pathlib.Path] | None = None) -> None:
    settings, hosts = example()
    root.mkdir(parents=True)
    (root / "fleet.yml").write_text("plugin: virtinfra.hyperconverged.fleet\n")
    for index in range(count):
        name = f"c{index:03d}"
        folder = root / "clusters" / name
        folder.mkdir(parents=True)
        (folder / "cluster.yml").write_text(yaml.safe_dump({**settings, **extra}))
        (folder / "nodes.yml").write_text(yaml.safe_dump({"hosts": {f"{name}-{host}": facts
                                                                    for host, facts in hosts.items()}}))
        if kubeconfigs:
            (folder / "kubeconfig").write_text(kubeconfigs[index].read_text())


def single_inventory(folder: pathlib.Path) -> pathlib.Path:
    """The cluster alone: its settings as the inventory's, its nodes as kubevirt_nodes."""
    settings = yaml.safe_load((folder / "cluster.yml").read_text())
    if (folder / "kubeconfig").exists():
        settings["site_kubeconfig"] = str(folder / "kubeconfig")
    hosts = yaml.safe_load((folder / "nodes.yml").read_text())["hosts"]
    path = folder.parent.parent.parent / f"{folder.name}-alone.yml"
    path.write_text(yaml.safe_dump({"all": {"vars": settings, "children": {"kubevirt_nodes": {"hosts": hosts}}}}))
    return path


def timed(command: list[str], cwd: pathlib.Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=ansible_env(), capture_output=True, text=True, check=False, cwd=cwd)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return seconds


def fleet_command(root: pathlib.Path, forks: int, *extra: str) -> list[str]:
    return [PLAYBOOK, SITE, "-i", str(root / "fleet.yml"), "-i", "localhost,", "--limit", "kubevirt_clusters,localhost",
            "--forks", str(forks), "-e", f"ansible_python_interpreter={sys.executable}", *extra]


def single_command(inventory: pathlib.Path, *extra: str) -> list[str]:
    return [PLAYBOOK, SITE, "-i", str(inventory), "-i", "localhost,", "--limit", "localhost",
            "-e", f"ansible_python_interpreter={sys.executable}", *extra]


def render(options: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch)
        write_fleet(work / "fleet", options.clusters, {"site_action": "render", "site_render_dir": str(work / "out")})
        fleet = timed(fleet_command(work / "fleet", options.forks), work)
        singles = []
        for index in range(min(options.singles, options.clusters)):
            inventory = single_inventory(work / "fleet" / "clusters" / f"c{index:03d}")
            singles.append(timed(single_command(inventory, "-e", f"site_render_dir={work / 'single' / str(index)}"),
                                 work))
    total = sum(singles) * options.clusters / len(singles)
    scaled = "" if len(singles) == options.clusters else f" ({len(singles)} timed, scaled to {options.clusters})"
    ratio = fleet / total
    print(f"render of {options.clusters} clusters, forks {options.forks}, {len(os.sched_getaffinity(0))} cores")
    print(f"  fleet: {fleet:.1f} s; single runs: {total:.1f} s in all{scaled}, median {statistics.median(singles):.2f} s")
    print(f"  ratio {ratio:.3f}x (target <= 0.25x)")
    print(json.dumps({"fleet": fleet, "singles": singles, "ratio": ratio}))
    return 0 if ratio <= 0.25 else 1


def apply(options: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as scratch, contextlib.ExitStack() as stack:
        work = pathlib.Path(scratch)
        planes = []
        for index in range(options.clusters):
            plane = ControlPlane(work / f"plane{index}", build()).start()
            stack.callback(plane.stop)
            plane.install_crds()
            planes.append(plane)
        write_fleet(work / "fleet", options.clusters, {"site_platform_version": "1.34"},
                    [plane.kubeconfig for plane in planes])
        folders = sorted((work / "fleet" / "clusters").iterdir())
        inventories = [single_inventory(folder) for folder in folders]
        timed(fleet_command(work / "fleet", options.forks), work)   # from empty: not timed
        cases: dict[str, tuple[list[float], list[float]]] = {"no-op": ([], []), "settings change": ([], [])}
        percent = 150
        for _run in range(options.runs):
            cases["no-op"][0].append(timed(fleet_command(work / "fleet", options.forks), work))
            cases["no-op"][1].append(sum(timed(single_command(inventory), work) for inventory in inventories))
            # The same change for both: the fleet to one value, then every single run to the next.
            percent += 10
            fleet_change = ("-e", f"site_overcommit_percent={percent}")
            cases["settings change"][0].append(timed(fleet_command(work / "fleet", options.forks, *fleet_change), work))
            percent += 10
            cases["settings change"][1].append(sum(timed(single_command(inventory, "-e",
                                                                        f"site_overcommit_percent={percent}"), work)
                                                   for inventory in inventories))
    print(f"apply mode, {options.clusters} clusters, forks {options.forks}, {options.runs} runs, "
          f"{len(os.sched_getaffinity(0))} cores")
    failed = False
    for case, (fleet, singles) in cases.items():
        ratio = statistics.median(fleet) / statistics.median(singles)
        failed = failed or ratio > 0.6
        print(f"  {case}: fleet median {statistics.median(fleet):.1f} s; {options.clusters} single runs median "
              f"{statistics.median(singles):.1f} s in all; ratio {ratio:.2f}x (target <= 0.6x)")
    print(json.dumps(cases))
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("render", "apply"))
    parser.add_argument("--clusters", type=int)
    parser.add_argument("--forks", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--singles", type=int, default=1000)
    options = parser.parse_args()
    options.clusters = options.clusters or (100 if options.mode == "render" else 8)
    return render(options) if options.mode == "render" else apply(options)


if __name__ == "__main__":
    sys.exit(main())
