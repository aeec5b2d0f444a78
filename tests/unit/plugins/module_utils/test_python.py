# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python floor: refused below it with its own message, and stated the same wherever it is stated."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest
import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils import _python

ROOT = pathlib.Path(__file__).resolve().parents[4]
PACKAGES = sorted(p.name for p in (ROOT / "plugins" / "module_utils").iterdir() if (p / "__init__.py").exists())


@pytest.mark.parametrize("package", PACKAGES)
def test_an_older_python_is_told_the_floor_before_anything_fails(package):
    # The interpreter reports an older version; every private package must stop at the floor's message, not at
    # the first annotation or f-string it cannot read.
    code = ("import sys; sys.version_info = (3, 9, 18, 'final', 0); "
            f"import ansible_collections.virtinfra.hyperconverged.plugins.module_utils.{package}")
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         env={"PYTHONPATH": ":".join(sys.path)})
    assert ran.returncode != 0
    assert "ImportError: virtinfra.hyperconverged needs Python 3.11 or later where its modules run" in ran.stderr


def test_the_floor_is_stated_once_and_the_same_everywhere():
    floor = ".".join(map(str, _python.MINIMUM))
    config = yaml.safe_load((ROOT / "tests" / "config.yml").read_text())
    assert config["modules"]["python_requires"] == f">={floor}"
    assert f'target-version = "py{floor.replace(".", "")}"' in (ROOT / "pyproject.toml").read_text()
    started = (ROOT / "docs" / "docsite" / "rst" / "guide_getting_started.rst").read_text()
    assert f"Python {floor} or later\nwherever its modules run" in started
