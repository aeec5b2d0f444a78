# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Operators through OLM: Namespace, OperatorGroup and Subscription (placement in spec.config, which OLM reads only
when it installs), the InstallPlan a Manual subscription may take approved, and a wait for the CSV and its APIs.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .._k8s.model import FIELD_MANAGER
from .._k8s.readiness import Verdict, condition, csv_phase
from .._k8s.waits import WaitFailed
from . import bundles, readiness, running, subscriptions, upgrades
from .context import Context, Failed

APPLY_SET = "virtinfra-operators-olm"
OLM = "/apis/operators.coreos.com/v1alpha1/namespaces/{namespace}/{plural}"


def _checks(ctx: Context, wants: t.Sequence[subscriptions.Wanted]) -> tuple[list[str], dict[str, str | None], list[str]]:
    """Problems of the version steps; the CSV each Manual subscription may approve; the packages not installed."""
    problems, allowed, installs = [], {}, []
    for want in wants:
        _sub, installed = running.installed_csv(ctx.connection, want.namespace, want.package)
        if not installed:
            installs.append(want.package)
        if ctx.settings.approval == "Manual":
            csv, problem = subscriptions.allowed_csv(want, installed, ctx.settings.named)
            allowed[want.package] = csv
        else:
            problem = None
            now, target = subscriptions.csv_version(installed or ""), subscriptions.csv_version(want.csv)
            if now and target and now != target:
                problem = upgrades.step_problem(now, target, ctx.settings.named)
                problem = f"Subscription {want.package} {problem}" if problem else None
        if problem:
            problems.append(problem)
    return problems, allowed, installs


def install(ctx: Context) -> dict[str, t.Any]:
    settings = ctx.settings
    through = bundles.through_olm(settings)
    wants, problems = list(through.wants), list(through.problems)
    ctx.notes.extend(through.warnings)
    checked, allowed, installs = _checks(ctx, wants)
    problems += checked
    lines = [f"{w.package} in {w.namespace}: {w.csv or 'the channel ' + settings.channel + ' head'}" for w in wants]
    if problems:
        ctx.refuse(problems, plan=lines, installs=installs)
    # An instance whose kind is not served yet follows its operator's CSV, in a second apply of the same set (the
    # first run's; later runs find the kind served and write it in the first, so it is never pruned between the two).
    instances = [(op.instance, made) for op in settings.chosen()
                 if op.instance is not None and (made := bundles.instance(settings, op)) is not None]
    served = [made for wanted, made in instances if ctx.discovery.find(wanted.api_version, wanted.kind) is not None]
    namespace = wants[0].namespace if wants else settings.namespace
    ctx.apply(APPLY_SET, [*through.objects, *served], namespace)
    if settings.check_mode:
        return ctx.result(plan=lines, approved=[], installs=installs)
    approved: list[str] = []
    try:
        for want in wants:
            def probe(want: subscriptions.Wanted = want) -> Verdict:
                return _installed(ctx, want, allowed, approved)

            ctx.waiter.until(f"Subscription {want.namespace}/{want.package} to install {want.csv or 'its CSV'}",
                             probe)
            _await_apis(ctx, want)
        if len(served) < len(instances):
            ctx.apply(APPLY_SET, [*through.objects, *(made for _wanted, made in instances)], namespace)
        for wanted, made in instances:
            readiness.await_instance(ctx, wanted, made["metadata"]["name"])
    except WaitFailed as exc:
        raise Failed(str(exc), ctx.result(plan=lines, approved=approved, installs=installs)) from None
    return ctx.result(plan=lines, approved=approved, installs=installs)


def _installed(ctx: Context, want: subscriptions.Wanted, allowed: t.Mapping[str, str | None], approved: list[str]) -> Verdict:
    sub, _recorded = running.installed_csv(ctx.connection, want.namespace, want.package)
    if sub is None:
        return Verdict("waiting", "the Subscription to exist")
    csv = allowed.get(want.package)
    if csv:
        _approve(ctx, want, csv, approved)
    current = running.current_csv(sub)
    if want.csv and current != want.csv:
        state = (sub.get("status") or {}).get("state") or "no state yet"
        return Verdict("waiting", f"CSV {want.csv} (subscription state {state}, current CSV {current})")
    if not current:
        return Verdict("waiting", "OLM to resolve a CSV")
    found = running.get(ctx.connection, OLM.format(namespace=want.namespace, plural="clusterserviceversions")
                        + f"/{current}")
    return csv_phase(found) if found else Verdict("waiting", f"CSV {current} to exist")


def _approve(ctx: Context, want: subscriptions.Wanted, csv: str, approved: list[str]) -> None:
    listed = running.get(ctx.connection, OLM.format(namespace=want.namespace, plural="installplans")) or {}
    names, notes = subscriptions.approvals(listed.get("items") or [], csv)
    for note in notes:
        if note not in ctx.notes:
            ctx.notes.append(note)
    for name in names:
        ctx.connection.request("PATCH", OLM.format(namespace=want.namespace, plural="installplans") + f"/{name}",
                               body={"spec": {"approved": True}}, query={"fieldManager": FIELD_MANAGER},
                               content_type="application/merge-patch+json")
        ctx.changed = True
        approved.append(f"{want.namespace}/{name}")
        ctx.say(f"approved InstallPlan {want.namespace}/{name} for {csv}")


def _await_apis(ctx: Context, want: subscriptions.Wanted) -> None:
    """The CRDs the CSV owns are Established: its APIs are served."""
    # The CSV the wait above saw succeed (installedCSV may not be recorded yet).
    sub, _recorded = running.installed_csv(ctx.connection, want.namespace, want.package)
    current = running.current_csv(sub)
    csv = running.get(ctx.connection, OLM.format(namespace=want.namespace, plural="clusterserviceversions")
                      + f"/{current}") or {}
    owned = ((csv.get("spec") or {}).get("customresourcedefinitions") or {}).get("owned") or []
    for crd in owned:
        path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd.get('name')}"

        def probe(path: str = path) -> Verdict:
            live = running.get(ctx.connection, path)
            return condition(live, "Established") if live else Verdict("waiting", "the CRD to exist")

        ctx.waiter.until(f"CustomResourceDefinition {crd.get('name')}", probe)
    ctx.discovery.refresh()


def remove(ctx: Context) -> dict[str, t.Any]:
    """The Subscriptions this site made, then their CSVs (OLM leaves a CSV running when its Subscription goes)."""
    wants, _problems = subscriptions.wanted(ctx.settings.chosen(), ctx.settings.platform, ctx.settings.csvs,
                                            ctx.settings.namespace, ctx.settings.named)
    csvs = [(w.namespace, running.installed_csv(ctx.connection, w.namespace, w.package)) for w in wants]
    outcome = ctx.apply(APPLY_SET, [], wants[0].namespace if wants else ctx.settings.namespace)
    gone = {(p.get("namespace"), p.get("name")) for p in outcome.get("pruned", []) if p.get("kind") == "Subscription"}
    for namespace, (sub, csv) in csvs:
        name = (sub or {}).get("metadata", {}).get("name")
        if csv and (namespace, name) in gone and not ctx.settings.check_mode:
            ctx.connection.request("DELETE", OLM.format(namespace=namespace, plural="clusterserviceversions")
                                   + f"/{csv}")
            ctx.notes.append(f"ClusterServiceVersion {namespace}/{csv} deleted with its Subscription")
    return ctx.result(plan=[f"{w.package} in {w.namespace}: remove the Subscription this site made, and its CSV"
                            for w in wants], approved=[])
