# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Operators from their release manifests (plain Kubernetes without OLM), one apply set per operator.

Every file is fetched, checked against its checksum and parsed, and every version step checked, before the first
write. Then operator by operator, in catalog order (KubeVirt before CDI): apply, wait for its workloads' rollouts and
CRDs, and on an upgrade for the operand CR to report the new version and Available.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import typing as t

from .._k8s.readiness import Verdict, condition, ready
from .._k8s.waits import WaitFailed
from . import bundles, catalog, readiness, running
from .context import Context, Failed
from .steps import Step, plan, target_versions

APPLY_SET = "virtinfra-operator-{key}"


def _bundle(ctx: Context, op: catalog.Operator, version: str, problems: list[str]) -> list[dict[str, t.Any]]:
    placed, bad, notes = bundles.release_objects(ctx.settings, op, version, ctx.fetch)
    problems += bad
    ctx.notes.extend(notes)
    made = bundles.instance(ctx.settings, op)
    # In the same apply: the applier writes the operator's CRDs, waits until they are served, then the instance.
    return placed + ([made] if made else [])


def install(ctx: Context) -> dict[str, t.Any]:
    settings = ctx.settings
    chosen = settings.chosen()
    now = {op.key: r for op in chosen
           if (r := running.from_manifests(ctx.connection, ctx.discovery, op, settings.home(op),
                                           APPLY_SET.format(key=op.key))) is not None}
    decided = plan(chosen, target_versions(settings.release, settings.versions), now, settings.named)
    problems = list(decided.problems) + _unserved_needs(ctx, chosen)
    bundles = {s.key: _bundle(ctx, catalog.BY_KEY[s.key], s.target, problems)
               for s in decided.steps if s.action not in ("refused", "external")}
    if problems:
        ctx.refuse(problems, plan=decided.lines, installs=decided.installs)
    for step in decided.steps:
        op = catalog.BY_KEY[step.key]
        ctx.say(f"{step.line}{' (check mode: nothing is written)' if settings.check_mode else ''}")
        if step.action == "external":
            continue
        ctx.apply(APPLY_SET.format(key=op.key), bundles[op.key], settings.home(op))
        if not settings.check_mode:
            _await(ctx, op, step, bundles[op.key])
    return ctx.result(plan=decided.lines, installs=decided.installs)


def _unserved_needs(ctx: Context, chosen: t.Sequence[catalog.Operator]) -> list[str]:
    problems = []
    for op in chosen:
        for kind_path, provider in op.needs:
            api_version, _sep, kind = kind_path.rpartition("/")
            if ctx.discovery.find(api_version, kind) is None:
                problems.append(f"{op.title} needs {provider} ({kind} {api_version} is not served); install it first")
    return problems


def _await(ctx: Context, op: catalog.Operator, step: Step, objects: t.Sequence[dict[str, t.Any]]) -> None:
    try:
        for obj in objects:
            if obj.get("kind") in ("Deployment", "DaemonSet", "StatefulSet", "CustomResourceDefinition"):
                _await_object(ctx, obj)
        made = bundles.instance(ctx.settings, op)
        if op.instance is not None and made is not None:
            readiness.await_instance(ctx, op.instance, made["metadata"]["name"])
        if step.action == "upgrade":
            _await_operand(ctx, op, step.target)
    except WaitFailed as exc:
        raise Failed(f"{op.title}: {exc}", ctx.result()) from None


def _await_object(ctx: Context, obj: t.Mapping[str, t.Any]) -> None:
    meta = obj.get("metadata") or {}
    resource = ctx.discovery.find(str(obj.get("apiVersion")), str(obj.get("kind")))
    if resource is None:
        return
    path = resource.path(meta.get("namespace"), meta.get("name"))

    def probe() -> Verdict:
        live = running.get(ctx.connection, path)
        return ready(live) if live is not None else Verdict("waiting", "it to exist")

    where = f"{meta['namespace']}/{meta.get('name')}" if meta.get("namespace") else meta.get("name")
    ctx.waiter.until(f"{obj.get('kind')} {where}", probe)


def _await_operand(ctx: Context, op: catalog.Operator, target: str) -> None:
    """Each existing operand CR reports ``target`` and a fresh Available (the upgrade has rolled out)."""
    collection = running.operand_path(op, ctx.settings.home(op), ctx.discovery)
    if collection is None or op.operand is None or not op.operand.version_field:
        return
    field = op.operand.version_field
    for item in (running.get(ctx.connection, collection) or {}).get("items") or []:
        name = item["metadata"]["name"]
        path = f"{collection}/{name}"

        def probe(path: str = path) -> Verdict:
            live = running.get(ctx.connection, path) or {}
            seen = (live.get("status") or {}).get(field)
            if str(seen).lstrip("v") != target.lstrip("v"):
                return Verdict("waiting", f"status.{field} {target} (now {seen})")
            return condition(live, "Available")

        ctx.waiter.until(f"{op.operand.kind} {name} at {target}", probe)


def remove(ctx: Context) -> dict[str, t.Any]:
    """Each operator's apply set emptied, last installed first; Namespaces stay (they may hold what others put
    there), and are named."""
    lines = []
    for op in reversed(ctx.settings.chosen()):
        lines.append(f"{op.title}: remove what this site installed (apply set {APPLY_SET.format(key=op.key)})")
        ctx.say(lines[-1])
        ctx.apply(APPLY_SET.format(key=op.key), [], ctx.settings.home(op))
        ctx.notes.append(f"{op.title}: Namespace {ctx.settings.home(op)} is left in place")
    return ctx.result(plan=lines)
