# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: hco_preset
short_description: Apply a cluster preset (such as kkp) to a HyperConverged
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - C(kkp) (KubeVirt cloud provider guide for Kubermatic) - KubeVirt feature gates ExperimentalIgnitionSupport,
    DataVolumes, LiveMigration, CPUManager, CPUNodeDiscovery, Sidecar, Snapshot, HotplugVolumes; CDI
    HonorWaitForFirstConsumer when local storage is used; KubeVirt monitorNamespace/monitorAccount for
    prometheus-operator; cluster instance types standard-2/4/8 and the preference sockets-advantage; a default VM
    topology spread (returned as C(vm_defaults) for VM templates - KubeVirt has no cluster-wide field for it).
  - What HCO already sets is left alone; the rest goes into HCO's jsonpatch annotations (which HCO keeps and counts
    as unsafe modifications) - rendering the result gives the same operands with or without HCO.
  - Returns C({hyperconverged, objects, report, vm_defaults}).
options:
  _input:
    description: The HyperConverged object.
    type: dict
    required: true
  preset:
    description: Preset name; empty for none, which returns the HyperConverged as it is, with no C(objects) and an
      empty C(report) and C(vm_defaults).
    type: str
    required: true
  release:
    description: HCO release profile used to see what HCO already sets.
    type: str
    default: "1.20"
  cluster:
    description: Cluster facts for the engine (platform, namespace, nodes).
    type: dict
  local_storage:
    description: Local storage (hostpath-provisioner) is used, so CDI must honour WaitForFirstConsumer.
    type: bool
    default: false
  monitor_namespace:
    description: Namespace of prometheus-operator's Prometheus (default C(monitoring)).
    type: str
  monitor_account:
    description: ServiceAccount of that Prometheus (default C(prometheus-k8s)).
    type: str
"""

EXAMPLES = r"""
- name: Expand the kkp preset
  ansible.builtin.set_fact:
    expanded: "{{ hyperconverged | virtinfra.hyperconverged.hco_preset('kkp', local_storage=true) }}"
"""

RETURN = r"""
_value:
  description: C({hyperconverged, objects, report, vm_defaults}).
  type: dict
"""

import typing as t

from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain


def hco_preset(hyperconverged: t.Any, preset: str, release: str = "1.20", cluster: dict | None = None,
               local_storage: bool = False, monitor_namespace: str | None = None,
               monitor_account: str | None = None) -> dict[str, t.Any]:
    # The engine and the presets are imported when called: to find one filter, Ansible loads every filter file of
    # the collection in each task's worker process (hco_operands.py says the same).
    from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._preset_expansion import (  # pylint: disable=import-outside-toplevel
        expand_preset,
    )

    try:
        return expand_preset(plain(hyperconverged), preset, release=release, cluster=plain(cluster or {}),
                             local_storage=local_storage, monitor_namespace=monitor_namespace,
                             monitor_account=monitor_account)
    except RenderError as exc:
        raise AnsibleFilterError(f"preset {preset} refused: {exc.listed}") from exc


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"hco_preset": hco_preset}
