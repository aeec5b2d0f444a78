# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the cluster already has, put into the spec before it is computed: the live NodeNetworkConfigurationPolicies
as ``networking.existing_policies`` (an update nmstate refuses in place, a capture that changes), the SR-IOV policies
as ``sriov.existing_policies`` (overlaps; a re-run against the policies this role created passes) and the node states'
interfaces as ``sriov.node_states`` (the NICs the operator found). A value the spec gives wins. The live objects come
from a cluster_info result whose read lists the kinds of ``_common.cluster_reads`` for the spec; a read without one
of them is refused, not taken for a cluster without such objects. PRIVATE; no Ansible imports."""

from __future__ import annotations

import typing as t

from .._common.cluster_reads import NETWORKING_READS, SRIOV_READS, Kind, prerequisite_reads
from .._common.errors import FieldError
from .._common.merge import merge
from .common import PrerequisiteError

# The option's name as the module takes it, and as the prerequisites role's user writes it.
WHERE = "cluster_info"
ROLE_NAME = "prerequisites_cluster_info"


def with_live(spec: t.Mapping[str, t.Any], cluster_info: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """``spec`` with the live objects of ``cluster_info`` (a cluster_info result) beneath what it gives."""
    needed = prerequisite_reads(spec)
    objects = cluster_info.get("objects")
    if not isinstance(objects, t.Mapping):
        objects = {}
        if needed:
            raise PrerequisiteError([FieldError(WHERE, _unread(needed), "prerequisites")])
    found: dict[Kind, list[t.Any]] = {}
    errors = []
    for section, kinds in needed:
        for kind in kinds:
            key = f"{kind[0]}/{kind[1]}"
            if key in objects:
                found[kind] = list(objects[key] or [])
            else:
                errors.append(FieldError(WHERE, (
                    f"its objects (the cluster_info call's read) lack {key} (the spec has {section}; "
                    f"{ROLE_NAME} in the prerequisites role)"), "prerequisites"))
    if errors:
        raise PrerequisiteError(errors)
    live: dict[str, t.Any] = {}
    sections = dict(needed)
    if "networking" in sections:
        live["networking"] = {"existing_policies": found[NETWORKING_READS[0]]}
    if "sriov" in sections:
        policies, states = (found[kind] for kind in SRIOV_READS)
        live["sriov"] = {"existing_policies": policies}
        if states:
            live["sriov"]["node_states"] = {_name(s): _interfaces(s) for s in states}
    return merge(live, spec)


def _unread(needed: list[tuple[str, tuple[Kind, ...]]]) -> str:
    return (f"the spec has {' and '.join(section for section, _kinds in needed)}, so it is computed against the "
            f"cluster's live {', '.join(kind for _section, kinds in needed for _version, kind in kinds)} objects, and "
            f"no read of them was given ({ROLE_NAME} in the prerequisites role: the result of a cluster_info call "
            "whose read is filter cluster_reads('prerequisites'); or use the role's main entry point, which reads "
            "them itself)")


def _name(state: t.Mapping[str, t.Any]) -> t.Any:
    return (state.get("metadata") or {}).get("name")


def _interfaces(state: t.Mapping[str, t.Any]) -> t.Any:
    # What the operator found on the node (SriovNetworkNodeState status.interfaces); none yet is an empty list.
    status = state.get("status")
    return status.get("interfaces", []) if isinstance(status, t.Mapping) else []
