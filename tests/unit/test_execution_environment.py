# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The execution-environment recipe is consistent with what builds its context and with galaxy.yml."""

from __future__ import annotations

import pathlib
import re

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECIPE = yaml.safe_load((ROOT / "execution-environment.yml").read_text())
GALAXY = yaml.safe_load((ROOT / "galaxy.yml").read_text())


def test_every_copied_file_is_brought_into_the_context_by_the_build_script():
    brought = {f"_build/{entry['dest']}/{pathlib.PurePath(entry['src']).name}": entry["src"]
               for entry in RECIPE["additional_build_files"]}
    steps = " ".join(RECIPE["additional_build_steps"]["append_final"])
    copied = re.findall(r"COPY (\S+) ", steps)
    assert copied and all(source in brought for source in copied), (copied, brought)
    script = (ROOT / "scripts" / "build-ee").read_text()
    for source in brought.values():  # the build script writes each source file
        assert f"mv _build/virtinfra-hyperconverged-*.tar.gz {source}" in script


def test_the_recipe_claims_the_supported_range_and_galaxy_ymls_dependencies():
    runtime = yaml.safe_load((ROOT / "meta" / "runtime.yml").read_text())
    assert runtime["requires_ansible"] == ">=2.16.0"
    assert RECIPE["dependencies"]["ansible_core"]["package_pip"] == "ansible-core>=2.16,<2.22"
    wanted = {c["name"]: c["version"] for c in RECIPE["dependencies"]["galaxy"]["collections"]}
    assert wanted == GALAXY["dependencies"]
    assert "fedora" not in RECIPE["images"]["base_image"]["name"]  # Fedora 40 is end of life
