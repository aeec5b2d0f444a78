# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the built collection ships never sends its reader to a file it leaves out, and its code's comments say why
without timing figures (they go stale: docs/dev/benchmarks.md keeps the figures, with the command that measures
each)."""

from __future__ import annotations

import fnmatch
import os
import pathlib
import re

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
IGNORED = yaml.safe_load((ROOT / "galaxy.yml").read_text())["build_ignore"]
UNSHIPPED = re.compile(r"(?<![\w.-])(bench|scripts|tests|molecule|\.ci|docs/dev)/")
# A figure of time or memory in a comment: "0.25 s", "15-25 ms", "35 us", "119 MB".
# (Go's duration syntax, "1.5ms", is not one: a figure has its space.)
TIMING = re.compile(r"\b\d+(\.\d+)?( ?- ?\d+(\.\d+)?)? (ms|us|µs|MB)\b|\b\d+\.\d+ s\b")


def _ignored(relative: str) -> bool:
    return relative.startswith(".git") or any(fnmatch.fnmatch(relative, pattern) for pattern in IGNORED)


def shipped() -> list[pathlib.Path]:
    """The text files the build keeps; a folder the build leaves out is not walked at all (.cache holds venvs)."""
    files = []
    for folder, names, filenames in os.walk(ROOT):
        base = pathlib.Path(folder)
        names[:] = [n for n in names if n != "__pycache__" and not _ignored((base / n).relative_to(ROOT).as_posix())]
        files += [base / name for name in filenames
                  if pathlib.Path(name).suffix in (".py", ".yml", ".yaml", ".rst", ".md", ".txt", ".json", ".j2", ".cfg")
                  and not _ignored((base / name).relative_to(ROOT).as_posix())]
    return files


def test_the_walk_sees_what_is_shipped_and_not_what_is_not():
    names = {p.relative_to(ROOT).as_posix() for p in shipped()}
    assert "plugins/action/site_settings.py" in names and "playbooks/site.yml" in names
    assert not any(n.startswith(("tests/", "bench/", "scripts/", "docs/dev/")) for n in names)


def test_no_shipped_file_cites_one_the_build_leaves_out():
    cited = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in shipped()
             for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             # galaxy.yml lists what the build leaves out; the README is the repository's front page, whose set-up
             # commands are the repository's scripts.
             if UNSHIPPED.search(line) and p.name not in ("galaxy.yml", "README.md")]
    assert cited == []


def test_no_timing_figures_in_the_code_comments():
    found = []
    for path in shipped():
        if path.suffix not in (".py", ".yml", ".yaml") or path.parts[-3:-1] == ("docsite", "rst"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            comment = line.split("#", 1)[1] if "#" in line else line if path.suffix == ".py" else ""
            if TIMING.search(comment):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
