# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time the property-based render test (tests/properties) and show how its examples split.

Runs it --runs times (default 3) with --examples examples (default 2,000, what the test command runs) and prints the
wall time of each run and the median, then Hypothesis' statistics of the last run (rendered vs refused examples).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--examples", type=int, default=2000)
    args = parser.parse_args()
    env = dict(os.environ, VIRTINFRA_PROPERTY_EXAMPLES=str(args.examples))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-show-statistics",
               "tests/properties/test_render_properties.py::test_render_properties"]
    times, output = [], ""
    for run in range(args.runs):
        start = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - start)
        output = result.stdout
        print(f"run {run + 1}: {times[-1]:.1f} s ({'passed' if result.returncode == 0 else 'FAILED'})")
        if result.returncode:
            sys.exit(output)
    print(f"{args.examples} examples: median {statistics.median(times):.1f} s over {args.runs} runs")
    print("\n".join(line for line in output.splitlines() if "%" in line or "passing examples" in line))


if __name__ == "__main__":
    main()
