# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The nodes inventory and the site's apply-mode no-op at 6 and at 500 nodes, side by side in one run.

On the test control plane with its controllers and kwok (tests/harness/node_pools.py: three control-plane nodes and
two pools), paused while timing (their heart-beats for 500 nodes would share the two cores with what is timed).
For each size: ``ansible-inventory --list`` with the nodes plugin beside ``kubectl get nodes -o json`` (the peer:
what a user would run to read the same), wall time and peak memory (each command's own maximum resident
set, read by a fresh wrapper process); then the site in apply mode, applied once (not timed) and --runs no-ops, with
its writes counted at the server, on two inventories: the nodes inventory (a host per Node: Ansible's own cost per
host grows with it) and a fixed inventory of the first six Nodes by name (what the site's plan from the live Nodes
costs alone). Printed: the medians and the ratio of each no-op at 500 nodes to the one at 6 (target <= 1.2x).

    python bench/nodes.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from apply import ansible_env  # noqa: E402
from harness.control_plane import ControlPlane, build  # noqa: E402
from harness.node_pools import pools  # noqa: E402

# Runs one command and prints its wall time and the peak resident memory of its process tree's largest process.
_MEASURE = """\
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
seconds = time.perf_counter() - start
if done.returncode:
    sys.exit(done.stderr.decode(errors="replace")[-3000:])
print(json.dumps({"seconds": seconds, "max_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""
SELECTORS = {"workload_node_selector": {"pool": "vm"}, "infra_node_selector": {"pool": "general"}}


def measured(command: list[str]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", _MEASURE, *command], env=ansible_env(), capture_output=True,
                          text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{command} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout))


def inventory(work: pathlib.Path, plane: ControlPlane, names: list[str] | None = None) -> pathlib.Path:
    """The nodes inventory, or with ``names`` a static one of those hosts, and the site's settings."""
    directory = work / ("fixed" if names else "inventory")
    (directory / "group_vars").mkdir(parents=True, exist_ok=True)
    if names:
        (directory / "hosts.yml").write_text(yaml.safe_dump(
            {"all": {"children": {"kubevirt_nodes": {"hosts": {name: {} for name in names}}}}}))
    else:
        (directory / "cluster.nodes.yml").write_text(yaml.safe_dump({
            "plugin": "virtinfra.hyperconverged.nodes", "kubeconfig": str(plane.kubeconfig), **SELECTORS}))
    (directory / "group_vars" / "all.yml").write_text(yaml.safe_dump({
        "site_kubeconfig": str(plane.kubeconfig), "site_platform_version": "1.34", "site_overcommit_percent": 150,
        **{f"site_{name}": value for name, value in SELECTORS.items()}}))
    return directory


def median(samples: list[dict[str, float]], key: str) -> float:
    return statistics.median(sample[key] for sample in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    bindir = pathlib.Path(sys.executable).parent
    results: dict[int, dict[str, list[dict[str, float]]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch)
        plane = ControlPlane(work / "control-plane", build(), controllers=True).start()
        try:
            plane.install_crds()
            directory = inventory(work, plane)
            all_nodes = pools(500)
            fixed = inventory(work, plane, [node["metadata"]["name"] for node in all_nodes[:6]])
            added = 0
            for size in (6, 500):
                plane.add_nodes(all_nodes[added:size], timeout=300)
                added = size
                plugin = [str(bindir / "ansible-inventory"), "-i", str(directory / "cluster.nodes.yml"), "--list"]
                kubectl = [str(plane.kubectl), f"--kubeconfig={plane.kubeconfig}", "get", "nodes", "-o", "json"]
                site, site_fixed = ([str(bindir / "ansible-playbook"), str(ROOT / "playbooks" / "site.yml"), "-i",
                                     str(where), "-i", "localhost,", "--limit", "localhost",
                                     "-e", f"ansible_python_interpreter={sys.executable}"] for where in (directory, fixed))
                measured(site)   # the first apply at this size: not timed
                mark = plane.audit_offset()
                with plane.controllers_paused():
                    results[size] = {"plugin": [measured(plugin) for _run in range(options.runs)],
                                     "kubectl": [measured(kubectl) for _run in range(options.runs)],
                                     "site": [measured(site) for _run in range(options.runs)],
                                     "site_fixed": [measured(site_fixed) for _run in range(options.runs)]}
                writes = [e for e in plane.audit_events(mark, "admin")
                          if e["verb"] in ("create", "update", "patch", "delete") and "dryRun" not in e["requestURI"]]
                results[size]["writes"] = [{"count": float(len(writes))}]
        finally:
            plane.stop()
    print(f"nodes inventory and site no-op, {options.runs} runs each (medians)")
    for size, found in results.items():
        print(f"  {size:>3} nodes: plugin {median(found['plugin'], 'seconds'):.2f} s, "
              f"{median(found['plugin'], 'max_rss_mib'):.0f} MiB | kubectl get nodes "
              f"{median(found['kubectl'], 'seconds'):.2f} s, {median(found['kubectl'], 'max_rss_mib'):.0f} MiB | "
              f"site no-op {median(found['site'], 'seconds'):.2f} s, {median(found['site'], 'max_rss_mib'):.0f} MiB "
              f"(fixed 6-host inventory {median(found['site_fixed'], 'seconds'):.2f} s), "
              f"{found['writes'][0]['count']:.0f} writes")
    for key, said in (("site", "nodes inventory"), ("site_fixed", "fixed 6-host inventory")):
        ratio = median(results[500][key], "seconds") / median(results[6][key], "seconds")
        print(f"  site no-op at 500 nodes / at 6, {said}: {ratio:.2f}x (target <= 1.2x)")
    print(json.dumps({str(size): found for size, found in results.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
