# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Least-privilege RBAC for the automation account, derived from the objects the collection writes and the kinds
it reads: cluster-scoped objects by name, namespaced ones by a Role in their namespaces, no delete where the site
never deletes.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .._common.errors import Refused
from .._common.names import COLLECTION
from .applyset import lease_name

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
    # The site plans from the live Nodes (site_settings reads them before anything else in apply mode).
    {"apiVersion": "v1", "kind": "Node"},
)


class RbacError(Refused):
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


@dataclasses.dataclass(frozen=True)
class Target:
    """A written kind: its resource, and where its objects are (names known only for full objects)."""
    group: str
    resource: str
    kind: str
    names: frozenset[str]       # of cluster-scoped objects
    namespaces: frozenset[str]  # of namespaced objects
    bare: bool                  # an entry without metadata: scope and names unknown


def _targets(written: t.Sequence[t.Any], kinds: list[tuple[str, str]], resource_of: t.Callable[[str, str], str],
             namespaced: t.Callable[[str, str], bool | None]) -> list[Target]:
    targets = []
    for api_version, kind in kinds:
        metas = [e.get("metadata") or {} for e in written if isinstance(e, t.Mapping)
                 and (e.get("apiVersion"), e.get("kind")) == (api_version, kind)]
        scoped = namespaced(api_version, kind)
        # As served; for a kind not served yet, as the objects say.
        in_namespace = [m for m in metas if m.get("name") and (m.get("namespace") if scoped is None else scoped)]
        bare = any(not m.get("name") for m in metas) or any(scoped and not m.get("namespace") for m in in_namespace)
        targets.append(Target(api_version.rpartition("/")[0], resource_of(api_version, kind), kind,
                              frozenset(m["name"] for m in metas if m.get("name") and m not in in_namespace),
                              frozenset(m["namespace"] for m in in_namespace if m.get("namespace")), bare))
    return targets


def _verbs(target: Target, delete: bool) -> list[str]:
    # Namespaces and CRDs hold other objects: never deleted (delete.py keeps them), so never granted.
    may_delete = delete and target.kind not in ("Namespace", "CustomResourceDefinition")
    return sorted((*WRITE_VERBS, "delete") if may_delete else WRITE_VERBS)


def _cluster_rules(targets: list[Target], delete: bool) -> list[dict[str, t.Any]]:
    """Cluster-scoped kinds by name (list, which names cannot limit, for the pruner's labelled search); an entry
    without a name keeps its kind's rule cluster-wide, as nothing narrower is known."""
    rules = []
    for target in targets:
        verbs = _verbs(target, delete)
        if target.bare:
            rules.append({"apiGroups": [target.group], "resources": [target.resource], "verbs": verbs})
        elif target.names:
            rules.append({"apiGroups": [target.group], "resources": [target.resource],
                          "resourceNames": sorted(target.names), "verbs": [v for v in verbs if v != "list"]})
            rules.append({"apiGroups": [target.group], "resources": [target.resource], "verbs": ["list"]})
    return rules


def _namespace_rules(targets: list[Target], namespace: str, delete: bool) -> list[dict[str, t.Any]]:
    return [{"apiGroups": [target.group], "resources": [target.resource], "verbs": _verbs(target, delete)}
            for target in targets if namespace in target.namespaces and not target.bare]


def _apply_set_rules(apply_sets: t.Sequence[str]) -> list[dict[str, t.Any]]:
    """The apply sets' parent ConfigMaps and locks (lock.py), by name; a create cannot be limited to names."""
    if not apply_sets:
        return []
    return [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]},
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": sorted(set(apply_sets)),
         "verbs": ["get", "patch"]},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
         "resourceNames": sorted({lease_name(name) for name in apply_sets}), "verbs": ["delete", "get", "update"]},
    ]


def _read_rules(read_kinds: list[tuple[str, str]], written: set[tuple[str, str]],
                resource_of: t.Callable[[str, str], str]) -> list[dict[str, t.Any]]:
    by_group: dict[str, set[str]] = {}
    for api_version, kind in read_kinds:
        if (api_version, kind) not in written:
            by_group.setdefault(api_version.rpartition("/")[0], set()).add(resource_of(api_version, kind))
    return [{"apiGroups": [group], "resources": sorted(names), "verbs": list(READ_VERBS)}
            for group, names in sorted(by_group.items())]


