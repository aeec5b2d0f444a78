# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every supported ansible-core, each in its own virtualenv with the Python it needs (tests/matrix/versions.txt).

    python tests/matrix/run.py                 # the site in render mode on the example inventory under each
                                               # version, output compared byte for byte with the reference's,
                                               # then ansible-test units under each version
    python tests/matrix/run.py --units ends    # ansible-test units under the newest, the unit tests with plain
                                               # pytest under the oldest (the suite)
    python tests/matrix/run.py --units none    # the renders only
    python tests/matrix/run.py --sanity newest # and ansible-test sanity under the newest (what Galaxy and
                                               # Automation Hub certification run)
    python tests/matrix/run.py --in-process older  # and the in-process call's integration tests under every
                                               # version but the newest (the test command runs them there)

The unit tests exercise the pure-Python core (no Ansible imports) and the filters; the versions in between add
~30 s each and nothing the oldest and newest do not, so the test command runs them at the ends only: ansible-test
units under the newest (what certification runs), and the same tests with plain pytest in the oldest's venv
(ansible-test's runner costs about two minutes of CPU more there, beside the QEMU guest that bounds the suite).

On a local connection k8s_apply and cluster_info run in Ansible's worker, where what they use of ansible-core
differs by version (invocation injection, remove_values, the interpreter setting), so --in-process older runs
IN_PROCESS_TESTS against the test API server with each older version's ansible-playbook (about 25 s each).

The virtualenvs live in $VIRTINFRA_CACHE/ansible-core, keyed by a hash of what goes into them (older ones removed).
Under CI=true a version whose Python is missing fails the run instead of being skipped.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import fcntl
import filecmp
import glob
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import typing as t

ROOT = pathlib.Path(__file__).resolve().parents[2]
CACHE = pathlib.Path(os.environ.get("VIRTINFRA_CACHE")
                     or pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
                     / "virtinfra-hyperconverged")
VENVS = CACHE / "ansible-core"
# What ansible-test units needs besides ansible-core (its units requirements) and the collection's own.
UNIT_REQUIREMENTS = ("pytest==9.2.0", "pytest-xdist==3.8.0", "pytest-mock==3.17.0", "mock==5.2.0", "trustme==1.2.1")
DEPENDENCIES = ("community/general", "ansible/posix")  # galaxy.yml dependencies
INVENTORY = ROOT / "examples" / "inventory" / "hosts.yml"
IN_PROCESS_TESTS = ("tests/integration/test_in_process.py", "tests/integration/test_k8s_auth_options.py",
                    # The site in apply mode, its check, its rerun and the hyperconverged role's own render: what
                    # older ansible-core refuses (a static import in a file included by a templated path) shows here.
                    "tests/integration/test_site.py::test_check_predicts_the_run_and_the_rerun_changes_nothing",
                    # Role task vars that older ansible-core templates eagerly, and whose booleans it passes on as
                    # text: the prerequisites role's converge entry point without the read it needs.
                    ("tests/integration/test_prerequisites.py::"
                     "test_converge_needs_the_read_only_where_it_uses_it_and_names_the_option"),
                    # The nodes inventory plugin under each version's inventory manager, and the site's plan reading
                    # the inventory's facts beside the live Nodes (hostvars.raw_get) and from a snapshot.
                    "tests/integration/test_nodes_from_the_cluster.py::test_the_inventory_plugin_lists_the_nodes_as_kubectl_reports_them",
                    ("tests/integration/test_nodes_from_the_cluster.py::"
                     "test_apply_mode_plans_from_the_live_nodes_and_names_every_difference"),
                    ("tests/integration/test_nodes_from_the_cluster.py::"
                     "test_render_mode_plans_from_a_nodes_snapshot_what_apply_mode_plans"))


@dataclasses.dataclass(frozen=True)
class Release:
    version: str
    pythons: tuple[str, ...]

    @property
    def line(self) -> str:
        return ".".join(self.version.split(".")[:2])


def releases() -> list[Release]:
    rows = []
    for text in (ROOT / "tests" / "matrix" / "versions.txt").read_text().splitlines():
        fields = text.split("#", 1)[0].split()
        if fields:
            rows.append(Release(fields[0], tuple(fields[1:])))
    return rows


def find_python(minor: str) -> str | None:
    """An interpreter for MAJOR.MINOR: pyenv's installs first (shims may point at a version that is not there)."""
    pyenv_root = os.environ.get("PYENV_ROOT") or str(pathlib.Path.home() / ".pyenv")
    candidates = sorted(glob.glob(f"{pyenv_root}/versions/{minor}.*/bin/python{minor}"), reverse=True)
    candidates += [p for p in (shutil.which(f"python{minor}"),) if p]
    for candidate in candidates:
        probe = subprocess.run([candidate, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True, check=False)
        if probe.returncode == 0 and probe.stdout.strip() == minor:
            return candidate
    return None


def python_for(release: Release) -> str | None:
    for minor in release.pythons:
        found = find_python(minor)
        if found:
            return found
    return None


def venv_key(release: Release, python: str) -> str:
    version = subprocess.run([python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True,
                             check=True).stdout
    material = "\n".join([release.version, version, (ROOT / "requirements.txt").read_text(), *UNIT_REQUIREMENTS])
    return hashlib.sha256(material.encode()).hexdigest()[:12]


# Shared locks on the venvs this run uses, held until it ends: another checkout's run never prunes them.
_IN_USE: list[t.IO[str]] = []


def _hold(venv: pathlib.Path) -> pathlib.Path:
    holder = open(venv / ".in-use", "a", encoding="utf-8")  # noqa: SIM115 (open until the process ends)
    fcntl.flock(holder, fcntl.LOCK_SH)
    _IN_USE.append(holder)
    return venv


def ensure_venv(release: Release, python: str) -> pathlib.Path:
    venv = VENVS / f"{release.version}-{venv_key(release, python)}"
    complete = venv / ".complete"
    if complete.exists():
        return _hold(venv)
    VENVS.mkdir(parents=True, exist_ok=True)
    with open(VENVS / f".{release.version}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be building the same venv
        if complete.exists():
            return _hold(venv)
        if venv.exists():
            shutil.rmtree(venv)
        env = dict(os.environ, PIP_CACHE_DIR=str(CACHE / "pip"), PIP_DISABLE_PIP_VERSION_CHECK="1")
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"ansible-core=={release.version}",
                        "-r", str(ROOT / "requirements.txt"), *UNIT_REQUIREMENTS], check=True, env=env)
        complete.touch()
    return _hold(venv)


def prune(keep: set[pathlib.Path]) -> None:
    """Removes the venvs of other versions or requirements, except those a run (of any checkout) is using."""
    for old in VENVS.glob("*-*"):
        if not old.is_dir() or old in keep:
            continue
        with open(old / ".in-use", "a", encoding="utf-8") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"kept {old}: a run is using it", file=sys.stderr)
                continue
            shutil.rmtree(old, ignore_errors=True)


def collections_path() -> str:
    """This checkout as virtinfra.hyperconverged (laid out as scripts/_env.sh does), then the dependencies that
    galaxy.yml declares, taken from the collections the project's virtualenv installed with the ansible package."""
    base = ROOT / ".cache" / "collections"
    link = base / "ansible_collections" / "virtinfra" / "hyperconverged"
    if not link.exists():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(ROOT, target_is_directory=True)
    installed = pathlib.Path(sysconfig.get_paths()["purelib"]) / "ansible_collections"
    deps = ROOT / ".cache" / "matrix" / "dependencies"
    for name in DEPENDENCIES:
        source, target = installed / name, deps / "ansible_collections" / name
        if not source.is_dir():
            raise SystemExit(f"{name} is not installed in {installed} (the ansible package of tests/requirements.txt)")
        if not target.is_symlink() or target.readlink() != source:
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink():
                target.unlink()
            target.symlink_to(source, target_is_directory=True)
    return f"{base}:{deps}"


def ansible_env(venv: pathlib.Path, home: pathlib.Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "K8S_AUTH_", "VIRTUAL_ENV"))}
    env.update(PATH=f"{venv / 'bin'}:{env.get('PATH', '')}", ANSIBLE_COLLECTIONS_PATH=collections_path(),
               ANSIBLE_HOME=str(home), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False", ANSIBLE_REMOTE_TEMP=str(home / "tmp"))
    return env


def render(venv: pathlib.Path, out: pathlib.Path, workdir: pathlib.Path) -> tuple[float, subprocess.CompletedProcess]:
    """The main job as a user runs it: the site playbook on the example inventory, render mode."""
    command = [str(venv / "bin" / "ansible-playbook"), "-i", str(INVENTORY), str(ROOT / "playbooks" / "site.yml"),
               "-e", f"site_render_dir={out}", "-e", f"ansible_python_interpreter={venv / 'bin' / 'python'}"]
    start = time.monotonic()
    result = subprocess.run(command, env=ansible_env(venv, workdir / "ansible-home"), cwd=workdir,
                            capture_output=True, text=True, check=False, timeout=600)
    return time.monotonic() - start, result


def differences(reference: pathlib.Path, other: pathlib.Path) -> list[str]:
    """Every file that is missing, extra or not byte-identical (filecmp with shallow=False compares contents)."""
    found: list[str] = []

    def walk(cmp: filecmp.dircmp, prefix: str) -> None:
        found.extend(f"only in the reference: {prefix}{n}" for n in cmp.left_only)
        found.extend(f"only here: {prefix}{n}" for n in cmp.right_only)
        _same, mismatch, errors = filecmp.cmpfiles(cmp.left, cmp.right, cmp.common_files, shallow=False)
        found.extend(f"differs: {prefix}{n}" for n in mismatch + errors)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(reference, other), "")
    return found


