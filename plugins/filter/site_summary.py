# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: site_summary
short_description: Say per stage what a site run wrote and what it did not, also after a failure
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Takes the stages of a run, each with the registered results of its M(virtinfra.hyperconverged.k8s_apply)
    tasks (finished, failed, skipped, or undefined for a task that never ran), and returns the summary's lines.
  - Per stage, the objects written (created, updated, adopted, deleted; in check mode, that would be) - for a failed
    task exactly those the API server confirmed, from its C(written) result; then the drifted objects and fields,
    first eight by name; after a failure, where the run stopped and how to resume.
  - The site playbook prints them in its last task, which runs whether the cluster side succeeded or not, through
    P(virtinfra.hyperconverged.site_report#filter), which adds the rest of the summary.
options:
  _input:
    description: The stages, in order, each C({name, results}).
    type: list
    elements: dict
    required: true
  check_mode:
    description: The run is a check (dry run).
    type: bool
    default: false
  drift:
    description: What the run does with drift (C(revert) or C(report)).
    type: str
    default: revert
  failure:
    description: The message of the task that failed, empty when none did.
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: What the run wrote
  ansible.builtin.debug:
    msg: >-
      {{ [{'name': 'node prerequisites', 'results': [prerequisites_applied | default(None)]}]
         | virtinfra.hyperconverged.site_summary(check_mode=ansible_check_mode) }}
"""

RETURN = r"""
_value:
  description:
    - "One line per stage (C(node prerequisites: wrote 2 object(s): created Namespace vms, ...)), one for drift, and
      after a failure two more (where it stopped, how to resume)."
  type: list
  elements: str
"""

import typing as t

from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._render_result import plain


def site_summary(stages: t.Any, check_mode: bool = False, drift: str = "revert", failure: str = "") -> list[str]:
    # Imported when called: to find one filter, Ansible loads every filter file of the collection in each task's
    # worker process (hco_operands.py says more).
    from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_summary import (  # pylint: disable=import-outside-toplevel
        lines,
        stage,
    )

    if not isinstance(stages, list) or not all(isinstance(s, dict) and "name" in s for s in stages):
        raise AnsibleFilterError("site_summary expects a list of {name, results}")
    built = [stage(str(s["name"]), [plain(r) for r in s.get("results") or []]) for s in stages]
    return lines(built, check_mode=bool(check_mode), drift_mode=str(drift), failure=str(failure or ""))


class FilterModule:
    def filters(self) -> dict[str, t.Callable[..., t.Any]]:
        return {"site_summary": site_summary}
