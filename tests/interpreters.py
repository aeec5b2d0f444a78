# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A second interpreter with this one's packages, so that a playbook's cluster modules run as module processes.

On a local connection the cluster actions run the call in Ansible's worker when the task's interpreter is the
controller's (plugins/plugin_utils/_in_process.py). Tests that want the module path give the task this one: its own
virtual environment (a pyvenv.cfg of its own) whose binary and site-packages are this test venv's.
"""

from __future__ import annotations

import os
import pathlib
import sys
import sysconfig


def other_interpreter(directory: pathlib.Path) -> pathlib.Path:
    """directory/bin/python: the same binary and packages as sys.executable, in a virtual environment of its own."""
    (directory / "bin").mkdir(parents=True, exist_ok=True)
    python = directory / "bin" / "python"
    if not python.exists():
        python.symlink_to(os.path.realpath(sys.executable))
    version = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    (directory / "pyvenv.cfg").write_text(
        f"home = {pathlib.Path(os.path.realpath(sys.executable)).parent}\ninclude-system-site-packages = false\n"
        f"version = {version}\n")
    # The packages: this venv's site-packages, on the new environment's path through a .pth file.
    site = directory / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    (site / "test-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python
