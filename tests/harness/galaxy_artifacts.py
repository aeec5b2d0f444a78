# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Collection artifacts of the dependencies galaxy.yml declares, for installs where Galaxy is unreachable."""

from __future__ import annotations

import hashlib
import io
import json
import pathlib
import sysconfig
import tarfile


def artifact_of_installed(name: str, out: pathlib.Path) -> pathlib.Path:
    """A collection artifact is a tarball of the installed tree with MANIFEST.json and FILES.json at its root: rebuild
    one from the copy the ansible package installed (which leaves out a few files its FILES.json still lists)."""
    source = pathlib.Path(sysconfig.get_paths()["purelib"]) / "ansible_collections" / name.replace(".", "/")
    manifest = json.loads((source / "MANIFEST.json").read_text())
    files = json.loads((source / "FILES.json").read_text())
    files["files"] = [f for f in files["files"] if f["name"] == "." or (source / f["name"]).exists()]
    files_json = json.dumps(files).encode()
    manifest["file_manifest_file"]["chksum_sha256"] = hashlib.sha256(files_json).hexdigest()
    artifact = out / f"{name.replace('.', '-')}-{manifest['collection_info']['version']}.tar.gz"
    with tarfile.open(artifact, "w:gz") as tar:
        for member, data in (("MANIFEST.json", json.dumps(manifest).encode()), ("FILES.json", files_json)):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for entry in files["files"]:
            if entry["name"] != ".":
                tar.add(source / entry["name"], arcname=entry["name"], recursive=False)
    return artifact


def with_dependencies(names: list[str]) -> list[str]:
    """The collections named and, transitively, those their installed MANIFEST.json depends on."""
    root = pathlib.Path(sysconfig.get_paths()["purelib"]) / "ansible_collections"
    found: list[str] = []
    pending = list(names)
    while pending:
        name = pending.pop(0)
        if name not in found:
            found.append(name)
            manifest = json.loads((root / name.replace(".", "/") / "MANIFEST.json").read_text())
            pending.extend(manifest["collection_info"].get("dependencies") or {})
    return found
