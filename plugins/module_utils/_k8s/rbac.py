# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Least-privilege RBAC for the automation account, derived from the kinds the collection writes and reads.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .lock import lease_name

# What k8s_apply sends for an object it owns: GET (live object, drift), a labelled LIST per kind (prune,
# ownership), PATCH (server-side apply, also its dry run; an apply that creates still needs create).
WRITE_VERBS = ("create", "get", "list", "patch")
READ_VERBS = ("get", "list")

# Read by every run whatever the spec: HCO detection (cluster_info) and the live CRD schemas that k8s_apply
# validates custom resources against before it writes.
ALWAYS_READ = (
    {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged"},
    {"apiVersion": "apps/v1", "kind": "Deployment"},
    {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"},
)


class RbacError(ValueError):
    """A kind list that cannot be turned into rules."""


def kind_key(api_version: str, kind: str) -> str:
    return f"{api_version}/{kind}"


def guess_plural(kind: str) -> str:
    """The resource name Kubernetes' default REST mapper would give a kind whose CRD is not installed yet."""
    lower = kind.lower()
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return lower + "es"
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u"):
        return lower[:-1] + "ies"
    return lower + "s"


def _kinds(entries: t.Iterable[t.Any], where: str, problems: list[str]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for index, entry in enumerate(entries):
        api_version = entry.get("apiVersion") if isinstance(entry, t.Mapping) else None
        kind = entry.get("kind") if isinstance(entry, t.Mapping) else None
        if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
            problems.append(f"{where}[{index}]: needs apiVersion and kind")
            continue
        if (api_version, kind) not in found:
            found.append((api_version, kind))
    return found


# One function on purpose: the objects it returns are one grant, and every rule comes from the one
# verbs-by-resource table it builds.
def automation_rbac(written: t.Sequence[t.Any], read: t.Sequence[t.Any] = (),
                    resources: t.Mapping[str, t.Mapping[str, t.Any]] | None = None, *,
                    name: str = "virtinfra-hyperconverged", namespace: str = "virtinfra-automation",
                    delete: bool = True, apply_sets: t.Sequence[str] = ()) -> dict[str, t.Any]:
    """ServiceAccount, ClusterRole and ClusterRoleBinding granting exactly what a run needs.

    ``written``/``read`` are objects or ``{apiVersion, kind}`` entries; ``resources`` maps ``apiVersion/kind`` to
    ``{resource}`` as the server serves it (kinds missing there get the default plural and are listed in
    ``guessed``). ``delete`` adds the delete verb for written kinds (prune and state=absent need it).
    ``apply_sets`` names the apply sets the run writes: their parent ConfigMaps may be read and updated by name, and
    created (a create cannot be limited to names).
    A ClusterRole, not a Role: k8s_apply lists each kind across namespaces to find what its apply set owns.
    """
    problems: list[str] = []
    write_kinds = _kinds(written, "written", problems)
    requested = _kinds(read, "read", problems)
    read_kinds = [k for k in _kinds(ALWAYS_READ, "always", problems) + requested if k not in write_kinds]
    read_kinds = list(dict.fromkeys(read_kinds))
    if problems:
        raise RbacError("; ".join(problems))
    served = resources or {}
    guessed: list[str] = []
    grants: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    write_verbs = tuple(sorted((*WRITE_VERBS, "delete") if delete else WRITE_VERBS))
    for kinds, verbs in ((write_kinds, write_verbs), (read_kinds, READ_VERBS)):
        for api_version, kind in kinds:
            group = api_version.rpartition("/")[0]
            entry = served.get(kind_key(api_version, kind)) or {}
            resource = entry.get("resource")
            if not resource:
                resource = guess_plural(kind)
                guessed.append(kind_key(api_version, kind))
            grants.setdefault((group, verbs), set()).add(resource)
    # A resource granted both ways keeps only the wider (write) rule.
    written_resources = {(g, r) for (g, v), rs in grants.items() if v == write_verbs for r in rs}
    rules = []
    for (group, verbs), names in sorted(grants.items()):
        if verbs == READ_VERBS:
            names = {n for n in names if (group, n) not in written_resources}
        if names:
            rules.append({"apiGroups": [group], "resources": sorted(names), "verbs": list(verbs)})
    if apply_sets:
        rules.append({"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]})
        rules.append({"apiGroups": [""], "resources": ["configmaps"], "resourceNames": sorted(set(apply_sets)),
                      "verbs": ["get", "patch"]})
        # The apply-set lock (lock.py): a Lease per set, created, renewed and deleted by the run that writes.
        rules.append({"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]})
        rules.append({"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                      "resourceNames": sorted({lease_name(name) for name in apply_sets}),
                      "verbs": ["delete", "get", "update"]})
    labels = {"app.kubernetes.io/managed-by": "virtinfra.hyperconverged"}
    objects = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": labels}},
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": {"name": name, "namespace": namespace, "labels": labels}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": name, "labels": labels}, "rules": rules},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": name, "labels": labels},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
         "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}]},
    ]
    return {"objects": objects, "rules": rules, "guessed": sorted(set(guessed)),
            "written": [kind_key(*k) for k in write_kinds], "read": [kind_key(*k) for k in read_kinds],
            "kinds": [{"apiVersion": a, "kind": k} for a, k in (*write_kinds, *read_kinds)]}
