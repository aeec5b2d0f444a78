# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One k8s_apply or cluster_info call from validated parameters to its result. PRIVATE.

Shared by the modules (a process of their own, on any connection) and by their action plugins, which run the same
call in the controller's worker on a local connection (plugin_utils/_in_process.py says when). Neither Ansible nor
the caller's kind of process is assumed: the caller validates the parameters, masks Outcome.no_log_values in the
result and shows the warnings.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .apply import Applier, ApplyFailed, Options, secret_values, sized
from .client import Connection, KubeError
from .depth import deep_documents, shown
from .facts import cluster_facts
from .manifests import load as load_manifests
from .module_args import connect
from .report import connection_used, requests_made
from .waits import WaitFailed, WaitSpec


@dataclasses.dataclass(frozen=True)
class Outcome:
    result: dict[str, t.Any]   # as the module returns it (without failed; see below)
    failed: bool = False
    warnings: tuple[str, ...] = ()
    no_log_values: frozenset[str] = frozenset()   # values to mask wherever the result is printed


def wait_specs(entries: list[dict[str, t.Any]]) -> list[WaitSpec]:
    specs = []
    for entry in entries:
        condition = entry.get("condition") or {}
        specs.append(WaitSpec(entry["apiVersion"], entry["kind"], entry["name"], entry.get("namespace"),
                              condition_type=condition.get("type"), condition_status=condition.get("status") or "True",
                              condition_reason=condition.get("reason"), jsonpath=entry.get("jsonpath"),
                              success=tuple(entry.get("success") or ()), failure=tuple(entry.get("failure") or ()),
                              ready=bool(entry.get("ready"))))
    return specs


def apply_options(params: t.Mapping[str, t.Any], check_mode: bool) -> Options:
    return Options(
        apply_set=params["apply_set"], apply_set_namespace=params["apply_set_namespace"],
        field_manager=params["field_manager"], state=params["state"], drift=params["drift"], prune=params["prune"],
        prune_namespaces=params["prune_namespaces"], adopt=params["adopt"],
        prune_kinds=[(k["apiVersion"], k["kind"]) for k in params["prune_kinds"]],
        namespace=params["namespace"], check_mode=check_mode, wait=params["wait"],
        namespaces_created_earlier=frozenset(params["namespaces_created_earlier"]),
        wait_for=wait_specs(params["wait_for"]), wait_timeout=float(params["wait_timeout"]),
        lock_timeout=float(params["lock_timeout"]), workers=params["concurrency"],
    )


def run_apply(params: t.Mapping[str, t.Any], check_mode: bool, diff: bool) -> Outcome:
    """k8s_apply: objects and src -> applied (or planned, in check mode) -> the sized result."""
    if params["concurrency"] < 1:
        return Outcome({"msg": f"concurrency: must be at least 1, got {params['concurrency']}"}, failed=True)
    with deep_documents():   # depth.py: a document nested thousands of levels deep is carried through
        outcome = _run_apply(params, check_mode, diff)
        return dataclasses.replace(outcome, result=shown(outcome.result))


def _run_apply(params: t.Mapping[str, t.Any], check_mode: bool, diff: bool) -> Outcome:
    objects, input_errors = list(params["objects"] or []), []
    origins: list[str | None] | None = None
    if params["src"] is not None:
        manifests = load_manifests(params["src"])
        origins = [None] * len(objects) + manifests.origins   # None: named as objects[i]
        objects += manifests.objects
        input_errors = manifests.errors
    # Secret values are masked wherever Ansible prints this task (its logged arguments at -vvv included).
    hidden = frozenset(secret_values(objects))
    connection: Connection | None = None
    applier: Applier | None = None
    try:
        connection = connect(params)
        applier = Applier(connection, apply_options(params, check_mode))
        result = applier.run(objects, origins, input_errors)
    except ApplyFailed as exc:
        partial = exc.partial or {}
        return Outcome({"msg": str(exc), "errors": exc.errors, "requests": requests_made(connection),
                        "connection": connection_used(connection),
                        "changed": bool(partial.get("changed")), "written": partial.get("written", []),
                        "pruned": partial.get("pruned", []), "deleted": partial.get("deleted", []),
                        "unknown": partial.get("unknown", [])},
                       failed=True, warnings=_warnings(applier), no_log_values=hidden)
    except (KubeError, WaitFailed) as exc:
        return Outcome({"msg": str(exc), "status": getattr(exc, "status", None), "requests": requests_made(connection),
                        "connection": connection_used(connection)},
                       failed=True, warnings=_warnings(applier), no_log_values=hidden)
    warnings = tuple(result.pop("warnings", []))
    if not diff:
        result.pop("diff", None)
    return Outcome({**sized(result, params["report"]), "connection": connection_used(connection)}, warnings=warnings,
                   no_log_values=hidden)


def run_info(params: t.Mapping[str, t.Any]) -> Outcome:
    """cluster_info: the kinds served, HCO's presence and the objects of the read kinds."""
    connection: Connection | None = None
    try:
        connection = connect(params)
        facts = cluster_facts(connection, _kind_pairs(params["kinds"]), _kind_pairs(params["read"]))
    except KubeError as exc:
        return Outcome({"msg": str(exc), "status": exc.status, "requests": requests_made(connection),
                        "connection": connection_used(connection)}, failed=True)
    return Outcome({"changed": False, "requests": requests_made(connection), "connection": connection_used(connection),
                    **facts})


def _kind_pairs(entries: list[dict[str, t.Any]]) -> list[tuple[str, str]]:
    return [(entry["apiVersion"], entry["kind"]) for entry in entries]


def _warnings(applier: Applier | None) -> tuple[str, ...]:
    return tuple(applier.warnings) if applier else ()
