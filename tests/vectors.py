# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read the shared HCO example vectors and golden examples (../shared, read-only) and check results against them."""

from __future__ import annotations

import os
import pathlib
import re
import typing as t

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = pathlib.Path(os.environ.get("VIRTINFRA_SHARED_DIR", ROOT.parent / "shared"))
VECTOR_DIRS = {"1.20": SHARED / "hco-examples", "1.14": SHARED / "hco-examples-1.14"}
GOLDEN_DIR = SHARED / "hco-golden-examples"
CRD_DIR = SHARED / "crds"
#: golden files produced by each release's own code from tests/harness/hco_golden_cases.py (tests/harness/hco-golden)
RELEASE_GOLDEN_DIR = ROOT / "tests" / "golden"


# The C loader (libyaml) when PyYAML has it: the shared CRDs are megabytes of YAML.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(path: pathlib.Path) -> dict[str, t.Any]:
    with path.open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_LOADER)


def vector_files(release: str) -> list[pathlib.Path]:
    return sorted(VECTOR_DIRS[release].glob("[0-9]*.yaml"))


def release_golden_files() -> list[tuple[str, pathlib.Path]]:
    """(release, file) for every golden file HCO's own code produced for a release profile."""
    return [(directory.name, path) for directory in sorted(RELEASE_GOLDEN_DIR.iterdir()) if directory.is_dir()
            for path in sorted(directory.glob("[0-9]*.yaml"))]


def golden_files() -> list[pathlib.Path]:
    return sorted(GOLDEN_DIR.glob("[0-9]*.yaml"))


def _nodes_from_counts(cp: int, workers: int, both: bool) -> list[dict[str, t.Any]]:
    nodes = []
    if both:
        for i in range(cp):
            nodes.append({"name": f"node-{i}", "architecture": "amd64",
                          "labels": {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": "",
                                     "node-role.kubernetes.io/worker": ""}})
        return nodes
    for i in range(cp):
        nodes.append({"name": f"cp-{i}", "architecture": "amd64",
                      "labels": {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/master": ""}})
    for i in range(workers):
        nodes.append({"name": f"worker-{i}", "architecture": "amd64", "labels": {"node-role.kubernetes.io/worker": ""}})
    return nodes


def render_arguments(vector: dict[str, t.Any], release: str, schedule: str | None = None) -> dict[str, t.Any]:
    """Turn a vector's (or golden example's) context into hco_render arguments."""
    context = vector.get("context") or {}
    cluster: dict[str, t.Any] = {"platform": context.get("platform", "kubernetes")}
    nodes = context.get("nodes")
    if isinstance(nodes, list):
        cluster["nodes"] = nodes
    elif "controlPlaneNodes" in context:
        cp, workers = context["controlPlaneNodes"], context.get("workerNodes", 0)
        cluster["nodes"] = _nodes_from_counts(cp, workers, both=isinstance(nodes, str) and "both" in nodes)
    elif isinstance(nodes, str) and "nodeType=" in nodes:
        label = re.search(r"carry (\S+)=(\S+)", nodes)
        cluster["nodes"] = _nodes_from_counts(3, 3, False)
        if label:
            for node in cluster["nodes"][3:]:
                node["labels"][label.group(1)] = label.group(2)
    if context.get("baseDomain"):
        cluster["base_domain"] = context["baseDomain"]
    if context.get("apiServerTLSSecurityProfile"):
        cluster["apiserver_tls_profile"] = context["apiServerTLSSecurityProfile"]
    status = dict(context.get("hcStatus") or {})
    if schedule is not None:
        status.setdefault("dataImportSchedule", schedule)
    return {
        "hyperconverged": vector["input"],
        "release": release,
        "operation": vector.get("operation", "CREATE"),
        "cluster": cluster,
        "environment": {"variables": context.get("env") or {}},
        "status": status,
    }


def _pointer(document: t.Any, pointer: str) -> tuple[bool, t.Any]:
    if pointer == "":
        return True, document
    current = document
    for raw in pointer.lstrip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return False, None
    return True, current


def _empty(value: t.Any) -> bool:
    return value in (None, False, 0, "", {}, [])


def equivalent(actual: t.Any, expected: t.Any) -> bool:
    """Appendix B equality: absent == {} / false / 0 / "" for value types and omitempty fields."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = set(expected) | set(actual)
        return all(equivalent(actual.get(k), expected.get(k)) for k in keys)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(equivalent(a, e) for a, e in zip(actual, expected))
    if _empty(expected) and _empty(actual):
        return True
    return (actual == expected and type(actual) is type(expected)) or (
        isinstance(actual, (int, float)) and isinstance(expected, (int, float)) and not isinstance(actual, bool)
        and not isinstance(expected, bool) and actual == expected)


def _subset(item: t.Any, candidate: t.Any) -> bool:
    if isinstance(item, dict) and isinstance(candidate, dict):
        return all(k in candidate and _subset(v, candidate[k]) for k, v in item.items())
    return equivalent(candidate, item)


def _member(item: t.Any, container: t.Any) -> bool:
    """A map key, or a list element (dict items match as subsets)."""
    if isinstance(container, dict) and not isinstance(item, dict):
        return item in container
    return any(_subset(item, v) for v in container)


def check_assertion(result: dict[str, t.Any], assertion: dict[str, t.Any]) -> str | None:
    """Return None when the assertion holds, else a description of the failure."""
    kind = assertion["kind"]
    if kind == "Metric":
        labels = assertion.get("labels") or {}
        found, value = True, result["unsafe_modifications"].get(labels.get("annotation_name"), 0)
    else:
        if kind == "HyperConverged":
            target: t.Any = result["hyperconverged"]
        else:
            target = next((o for o in result["operands"] if o["kind"] == kind and (
                "name" not in assertion or o["metadata"]["name"] == assertion["name"])), None)
        if target is None:
            return None if assertion.get("absent") and assertion["path"] == "" else f"no {kind} object was rendered"
        found, value = _pointer(target, assertion["path"])
    where = f"{kind} {assertion['path']}"
    if assertion.get("absent"):
        return None if not found or (_empty(value) and value != {}) or value is None else f"{where}: expected absent, got {value!r}"
    if "value" in assertion:
        expected = assertion["value"]
        if not found:
            return None if _empty(expected) else f"{where}: missing, expected {expected!r}"
        return None if equivalent(value, expected) else f"{where}: got {value!r}, expected {expected!r}"
    if not found:
        return f"{where}: missing"
    for item in assertion.get("contains", []):
        if not _member(item, value):
            return f"{where}: {item!r} not in {value!r}"
    for item in assertion.get("not_contains", []):
        if _member(item, value):
            return f"{where}: {item!r} unexpectedly in {value!r}"
    if "length" in assertion and len(value) != assertion["length"]:
        return f"{where}: length {len(value)}, expected {assertion['length']}"
    if "matches" in assertion and not re.search(assertion["matches"], str(value)):
        return f"{where}: {value!r} does not match {assertion['matches']!r}"
    return None