def unit_copy() -> pathlib.Path:
    """The tracked files laid out as ansible_collections/virtinfra/hyperconverged, as ansible-test requires."""
    work = ROOT / ".cache" / "matrix" / "ansible_collections" / "virtinfra" / "hyperconverged"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            target = work / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    shared = os.environ.get("VIRTINFRA_SHARED_DIR") or str(ROOT.parent / "shared")
    link = work.parent / "shared"  # the unit tests read ../shared; ansible-test clears the environment
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(shared, target_is_directory=True)
    subprocess.run(["git", "init", "--quiet"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    return work


def python_minor(venv: pathlib.Path) -> str:
    return next(p.name[len("python"):] for p in (venv / "lib").glob("python3.*"))


def units(venv: pathlib.Path, copy: pathlib.Path) -> subprocess.CompletedProcess:
    home = CACHE / "ansible-test-home"  # never the real ~/.ansible
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, HOME=str(home), PATH=f"{venv / 'bin'}:{os.environ.get('PATH', '')}")
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([str(venv / "bin" / "ansible-test"), "units", "--local", "--python", python_minor(venv),
                           "--num-workers", "2"], cwd=copy, env=env, capture_output=True, text=True, check=False,
                          timeout=1800)


def pytest_units(venv: pathlib.Path) -> subprocess.CompletedProcess:
    """The unit tests with plain pytest in this venv (tests/conftest.py makes the collection importable)."""
    env = dict(os.environ, PATH=f"{venv / 'bin'}:{os.environ.get('PATH', '')}",
               VIRTINFRA_TEST_DEPENDENCIES=collections_path().split(":", 1)[1])
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                           "tests/unit"], cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=1800)


