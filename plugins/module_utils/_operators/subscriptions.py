# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Through OLM: which Subscriptions the site needs, and which InstallPlan a Manual subscription may approve.

The Subscriptions themselves (Namespace, OperatorGroup, placement in ``spec.config``) come from the node
prerequisites' OLM stage (_prereqs/olm.py), which validates them as OLM would.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .._common import versions
from . import catalog, upgrades

# Where each platform's catalog of these packages lives by default (OpenShift's Red Hat catalog; OperatorHub.io's
# catalog as OLM's own install creates it on Kubernetes).
CATALOGS: dict[str, tuple[str, str]] = {
    "openshift": ("redhat-operators", "openshift-marketplace"),
    "kubernetes": ("operatorhubio-catalog", "olm"),
}


@dataclasses.dataclass(frozen=True)
class Wanted:
    """One Subscription the site needs."""

    key: str                  # "hco" or an operator key
    package: str
    namespace: str
    csv: str                  # the CSV to run: startingCSV on install, the next step on upgrade; "" = the channel's


def wanted(operators: t.Sequence[catalog.Operator], platform: str, csvs: t.Mapping[str, str],
           hco_namespace: str, named: t.Callable[[str], str]) -> tuple[list[Wanted], list[str]]:
    """The Subscriptions for ``operators``: HCO for the KubeVirt family (it installs the rest itself), one per
    prerequisite operator; problems for operators without an OLM package on ``platform``."""
    found: list[Wanted] = []
    problems: list[str] = []
    if any(op.key in catalog.HCO_FAMILY for op in operators):
        package, namespace = catalog.HCO_PACKAGES[platform]
        found.append(Wanted("hco", package, namespace if platform == "openshift" else hco_namespace,
                            csvs.get("hco", "")))
    for op in operators:
        if op.key in catalog.HCO_FAMILY:
            continue
        if platform not in op.packages:
            problems.append(f"{op.title}: no OLM package of it is known on {platform}; install it with its release "
                            f"manifests ({named('source')}: manifests) or by hand")
            continue
        package, namespace = op.packages[platform]
        found.append(Wanted(op.key, package, namespace, csvs.get(op.key, "")))
    return found, problems


def csv_version(name: str) -> versions.Version | None:
    """``kubevirt-hyperconverged-operator.v4.17.3`` → 4.17.3."""
    tail = name.rpartition(".v")[2]
    return versions.parse(tail) if tail else None


def allowed_csv(want: Wanted, installed: str | None,
                named: t.Callable[[str], str]) -> tuple[str | None, str | None]:
    """The one CSV a Manual subscription may approve now, or the problem; (None, None) when nothing is due."""
    if not want.csv:
        return None, (f"Subscription {want.package}: installPlanApproval Manual needs the CSV to approve "
                      f"({named('csvs')}.{want.key}); nothing is approved without one")
    if not installed or installed == want.csv:
        return (want.csv if not installed else None), None
    now, target = csv_version(installed), csv_version(want.csv)
    if now is None or target is None:
        return None, f"Subscription {want.package}: cannot compare {installed} with {want.csv}"
    why = upgrades.step_problem(now, target, named)
    if why:
        return None, f"Subscription {want.package} {why}"
    return want.csv, None


def approvals(plans: t.Iterable[t.Mapping[str, t.Any]], allowed: str) -> tuple[list[str], list[str]]:
    """(InstallPlans to approve, notes on those left alone): only a plan that installs exactly ``allowed``
    (besides CSVs of other packages resolved with it) - never one that goes past it."""
    approve, notes = [], []
    family = allowed.rpartition(".v")[0]
    for plan in plans:
        name = (plan.get("metadata") or {}).get("name", "")
        spec = plan.get("spec") or {}
        names = list(spec.get("clusterServiceVersionNames") or [])
        if spec.get("approved"):
            continue
        same = [n for n in names if n.rpartition(".v")[0] == family]
        if same == [allowed]:
            approve.append(name)
        elif same:
            notes.append(f"InstallPlan {name} ({', '.join(names)}) is not approved: it installs "
                         f"{', '.join(same)}, not {allowed}")
    return approve, notes
