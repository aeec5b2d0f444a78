# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: site_report
short_description: The site's whole summary from what its run registered, also after a failure
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Takes what the site playbook knows at its end and returns its summary's lines - the mode and how many objects
    changed (or, to remove, were deleted; in render mode, the files), the note of a check run that waits for the
    operators it would install, per stage what was written (see P(virtinfra.hyperconverged.site_summary#filter)),
    the operators, the swap plan per node, the operands that differ from what HCO builds, the warnings, the API
    requests and the operands.
  - The site playbook prints them in its last task, which runs whether the cluster side succeeded or not; a task
    that never ran is given as V(none).
  - Written in Python rather than as templates in the task, whose every expression Ansible compiles again in each run.
options:
  _input:
    description:
      - The run. V(config) is C(site_config); V(results) holds the registered results of the cluster side by their
        names (C(site_settings), C(site_cluster), C(operators_result), C(prerequisites_deleted_first), C(prerequisites_applied),
        C(prerequisites_deleted), C(hyperconverged_vms), C(hyperconverged_applied),
        C(hyperconverged_operand_drift), C(hyperconverged_standalone), C(hyperconverged_preset_applied),
        C(hyperconverged_preset_deleted), C(hyperconverged_deleted), C(site_descheduler_applied)). The other keys are optional - V(check_mode),
        V(run_mode), V(unchecked), V(missing), V(failure), V(prereqs) (C(site_prereqs)), V(operands)
        (C(site_render.operands)), V(written) (C(site_written)) and V(kubevirt) (C(hyperconverged_result)).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: What happened
  ansible.builtin.debug:
    msg: >-
      {{ {'config': site_config, 'check_mode': ansible_check_mode, 'prereqs': site_prereqs,
          'operands': site_render.operands,
          'results': {'prerequisites_applied': prerequisites_applied | default(none)}}
         | virtinfra.hyperconverged.site_report }}
"""

RETURN = r"""
_value:
  description:
    - "The summary's lines, first C(apply mode (standalone): 0 prerequisite and 0 KubeVirt object(s) changed - ...),
      last C(operands: KubeVirt kubevirt-kubevirt-hyperconverged in kubevirt-hyperconverged, ...)."
  type: list
  elements: str
"""

import typing as t

from ansible.errors import AnsibleFilterError

FIELDS = frozenset({"config", "check_mode", "results", "run_mode", "unchecked", "missing", "failure", "prereqs",
                    "operands", "written", "kubevirt"})


def site_report(run: t.Any) -> list[str]:
    # Imported when called, as the other filters do (site_summary.py says why).
    from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_report import (  # pylint: disable=import-outside-toplevel
        RESULTS,
        Run,
        report,
    )

    if not isinstance(run, t.Mapping) or not isinstance(run.get("config"), t.Mapping):
        raise AnsibleFilterError("site_report expects a mapping with the site's config (site_config)")
    unknown = sorted(set(run) - FIELDS) + sorted(set(run.get("results") or {}) - RESULTS)
    if unknown:
        raise AnsibleFilterError(f"site_report: unknown name(s) {', '.join(unknown)}")
    # Read where used, not converted whole: the config and the results hold every object of the run.
    return report(Run(config=run["config"], check_mode=bool(run.get("check_mode")), results=run.get("results") or {},
                      run_mode=run.get("run_mode"), unchecked=bool(run.get("unchecked")),
                      missing=tuple(run.get("missing") or ()), failure=str(run.get("failure") or ""),
                      prereqs=run.get("prereqs") or {}, operands=tuple(run.get("operands") or ()),
                      written=run.get("written") or {}, kubevirt=run.get("kubevirt") or {}))


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"site_report": site_report}
