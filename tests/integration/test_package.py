# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection as users get it: the built tarball, installed with its dependencies into an empty collections
path (from local artifacts: Galaxy is unreachable here), running the site from the installed copy."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tarfile

import yaml
from harness import children
from harness.galaxy_artifacts import artifact_of_installed

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent


def test_the_built_tarball_installs_into_an_empty_path_and_runs_the_site(tmp_path):
    galaxy = yaml.safe_load((ROOT / "galaxy.yml").read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_HOME=str(tmp_path / "ansible-home"), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False")
    build = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "build", str(ROOT), "--output-path",
                            str(tmp_path)], env=env, capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stdout + build.stderr
    tarball = tmp_path / f"virtinfra-hyperconverged-{galaxy['version']}.tar.gz"
    with tarfile.open(tarball) as tar:
        names = sorted(tar.getnames())
    size = tarball.stat().st_size
    print(f"{tarball.name}: {size} bytes, {len(names)} entries:\n" + "\n".join(names))
    assert size < 1_000_000, size
    assert not [n for n in names if n.split("/")[0] in {"tests", ".cache", "bench", "scripts", "molecule", ".ci"}]
    assert "playbooks/site.yml" in names and "examples/inventory/hosts.yml" in names
    # Every file header cites the licence text by this path.
    assert "LICENSES/GPL-3.0-or-later.txt" in names

    deps = [artifact_of_installed(name, tmp_path) for name in galaxy["dependencies"]]
    target = tmp_path / "collections"
    install = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "install", "--offline", "-p", str(target),
                              str(tarball), *map(str, deps)], env=env, capture_output=True, text=True, check=False)
    assert install.returncode == 0, install.stdout + install.stderr
    installed = target / "ansible_collections" / "virtinfra" / "hyperconverged"
    assert (installed / "MANIFEST.json").is_file()

    workdir = tmp_path / "job"
    workdir.mkdir()
    env.update(ANSIBLE_COLLECTIONS_PATH=str(target))
    site = children.run([str(BIN / "ansible-playbook"), "-i", str(installed / "examples" / "inventory" / "hosts.yml"),
                         "virtinfra.hyperconverged.site", "-e", f"ansible_python_interpreter={sys.executable}"],
                        cwd=workdir, env=env, timeout=300)
    assert site.returncode == 0, site.stdout + site.stderr
    assert f"manifests in {workdir / 'rendered'}, " in site.stdout
    assert not (installed / "rendered").exists()  # never inside the installed collection
