# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster's Nodes the site plans from: read from the cluster in apply mode (one paged LIST, before anything is
written, with the credentials the cluster side uses), from site_nodes_snapshot in render mode. The same read asks
which HCO the cluster runs (running_release), which chooses the release profile (_site_release), and what HCO's
alerts read (alert_inputs, for _site_alerts). PRIVATE; no Ansible
imports beyond the connection options' environment fallbacks."""

from __future__ import annotations

import dataclasses
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import alert_inputs
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection, KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.kubeconfig import KubeconfigError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import OptionsRefused, connect, typed
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.nodes import Node, NodesError, listed, snapshot
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.report import requests_made
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.running_release import Running, hyperconvergeds, running

NO_NODES = "the cluster has no Node yet (nodes that join later): planned from the inventory's node_* facts"


@dataclasses.dataclass(frozen=True)
class LiveNodes:
    nodes: tuple[Node, ...] | None = None     # None: none known, the plan is the inventory's
    source: str = ""                          # where they came from, as warnings name it
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    requests: t.Mapping[str, t.Any] | None = None   # what the read cost, as every cluster call reports it (apply mode)
    running: Running | None = None  # the HCO (or KubeVirt) the cluster runs, read in the same pass (apply mode)
    alerts: alert_inputs.AlertInputs | None = None   # what HCO's alerts read, in the same pass (apply mode)
    hyperconvergeds: tuple[dict, ...] = ()   # the cluster's HyperConvergeds, read for running (apply mode)
    # Open for the plan's last read, before any write (_site_outside_hco); its requests are the plan's too.
    connection: Connection | None = dataclasses.field(default=None, compare=False, repr=False)


def live_nodes(values: t.Mapping[str, t.Any], read_cluster: bool, environ: t.Mapping[str, str],
               kubeconfig: str = "kubeconfig") -> LiveNodes:
    """The Nodes the plan is made from. ``kubeconfig``: the setting the read connects with (site_kubeconfig, or
    site_admin_kubeconfig where the plan is for the automation account)."""
    path = values["nodes_snapshot"]
    if read_cluster:
        ignored = (f"site_nodes_snapshot: {path} is not read in apply mode, where the live Nodes are",) if path else ()
        context = "context" if kubeconfig == "kubeconfig" else "admin_context"
        given = {"kubeconfig": values[kubeconfig] or None, "context": values[context] or None}
        connection: Connection | None = None
        try:
            params = typed(given, environ, {"kubeconfig": f"site_{kubeconfig}", "context": f"site_{context}"})
        except OptionsRefused as exc:
            return LiveNodes(problems=tuple(f"{problem} (read by apply mode, which connects with it)"
                                            for problem in exc.problems), warnings=ignored)
        try:
            connection = connect(params)
            found = listed(connection)
            held = hyperconvergeds(connection)
            release = running(connection, held)
            inputs = alert_inputs.read(connection)
        except (KubeError, KubeconfigError, NodesError) as exc:
            problem = (f"site_action: apply mode cannot read the cluster's Nodes, which the site plans from (the "
                       f"account needs get and list on nodes): {exc}")
            return LiveNodes(problems=(problem,),
                             warnings=ignored, requests=requests_made(connection))
        return LiveNodes(tuple(found) if found else None, "the cluster" if found else "",
                         warnings=ignored if found else (*ignored, NO_NODES), requests=requests_made(connection),
                         running=release, alerts=inputs, hyperconvergeds=tuple(held), connection=connection)
    if not path:
        return LiveNodes()
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        unreadable = f"site_nodes_snapshot: cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
        return LiveNodes(problems=(unreadable,))
    try:
        return LiveNodes(tuple(snapshot(path, text)), f"site_nodes_snapshot {path}")
    except NodesError as exc:
        return LiveNodes(problems=(f"site_nodes_snapshot: {exc}",))