def in_process(venv: pathlib.Path) -> subprocess.CompletedProcess:
    """IN_PROCESS_TESTS with this venv's pytest, so their playbooks run this venv's ansible-playbook."""
    env = dict(os.environ, PATH=f"{venv / 'bin'}:{os.environ.get('PATH', '')}",
               VIRTINFRA_TEST_DEPENDENCIES=collections_path().split(":", 1)[1])
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *IN_PROCESS_TESTS], cwd=ROOT, env=env, capture_output=True, text=True, check=False,
                          timeout=1800)


def in_process_row(release: Release, venv: pathlib.Path) -> tuple[str, str]:
    """The table's line for IN_PROCESS_TESTS under this release, and what failed ("" when nothing did)."""
    start = time.monotonic()
    result = in_process(venv)
    passed = sum(int(n) for n in re.findall(r"(\d+) passed", result.stdout + result.stderr))
    line = (f"{release.version:<9} {'':<11} in-process {time.monotonic() - start:5.1f}s  "
            f"{'ok' if result.returncode == 0 else 'FAILED'}: {passed} tests passed")
    if result.returncode == 0:
        return line, ""
    return line, (f"ansible-core {release.version}: the in-process integration tests failed\n"
                  + (result.stdout + result.stderr)[-4000:])


def sanity(venv: pathlib.Path) -> subprocess.CompletedProcess:
    """scripts/ansible-test sanity (its own copy of the tree, pip stand-in and home) with this venv's ansible-test."""
    env = dict(os.environ, ANSIBLE_TEST_VENV=str(venv))
    return subprocess.run([str(ROOT / "scripts" / "ansible-test"), "sanity"], env=env, capture_output=True,
                          text=True, check=False, timeout=3600)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--units", choices=["all", "ends", "none"], default="all",
                        help="ansible-test units under every version, the oldest and newest, or none")
    parser.add_argument("--sanity", choices=["newest", "none"], default="none",
                        help="ansible-test sanity under the newest version")
    parser.add_argument("--in-process", choices=["older", "none"], default="none",
                        help="the in-process call's integration tests under every version but the newest")
    args = parser.parse_args()
    ci = os.environ.get("CI") == "true"
    rows = releases()
    found = {r.version: python_for(r) for r in rows}
    pythons = {version: python for version, python in found.items() if python}
    missing = [f"{r.version} (needs python {' or '.join(r.pythons)})" for r in rows if r.version not in pythons]
    if missing:
        print("no interpreter for ansible-core " + ", ".join(missing), file=sys.stderr)
        if ci:
            print("CI=true: every supported ansible-core must be tested", file=sys.stderr)
            return 1
        print("*** SKIPPING THOSE VERSIONS ***", file=sys.stderr)
    available = [r for r in rows if r.version in pythons]
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:  # downloads and unpacking overlap
        venvs = dict(zip([r.version for r in available],
                         pool.map(lambda r: ensure_venv(r, pythons[r.version]), available)))
    prune(set(venvs.values()))

    failures: list[str] = []
    table: list[str] = []
    reference = rows[-1].version
    with tempfile.TemporaryDirectory(prefix="virtinfra-matrix-") as scratch:
        outputs: dict[str, pathlib.Path] = {}
        for release in available:
            workdir = pathlib.Path(scratch) / release.version
            workdir.mkdir()
            seconds, result = render(venvs[release.version], workdir / "rendered", workdir)
            python = os.path.basename(pythons[release.version])
            table.append(f"{release.version:<9} {python:<11} render {seconds:5.1f}s  "
                         f"{'ok' if result.returncode == 0 else 'FAILED'}")
            if result.returncode != 0:
                failures.append(f"ansible-core {release.version}: the site failed in render mode\n"
                                + (result.stdout + result.stderr)[-4000:])
                continue
            # A deprecation is a break announced for a later release: the site must run clean on every version.
            deprecations = sorted({line for line in (result.stdout + result.stderr).splitlines()
                                   if "[DEPRECATION WARNING]" in line or line.startswith("Origin: ")})
            if deprecations:
                failures.append(f"ansible-core {release.version}: deprecation warnings\n" + "\n".join(deprecations))
            outputs[release.version] = workdir / "rendered"
        if reference in outputs:
            for version, out in outputs.items():
                if version != reference:
                    failures += [f"ansible-core {version} vs {reference}: {d}"
                                 for d in differences(outputs[reference], out)]
        elif reference in venvs:
            failures.append(f"no reference output: ansible-core {reference} failed")
        else:
            failures.append(f"no reference output: ansible-core {reference} is not available here")
        count = len(list(outputs[reference].glob("*.yaml"))) if reference in outputs else 0
        print(f"render mode on {INVENTORY.relative_to(ROOT)}: {count} manifests from ansible-core {reference}; "
              f"{len(outputs) - 1} other version(s) compared byte for byte")

    if args.units != "none":
        copy = unit_copy()
        for release in available if args.units == "all" else [r for r in available if r in (rows[0], rows[-1])]:
            start = time.monotonic()
            plain_pytest = args.units == "ends" and release == rows[0] and release != rows[-1]
            result = pytest_units(venvs[release.version]) if plain_pytest else units(venvs[release.version], copy)
            passed = sum(int(n) for n in re.findall(r"(\d+) passed", result.stdout + result.stderr))
            summary = f"{passed} tests passed" + (" (pytest)" if plain_pytest else " (ansible-test units)")
            table.append(f"{release.version:<9} {'':<11} units  {time.monotonic() - start:5.1f}s  "
                         f"{'ok' if result.returncode == 0 else 'FAILED'}: {summary}")
            if result.returncode != 0:
                failures.append(f"ansible-core {release.version}: ansible-test units failed\n"
                                + (result.stdout + result.stderr)[-4000:])

    if args.in_process == "older":
        for release in [r for r in available if r != rows[-1]]:
            line, failure = in_process_row(release, venvs[release.version])
            table.append(line)
            failures += [failure] if failure else []

    if args.sanity == "newest" and rows[-1].version in venvs:
        start = time.monotonic()
        result = sanity(venvs[rows[-1].version])
        ran = len(re.findall(r"^Running sanity test", result.stdout + result.stderr, re.MULTILINE))
        table.append(f"{rows[-1].version:<9} {'':<11} sanity {time.monotonic() - start:5.1f}s "
                     f"{'ok' if result.returncode == 0 else 'FAILED'}: {ran} sanity tests ran")
        if result.returncode != 0:
            failures.append(f"ansible-core {rows[-1].version}: ansible-test sanity failed\n"
                            + "\n".join(line for line in (result.stdout + result.stderr).splitlines()
                                        if line.startswith(("ERROR", "FATAL", "Running sanity")))[-6000:])
    elif args.sanity == "newest":
        failures.append(f"ansible-test sanity: ansible-core {rows[-1].version} is not available here")

    print("\n".join(table))
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures or (missing and ci) else 0


if __name__ == "__main__":
    sys.exit(main())
