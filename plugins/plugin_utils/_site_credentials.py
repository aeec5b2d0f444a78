# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which credential the site has, and its kubeconfig files checked before anything runs.

A relative path is read from the directory ``ansible-playbook`` runs in (where the user typed it; AWX runs jobs in
the project directory), and made absolute for every later task, whose own working directory differs. A missing or
unreadable file is named with the path searched. PRIVATE; controller side, no Ansible imports.
"""

from __future__ import annotations

import os
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.kubeconfig import KubeconfigError, read


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
    """What is wrong with the kubeconfig ``path`` (already absolute) and its ``context``, named by the settings: read
    as the cluster modules will read it (module_utils/_k8s/kubeconfig.py), so a context without a cluster or a
    missing token file is found before anything runs. No credential is ever part of a message, nor is any run."""
    if not path:
        return []
    if not os.path.exists(path):
        return [(f"{name}: no such file (looked for {path}; a relative path is read from the directory "
                 f"ansible-playbook runs in ({cwd}))")]
    try:
        read(path, context or None)
    except KubeconfigError as exc:
        if exc.fault == "context" and context:
            return [f"{context_name}: {context!r} is not a context of {path} (it has: {', '.join(exc.contexts)})"]
        if exc.fault == "current-context":
            return [f"{name}: {path} has no current-context; set {context_name} to one of: {', '.join(exc.contexts)}"]
        return [f"{name}: {exc}"]
    return []
