# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which credential the site has, and its kubeconfig files checked before anything runs.

A relative path is read from the directory ``ansible-playbook`` runs in (where the user typed it; AWX runs jobs in
the project directory), and made absolute for every later task, whose own working directory differs. A missing or
unreadable file is named with the path searched. PRIVATE; controller side (PyYAML), no Ansible imports.
"""

from __future__ import annotations

import os
import typing as t

import yaml


def credential(given_kubeconfig: str, environ: t.Mapping[str, str]) -> str:
    """Which credential is at hand, named as the user set it ('' for none)."""
    if given_kubeconfig:
        return "site_kubeconfig"
    if environ.get("K8S_AUTH_KUBECONFIG", "").strip():
        return "K8S_AUTH_KUBECONFIG"
    if environ.get("K8S_AUTH_HOST", "").strip() and environ.get("K8S_AUTH_API_KEY", ""):
        return "K8S_AUTH_HOST and K8S_AUTH_API_KEY"
    return ""


def absolute(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path))) if path else ""


def kubeconfig_problems(name: str, path: str, context: str, context_name: str, cwd: str) -> list[str]:
    """What is wrong with the kubeconfig ``path`` (already absolute) and its ``context``, named by the settings.
    Only the file's structure is read; no credential in it is ever part of a message."""
    if not path:
        return []
    where = f"looked for {path}; a relative path is read from the directory ansible-playbook runs in ({cwd})"
    try:
        with open(path, encoding="utf-8") as handle:
            loaded = yaml.safe_load(handle)
    except FileNotFoundError:
        return [f"{name}: no such file ({where})"]
    except OSError as exc:
        return [f"{name}: cannot read {path}: {exc.strerror}"]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        return [f"{name}: {path} is not valid YAML{at} ({getattr(exc, 'problem', None) or 'unreadable'})"]
    if not isinstance(loaded, dict) or not loaded.get("clusters"):
        return [f"{name}: {path} is not a kubeconfig (it has no clusters)"]
    contexts = [c.get("name") for c in loaded.get("contexts") or [] if isinstance(c, dict)]
    if context and context not in contexts:
        return [f"{context_name}: {context!r} is not a context of {path} (it has: {', '.join(map(str, contexts))})"]
    if not context and not loaded.get("current-context"):
        return [(f"{name}: {path} has no current-context; set {context_name} to one of: "
                 f"{', '.join(map(str, contexts))}")]
    return []
