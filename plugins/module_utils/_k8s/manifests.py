# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Objects read from manifest files and directories (k8s_apply's ``src``), the way ``kubectl apply -f`` reads them.

Every file is read and parsed before anything else happens, and every problem is returned with its file and
document, so a typo in the last file stops the run before the first write. PRIVATE.
"""

from __future__ import annotations

import dataclasses
import json
import os
import typing as t

try:
    import yaml
except ImportError:  # the module reports the kubernetes library (which needs PyYAML) as missing
    yaml = None  # type: ignore[assignment]

SUFFIXES = (".yaml", ".yml", ".json")
# kubectl apply -f reads a kustomization file as an object; -k builds it. Neither is what a user meant here.
KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml")
KUSTOMIZATION = ("is a kustomization, which k8s_apply does not build: pass the built objects as objects (for "
                 "example from the kubernetes.core.kustomize lookup), or apply the kustomization with kubectl -k")
VAULT_HEADER = "$ANSIBLE_VAULT;"
VAULTED = ("is encrypted with Ansible Vault, which k8s_apply does not decrypt: pass it as objects through the file "
           "lookup, which does (objects: \"{{ lookup('ansible.builtin.file', path) | from_yaml_all }}\")")
RELATIVE = ("is a relative path that was not found: on a local connection k8s_apply looks it up in the role's files/, "
            "then the playbook's files/ and directory; on a remote host give an absolute path")


@dataclasses.dataclass
class Manifests:
    objects: list[t.Any] = dataclasses.field(default_factory=list)
    # Where each object came from ("src[0] /path/app.yaml, document 2"), for error messages.
    origins: list[str] = dataclasses.field(default_factory=list)
    errors: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)


def load(paths: t.Sequence[str]) -> Manifests:
    """Every object in ``paths`` (absolute): files, or directories whose ``*.yaml``, ``*.yml`` and ``*.json`` files are
    read in name order (not recursively; names starting with a dot are skipped). A document may be one object, a list of
    objects, or a ``List`` kind with ``items``; empty documents are skipped."""
    found = Manifests()
    for position, path in enumerate(paths):
        option = f"src[{position}]"
        if not isinstance(path, str) or not path.strip():
            found.errors.append(_error(option, "", "must be the path of a file or directory, got an empty value"))
            continue
        if "://" in path:
            found.errors.append(_error(option, path, "is a URL: k8s_apply reads files only (fetch it first, for example "
                                                     "with ansible.builtin.get_url)"))
            continue
        if not os.path.isabs(path):
            # Relative to the module's working directory, which is not the playbook's: never guessed.
            found.errors.append(_error(option, path, RELATIVE))
            continue
        if os.path.isdir(path):
            files = sorted(os.path.join(path, name) for name in os.listdir(path)
                           if not name.startswith(".") and name.endswith(SUFFIXES)
                           and os.path.isfile(os.path.join(path, name)))
            if not files:
                found.errors.append(_error(option, path, f"the directory has no {', '.join(SUFFIXES)} files"))
            for file in files:
                _load_file(found, option, file)
        elif os.path.exists(path):
            _load_file(found, option, path)
        else:
            found.errors.append(_error(option, path, "no such file or directory on the host that runs the module"))
    return found


def _load_file(found: Manifests, option: str, path: str) -> None:
    if os.path.basename(path) in KUSTOMIZATIONS:
        found.errors.append(_error(option, path, KUSTOMIZATION))
        return
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError) as exc:
        found.errors.append(_error(option, path, f"cannot be read: {exc}"))
        return
    if text.startswith(VAULT_HEADER):
        found.errors.append(_error(option, path, VAULTED))
        return
    try:
        documents = _documents(path, text)
    except ValueError as exc:
        found.errors.append(_error(option, path, str(exc)))
        return
    for number, document in enumerate(documents, start=1):
        where = f"{option} {path}, document {number}"
        for item in _items(document):
            found.objects.append(item)
            found.origins.append(where)


def _documents(path: str, text: str) -> list[t.Any]:
    if path.endswith(".json"):
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as exc:
            raise ValueError(f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if yaml is None:
        raise ValueError("cannot be parsed: PyYAML is not installed")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)   # libyaml's safe loader where PyYAML has it: faster
    try:
        return [d for d in yaml.load_all(text, Loader=loader) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ValueError(f"is not valid YAML: {problem}{where}") from None


def _items(document: t.Any) -> list[t.Any]:
    if isinstance(document, list):
        return document
    if (isinstance(document, dict) and isinstance(document.get("kind"), str) and document["kind"].endswith("List")
            and isinstance(document.get("items"), list)):
        return document["items"]
    return [document]


def _error(option: str, path: str, message: str) -> dict[str, t.Any]:
    return {"object": f"{option} {path}".rstrip(), "index": None, "path": "", "message": message}
