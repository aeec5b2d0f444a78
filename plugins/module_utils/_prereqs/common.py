# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared validation helpers: every problem is collected with its path; nothing is rendered when any is found.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import difflib
import typing as t

from .._common.errors import FieldError, RenderError, join_path
from .._common.names import LABEL_VALUE, QUALIFIED_NAME
from .._common.versions import major_minor

CONTROL_PLANE_LABELS = ("node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master")


class Problems:
    """Collects FieldErrors and warnings for one computation."""

    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.errors: list[FieldError] = []
        self.warnings: list[str] = []

    def error(self, path: str, message: str) -> None:
        self.errors.append(FieldError(path, message, self.stage))

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def raise_if_any(self) -> None:
        if self.errors:
            raise PrerequisiteError(self.errors, self.warnings)


class PrerequisiteError(RenderError):
    def __init__(self, errors: t.Sequence[FieldError], warnings: t.Sequence[str] = ()) -> None:
        super().__init__(errors, warnings)
        summary = "; ".join(str(e) for e in self.errors[:5])
        more = f" (and {len(self.errors) - 5} more)" if len(self.errors) > 5 else ""
        Exception.__init__(self, f"node prerequisites refused with {len(self.errors)} error(s): {summary}{more}")


def reference(obj: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """What deleting an object needs of it: its kind and name (and namespace)."""
    meta = obj.get("metadata") or {}
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"],
            "metadata": {k: meta[k] for k in ("name", "namespace") if meta.get(k)}}


def path(base: str, *keys: str | int) -> str:
    for key in keys:
        base = join_path(base, key)
    return base


def check_label_map(problems: Problems, where: str, labels: t.Any) -> dict[str, str]:
    """A nodeSelector-style map: qualified-name keys and label-value values."""
    if labels is None:
        return {}
    if not isinstance(labels, dict):
        problems.error(where, "must be a mapping of label keys to values")
        return {}
    for key, value in labels.items():
        if not isinstance(key, str) or len(key.split("/")[-1]) > 63 or not QUALIFIED_NAME.match(key):
            problems.error(path(where, str(key)), "is not a valid label key (qualified name)")
        if not isinstance(value, str) or len(value) > 63 or not LABEL_VALUE.match(value):
            problems.error(path(where, str(key)), f"value {value!r} is not a valid label value")
    return {str(k): str(v) for k, v in labels.items()}


def selector_matches(selector: t.Mapping[str, str], labels: t.Mapping[str, t.Any]) -> bool:
    return all(k in labels and str(labels[k]) == v for k, v in selector.items())


def is_control_plane(node: t.Mapping[str, t.Any]) -> bool:
    labels = node.get("labels") or {}
    return any(label in labels for label in CONTROL_PLANE_LABELS)


def keeps_workloads_off(node: t.Mapping[str, t.Any]) -> str | None:
    """The taint that keeps ordinary pods (and so VMs) off a node, from its ``taints`` (as ``kubectl get node``
    lists them), or None: a compact cluster's control-plane nodes carry none (mastersSchedulable)."""
    for taint in node.get("taints") or []:
        if isinstance(taint, dict) and taint.get("effect") in ("NoSchedule", "NoExecute") \
                and taint.get("key") in CONTROL_PLANE_LABELS:
            return f"{taint['key']}:{taint['effect']}"
    return None


def node_list(names: t.Sequence[str], shown: int = 5) -> str:
    """Names for one warning about many nodes: the first few, then how many more (a 500-node site, one line)."""
    if len(names) <= shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


def control_plane_vm_nodes(problems: Problems, where: str, nodes: t.Sequence[t.Mapping[str, t.Any]],
                           consequence: str) -> list[str]:
    """Of the selected nodes, the control-plane ones that run VMs (compact and single-node clusters): allowed, with
    a warning that names them and what the change does there; a tainted one is an error (VMs cannot run there)."""
    schedulable = []
    for node in nodes:
        if not is_control_plane(node):
            continue
        taint = keeps_workloads_off(node)
        if taint:
            problems.error(where, f"selects control-plane node {node.get('name')}, which is tainted {taint}: VMs do "
                                  "not run there; narrow the selector or make the control plane schedulable")
        else:
            schedulable.append(str(node.get("name")))
    if schedulable:
        problems.warn(f"control-plane node(s) {node_list(schedulable)} run VMs (schedulable control plane): "
                      f"{consequence}; the nodes are drained and rebooted one at a time, so keep etcd quorum in mind")
    return schedulable


def version_tuple(text: t.Any, where: str, problems: Problems) -> tuple[int, int]:
    found = major_minor(text)
    if found is None:
        problems.error(where, f"{text!r} is not a MAJOR.MINOR version")
        return (0, 0)
    return found


def type_name(value: t.Any) -> str:
    """A value's type as YAML users know it."""
    return {bool: "a boolean", int: "a number", float: "a number", str: "text", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def check_keys(problems: Problems, where: str, value: t.Any, allowed: t.Collection[str]) -> None:
    """Every key of a mapping the spec does not know is an error at its path, with the nearest known key: a typo
    (``polices``, ``vlan`` for ``vlans``) never passes as an ignored key."""
    if not isinstance(value, dict):
        return
    for key in value:
        if key in allowed:
            continue
        close = difflib.get_close_matches(str(key), list(allowed), n=1, cutoff=0.7)
        hint = f"did you mean {close[0]}?" if close else f"expected one of: {', '.join(sorted(allowed))}"
        problems.error(path(where, str(key)), f"unknown key; {hint}")
