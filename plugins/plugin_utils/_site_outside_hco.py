# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The operands someone changed outside HCO, named before any write (hco mode, apply mode): HCO's operand handler
puts its own spec back on the next reconcile it did not trigger itself, and counts it (controllers/operandhandler,
handleUpdatedOperand, "Overwritten": the metric behind KubeVirtCRModified).

What HCO builds is computed with the engine from the HyperConverged the cluster holds now, not the one this run
writes: a setting the run changes is not an edit outside HCO. Each field of that computation whose live value differs
is named with the managers that set it (read-only, as k8s_apply's state=observed reads). Compared: the custom
resources' spec and the other operands' content, not their labels (HCO's version label carries the patch release
the profile does not know) and not the Deployments HCO runs itself (their images are the installed build's).
PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import CollectionError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, Options
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_summary import field_said, label

WORKLOADS = frozenset({"Deployment", "DaemonSet"})


@dataclasses.dataclass(frozen=True)
class OutsideHCO:
    entries: tuple[dict[str, t.Any], ...] = ()   # as k8s_apply state=observed reports a drifted object
    warnings: tuple[str, ...] = ()


def compared(operands: t.Sequence[t.Mapping[str, t.Any]]) -> list[dict[str, t.Any]]:
    """The operands as compared: identity and content, without labels and annotations; no workloads."""
    kept = []
    for operand in operands:
        if operand.get("kind") in WORKLOADS:
            continue
        metadata = operand.get("metadata") or {}
        identity = {key: metadata[key] for key in ("name", "namespace") if metadata.get(key)}
        kept.append({**{key: value for key, value in operand.items() if key != "metadata"}, "metadata": identity})
    return kept


def live_hyperconverged(listed: t.Sequence[t.Mapping[str, t.Any]], namespace: str) -> dict[str, t.Any] | None:
    """The HyperConverged HCO reconciles in ``namespace`` (its name is fixed: kubevirt-hyperconverged)."""
    for item in listed:
        metadata = item.get("metadata") or {}
        if metadata.get("namespace") == namespace and metadata.get("name") == "kubevirt-hyperconverged":
            return {"apiVersion": item.get("apiVersion"), "kind": item.get("kind"),
                    "metadata": {key: metadata[key] for key in ("name", "namespace", "annotations", "labels")
                                 if key in metadata},
                    "spec": item.get("spec") or {}}
    return None


def changed(connection: Connection, built: t.Callable[[dict[str, t.Any]], t.Sequence[t.Mapping[str, t.Any]] | None],
            hyperconverged: dict[str, t.Any]) -> OutsideHCO:
    """The drifted operands of what ``built`` computes from the live ``hyperconverged`` (None: it cannot be
    computed, which is said, not guessed at)."""
    operands = built(hyperconverged)
    if operands is None:
        refused = ("the operands HCO builds from the cluster's HyperConverged cannot be computed (the engine refuses "
                   "it): edits outside HCO are not looked for")
        return OutsideHCO(warnings=(refused,))
    try:
        result = Applier(connection, Options(state="observed")).run(compared(operands))
    except CollectionError as exc:
        unread = f"the operands HCO built could not be read, so edits outside HCO are not looked for: {exc}"
        return OutsideHCO(warnings=(unread,))
    return OutsideHCO(tuple(entry for entry in result.get("objects") or [] if entry.get("action") == "drifted"))


def named(entry: t.Mapping[str, t.Any]) -> str:
    fields = [field_said(field) for field in (entry.get("drift") or {}).get("fields") or []]
    return f"{label(entry)}: {', '.join(fields) or 'differs'}"
