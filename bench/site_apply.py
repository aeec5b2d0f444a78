# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site in apply mode doing nothing: its wall time beside a one-task playbook's, and its API requests.

On the test API server (with the real CRDs): the site on the example inventory applies once (not timed), then runs
--runs more times, each a no-op; beside each, a one-task playbook. Printed: the medians, their ratio and the median of
the runs' ratios to the one-task run beside each (target <= 3x),
the requests of the last no-op as its summary counts them and as the server's audit log saw them, and its writes
(target: none). --delay-ms puts bench/delay_proxy.py between the runs and the server (a remote control plane).

    python bench/site_apply.py [--runs 5] [--delay-ms 1]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from apply import ansible_env  # noqa: E402
from apply_latency import Proxy  # noqa: E402
from harness.control_plane import ControlPlane, build  # noqa: E402
from site_render import ONE_TASK  # noqa: E402


def timed(command: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, env=ansible_env(), capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    options = parser.parse_args()
    playbook = str(pathlib.Path(sys.executable).parent / "ansible-playbook")
    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch)
        plane = ControlPlane(work / "control-plane", build()).start()
        proxy = None
        try:
            plane.install_crds()
            kubeconfig = plane.kubeconfig
            if options.delay_ms:
                proxy = Proxy(plane, work, options.delay_ms)
                kubeconfig = proxy.kubeconfig
            one_task = work / "one-task.yml"
            one_task.write_text(ONE_TASK)
            site = [playbook, str(ROOT / "playbooks" / "site.yml"), "-i", str(ROOT / "examples" / "inventory" / "hosts.yml"),
                    "-i", "localhost,", "--limit", "localhost", "-e", f"ansible_python_interpreter={sys.executable}",
                    "-e", f"site_kubeconfig={kubeconfig}", "-e", "site_platform_version=1.34"]
            timed(site)   # from empty: not timed
            sites, singles = [], []
            for _run in range(options.runs):
                mark = plane.audit_offset()
                seconds, output = timed(site)
                sites.append(seconds)
                singles.append(timed([playbook, "-i", "localhost,", str(one_task)])[0])
            events = plane.audit_events(mark, "admin")
        finally:
            if proxy is not None:
                proxy.stop()
            plane.stop()
    counted = re.search(r"API requests: (\d+) \((\d+) writes\) in (\d+) cluster call", output)
    changed = re.search(r"localhost\s*: ok=\d+\s+changed=(\d+)", output)
    writes = [e for e in events if e["verb"] in ("create", "update", "patch", "delete")
              and "dryRun" not in e["requestURI"] and "selfsubjectaccessreviews" not in e["requestURI"]]
    site_median, single_median = statistics.median(sites), statistics.median(singles)
    where = f", {options.delay_ms} ms each way" if options.delay_ms else ""
    print(f"site no-op in apply mode (example inventory, localhost{where}), {options.runs} runs, "
          f"{len(os.sched_getaffinity(0))} cores")
    print(f"  site: median {site_median:.2f} s ({', '.join(f'{s:.2f}' for s in sites)})")
    print(f"  one-task playbook: median {single_median:.2f} s")
    # Each run beside its own one-task run: on a machine whose speed drifts (a shared host), the pairs' median is
    # steadier than the ratio of the two medians.
    pairs = [site / single for site, single in zip(sites, singles)]
    print(f"  ratio {site_median / single_median:.2f}x of the medians, {statistics.median(pairs):.2f}x the median of "
          f"the {len(pairs)} pairs (target <= 3x)")
    print(f"  last run: changed={changed.group(1) if changed else '?'}, summary "
          f"'{counted.group(0) if counted else 'no request line'}', audit log {len(events)} requests, "
          f"{len(writes)} writes")
    print(json.dumps({"site": sites, "one_task": singles, "pairs": pairs, "requests": len(events),
                      "writes": len(writes)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
