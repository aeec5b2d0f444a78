# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What each operator's install writes, computed without a cluster: one rule for the apply (by_olm, by_manifests)
and for render mode's tree.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .._prereqs import olm as prereqs_olm
from .._prereqs.common import PrerequisiteError
from . import catalog, manifests, subscriptions
from .settings import Settings
from .steps import target_versions, unpinned

Fetch = t.Callable[[str], bytes]


@dataclasses.dataclass(frozen=True)
class Through:
    """Through OLM: the Subscriptions wanted and the objects that make them."""

    wants: tuple[subscriptions.Wanted, ...]
    objects: tuple[dict[str, t.Any], ...]
    problems: tuple[str, ...]
    warnings: tuple[str, ...]


def through_olm(settings: Settings) -> Through:
    """The Namespace, OperatorGroup and Subscription of each package, placed and checked as OLM would."""
    wants, problems = subscriptions.wanted(settings.chosen(), settings.platform, settings.csvs, settings.namespace,
                                           settings.named)
    source, source_namespace = subscriptions.CATALOGS[settings.platform]
    entries = []
    for want in wants:
        entry: dict[str, t.Any] = {
            "name": want.package, "namespace": want.namespace, "channel": settings.channel,
            "source": settings.catalog_source or source,
            "source_namespace": settings.catalog_namespace or source_namespace,
            "install_plan_approval": settings.approval, "config": dict(settings.placement),
            # OwnNamespace: each package's install instructions make its OperatorGroup target its own namespace.
            "target_namespaces": [want.namespace]}
        if want.csv:
            entry["starting_csv"] = want.csv
        entries.append(entry)
    try:
        computed = prereqs_olm.plan({"subscriptions": entries})
    except PrerequisiteError as exc:
        return Through(tuple(wants), (), tuple(problems + [str(e) for e in exc.errors]), ())
    return Through(tuple(wants), tuple(computed["objects"]), tuple(problems), tuple(computed["warnings"]))


def release_objects(settings: Settings, op: catalog.Operator, version: str, fetch: Fetch
                    ) -> tuple[list[dict[str, t.Any]], list[str], list[str]]:
    """``op``'s release files at ``version`` as this site installs them, with its Namespace; the problems (every
    file read, verified and parsed, each named) and the notes on what was moved."""
    found, problem = manifests.sources(op, version, settings.manifests_dir, settings.manifests_url, settings.named)
    if problem:
        return [], [problem], []
    objects: list[dict[str, t.Any]] = []
    problems: list[str] = []
    for source in found:
        try:
            content = fetch(source.location)
        except Exception as exc:  # the fetcher's own errors (HTTP, OS) name the file; all are reported together
            problems.append(f"{op.title}: {exc}")
            continue
        bad = manifests.checksum_problem(source, content, settings.checksums.get(source.key), settings.named)
        parsed, unparsed = manifests.parse(source, content)
        if bad or unparsed:
            problems += [bad] if bad else unparsed
            continue
        objects += parsed
    home = settings.home(op)
    placed, notes = manifests.place(op, objects, settings.namespace, settings.skip)
    if not any(o.get("kind") == "Namespace" and o["metadata"].get("name") == home for o in placed):
        placed.insert(0, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": home}})
    return placed, problems, notes


def instance(settings: Settings, op: catalog.Operator) -> dict[str, t.Any] | None:
    """The object ``op`` needs before it serves the kinds the site writes: the site's own where its plan has one (the
    NMState with a DNS probe), else a bare one."""
    wanted = op.instance
    if wanted is None:
        return None
    group = wanted.api_version.rpartition("/")[0]
    for given in settings.instances:
        if given.get("kind") == wanted.kind and str(given.get("apiVersion", "")).rpartition("/")[0] == group:
            return dict(given)
    return {"apiVersion": wanted.api_version, "kind": wanted.kind, "metadata": {"name": wanted.name}}


@dataclasses.dataclass(frozen=True)
class Rendered:
    """Render mode's operators: their objects, then the instances they need, in install order."""

    operators: tuple[dict[str, t.Any], ...]
    instances: tuple[dict[str, t.Any], ...]
    problems: tuple[str, ...]
    notes: tuple[str, ...]
    lines: tuple[str, ...] = ()    # what is installed, one line per Subscription or operator


def rendered(settings: Settings, fetch: Fetch) -> Rendered:
    """What the operators stage would write on a cluster running none of them: every operator at the release
    profile's version (or its override), through the source the settings name."""
    problems = settings.problems()
    if problems:
        return Rendered((), (), tuple(problems), ())
    chosen = settings.chosen()
    instances = tuple(i for i in (instance(settings, op) for op in chosen) if i is not None)
    if settings.source == "olm":
        through = through_olm(settings)
        return Rendered(through.objects, instances, through.problems, through.warnings, tuple(
            f"Subscription {w.namespace}/{w.package} ({w.csv or 'the channel ' + settings.channel + ' head'})"
            for w in through.wants))
    targets = target_versions(settings.release, settings.versions)
    objects: list[dict[str, t.Any]] = []
    notes: list[str] = []
    lines: list[str] = []
    for op in chosen:
        version = targets.get(op.key, "")
        if not version:
            problems.append(unpinned(op, settings.named))
            continue
        placed, bad, moved = release_objects(settings, op, version, fetch)
        objects += placed
        problems += bad
        notes += moved
        lines.append(f"{op.title} {version}: {len(placed)} object(s) from its release files")
        # Not checked without a cluster: say it.
        notes += [f"{op.title} needs {provider} ({kind}), which this site does not install" for kind, provider in op.needs]
    return Rendered(tuple(objects), instances, tuple(problems), tuple(notes), tuple(lines))
