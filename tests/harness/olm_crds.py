# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""OLM's ClusterServiceVersion and InstallPlan CRDs, which ../shared/crds does not hold, from OLM's own Go module
(github.com/operator-framework/api, crds/) through the Go module proxy, into the harness's module cache."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

from harness.control_plane import cache_dir

MODULE = "github.com/operator-framework/api"
VERSION = "v0.36.0"
FILES = ("operators.coreos.com_clusterserviceversions.yaml", "operators.coreos.com_installplans.yaml")


def crd_files() -> list[pathlib.Path]:
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local", GOMODCACHE=str(cache_dir() / "go" / "mod"))
    answer = subprocess.run(["go", "mod", "download", "-json", f"{MODULE}@{VERSION}"], env=env, check=True,
                            capture_output=True, text=True, timeout=300, cwd=cache_dir())
    folder = pathlib.Path(json.loads(answer.stdout)["Dir"]) / "crds"
    return [folder / name for name in FILES]