def automation_rbac(written: t.Sequence[t.Any], read: t.Sequence[t.Any] = (),
                    resources: t.Mapping[str, t.Mapping[str, t.Any]] | None = None, *,
                    name: str = "virtinfra-hyperconverged", namespace: str = "virtinfra-automation",
                    delete: bool = True, apply_sets: t.Sequence[str] = (),
                    parent_namespace: str | None = None) -> dict[str, t.Any]:
    """The account and its grant: a ClusterRole for what is cluster-scoped (by name where the objects are known)
    and what is only read, and in each namespace the objects are written to a Role for their kinds there.

    ``written``/``read`` are objects or ``{apiVersion, kind}`` entries; ``resources`` maps ``apiVersion/kind`` to
    ``{resource}`` as the server serves it (kinds missing there get the default plural and are listed in
    ``guessed``). ``delete`` adds the delete verb (prune and state=absent) to written kinds but Namespaces and
    CRDs. ``apply_sets`` names the apply sets the run writes, whose parents and locks live in
    ``parent_namespace`` (without it, they are granted cluster-wide by name). ``namespaces`` are the Roles'
    Namespaces, to create before them, so that each Role exists before the run that writes there.
    """
    problems: list[str] = []
    write_kinds = _kinds(written, "written", problems)
    requested = _kinds(ALWAYS_READ, "always", problems) + _kinds(read, "read", problems)
    read_kinds = list(dict.fromkeys(k for k in requested if k not in write_kinds))
    if problems:
        raise RbacError("; ".join(problems))
    served = resources or {}
    guessed: list[str] = []

    def resource_of(api_version: str, kind: str) -> str:
        found = (served.get(kind_key(api_version, kind)) or {}).get("resource")
        if not found:
            guessed.append(kind_key(api_version, kind))
        return str(found or guess_plural(kind))

    def namespaced(api_version: str, kind: str) -> bool | None:
        found = (served.get(kind_key(api_version, kind)) or {}).get("namespaced")
        return None if found is None else bool(found)

    targets = _targets(written, write_kinds, resource_of, namespaced)
    # What a run lists across the cluster (HCO detection, CRD schemas, the policies the prerequisites compare with)
    # stays readable there even where it is also written in a namespace; a kind written across the cluster already is.
    bare = {(a, k) for (a, k), target in zip(write_kinds, targets) if target.bare}
    cluster_rules = _cluster_rules(targets, delete) + _read_rules(list(dict.fromkeys(requested)), bare, resource_of)
    namespaces = sorted({ns for target in targets for ns in target.namespaces} | (
        {parent_namespace} if parent_namespace and apply_sets else set()))
    if not parent_namespace:
        cluster_rules += _apply_set_rules(apply_sets)
    parents = _apply_set_rules(apply_sets)
    roles = {ns: _namespace_rules(targets, ns, delete) + (parents if ns == parent_namespace else [])
             for ns in namespaces}
    # The Roles' namespaces, to be created before them and outside the account's apply set: the site's
    # prerequisites write the same Namespaces, and two apply sets must not both claim one.
    created = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": where}}
               for where in roles if where != namespace]
    return {"objects": _objects(name, namespace, cluster_rules, roles), "namespaces": created,
            "rules": cluster_rules, "roles": roles,
            "guessed": sorted(set(guessed)), "written": [kind_key(*k) for k in write_kinds],
            "read": [kind_key(*k) for k in read_kinds],
            "kinds": [{"apiVersion": a, "kind": k} for a, k in (*write_kinds, *read_kinds)]}


def _objects(name: str, namespace: str, cluster_rules: list[dict[str, t.Any]],
             roles: t.Mapping[str, list[dict[str, t.Any]]]) -> list[dict[str, t.Any]]:
    labels = {"app.kubernetes.io/managed-by": COLLECTION}
    subject = [{"kind": "ServiceAccount", "name": name, "namespace": namespace}]
    objects: list[dict[str, t.Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": labels}},
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": {"name": name, "namespace": namespace, "labels": labels}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": name, "labels": labels}, "rules": cluster_rules},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": name, "labels": labels},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
         "subjects": subject},
    ]
    for where, rules in roles.items():
        objects.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                        "metadata": {"name": name, "namespace": where, "labels": labels}, "rules": rules})
        objects.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                        "metadata": {"name": name, "namespace": where, "labels": labels},
                        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
                        "subjects": subject})
    return objects
