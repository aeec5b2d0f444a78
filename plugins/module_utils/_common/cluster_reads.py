# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What each stage reads of the cluster before it plans: the kinds whose being served changes what it writes, and
the live objects it checks its input against. One list per stage, used by the stage's role when it reads the
cluster itself and by the site, which reads once for every stage (filter cluster_reads). PRIVATE."""

from __future__ import annotations

import typing as t

from .errors import Refused

Kind = tuple[str, str]   # apiVersion, kind

# The hyperconverged role: the instancetype presets need their API, KubeVirt's alerts and metrics the
# Prometheus operator's (HCO deploys its observability objects only where they are served).
HYPERCONVERGED_KINDS: tuple[Kind, ...] = (
    ("instancetype.kubevirt.io/v1beta1", "VirtualMachineClusterInstancetype"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
)
# The prerequisites role: live NNCPs (an update nmstate refuses in place, overlapping policies) for networking;
# the SR-IOV policies (overlaps) and node states (the NICs the operator found) for sriov.
NETWORKING_READS: tuple[Kind, ...] = (("nmstate.io/v1", "NodeNetworkConfigurationPolicy"),)
SRIOV_READS: tuple[Kind, ...] = (
    ("sriovnetwork.openshift.io/v1", "SriovNetworkNodePolicy"),
    ("sriovnetwork.openshift.io/v1", "SriovNetworkNodeState"),
)
# Each section of the prerequisites spec that is checked against live objects, with the kinds it reads.
PREREQUISITE_READS: dict[str, tuple[Kind, ...]] = {"networking": NETWORKING_READS, "sriov": SRIOV_READS}
STAGES = ("hyperconverged", "prerequisites")


def prerequisite_reads(spec: t.Mapping[str, t.Any] | None) -> list[tuple[str, tuple[Kind, ...]]]:
    """The sections ``spec`` has (a section that is absent or empty reads nothing), each with the kinds it reads."""
    return [(section, kinds) for section, kinds in PREREQUISITE_READS.items() if (spec or {}).get(section)]


def cluster_reads(stage: str, spec: t.Mapping[str, t.Any] | None = None) -> dict[str, list[dict[str, str]]]:
    """``{"kinds": [...], "read": [...]}`` as cluster_info takes them; ``spec`` is the prerequisites spec (a section
    that is absent or empty reads nothing)."""
    if stage not in STAGES:
        raise Refused(f"stage must be one of {', '.join(STAGES)}, got {stage!r}")
    kinds: tuple[Kind, ...] = ()
    read: tuple[Kind, ...] = ()
    if stage == "hyperconverged":
        kinds = HYPERCONVERGED_KINDS
    else:
        read = tuple(kind for _section, kinds in prerequisite_reads(spec) for kind in kinds)
    return {"kinds": [_entry(k) for k in kinds], "read": [_entry(k) for k in read]}


def _entry(kind: Kind) -> dict[str, str]:
    return {"apiVersion": kind[0], "kind": kind[1]}
