# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: planned_nodes
short_description: The nodes whose cluster this run planned to configure, for the site's host play
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Of the hosts given, those whose cluster - the host of their C(fleet_cluster), or C(localhost) where the site
    configures one cluster - has a plan (its registered C(site_settings)) in apply mode with C(site_state) present.
  - A node whose cluster is not in the run (a sliced AWX job, C(--limit)) or was refused has no plan and is left out;
    the fleet's summary names it.
options:
  _input:
    description: Host names (the C(kubevirt_nodes) group).
    type: list
    elements: str
    required: true
  hostvars:
    description: C(hostvars).
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Prepare the bare-metal nodes
  hosts: "{{ groups['kubevirt_nodes'] | default([]) | virtinfra.hyperconverged.planned_nodes(hostvars) }}"
  tasks: []
"""

RETURN = r"""
_value:
  description: The host names, in the order given.
  type: list
  elements: str
"""

import typing as t


def planned_nodes(hosts: t.Sequence[str], hostvars: t.Any) -> list[str]:
    from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_fleet import (  # pylint: disable=import-outside-toplevel
        cluster_of,
        prepares,
    )

    # raw_get: the variables as stored, not templated again (a plan holds every object of the cluster).
    plans: dict[str, bool] = {}
    chosen = []
    for host in hosts:
        cluster = cluster_of(hostvars.raw_get(host))
        if cluster not in plans:
            plans[cluster] = cluster in hostvars and prepares(hostvars.raw_get(cluster).get("site_settings"))
        if plans[cluster]:
            chosen.append(host)
    return chosen


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"planned_nodes": planned_nodes}
