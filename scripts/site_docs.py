# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What is generated from the settings table: the AWX survey (extensions/awx/site_survey.json) and the settings guide
(docs/docsite/rst/guide_site_settings.rst); generate-site-settings beside it writes both. A development tool: not
part of the built collection."""

from __future__ import annotations

import typing as t

import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_settings import SETTINGS, Setting
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_values import survey_variable


def _unanswered(setting: Setting) -> str:
    default = "empty" if setting.default in ("", [], {}) else yaml.safe_dump(
        setting.default, default_flow_style=True, width=1000).strip().removesuffix("...").strip()
    return f" Unanswered: the inventory's {setting.name}, else {default}."


def survey(name: str = "virtinfra.hyperconverged site") -> dict[str, t.Any]:
    """An AWX/AAP job template survey (the /api/v2/job_templates/N/survey_spec/ body) for the survey settings.

    No question has a default: AWX sends every default as an extra var, which would hide the inventory's value.
    Each question sets site_survey_<setting>, which the site reads before the setting itself (_site_values)."""
    questions = []
    for setting in SETTINGS:
        if not setting.survey:
            continue
        question: dict[str, t.Any] = {
            "variable": survey_variable(setting), "question_name": setting.label,
            "question_description": setting.description + _unanswered(setting), "required": False,
            "new_question": True,
        }
        if setting.kind == "int":
            question.update(type="integer", min=setting.minimum, max=setting.maximum)
        elif setting.kind == "bool":
            question.update(type="multiplechoice", choices=["true", "false"])
        elif setting.choices:
            question.update(type="multiplechoice", choices=[c for c in setting.choices if c])
        elif setting.kind in ("list", "dict", "vlans"):
            question.update(type="textarea", min=0, max=4096)
        else:
            question.update(type="text", min=0, max=1024)
        questions.append(question)
    return {"name": name, "description": "Generated from the site settings table "
                                         "(plugins/plugin_utils/_site_settings.py); do not edit.",
            "spec": questions}


def _rst_default(setting: Setting) -> str:
    if setting.required:
        return "(required)"
    if setting.default in ("", [], {}):
        return "(empty)"
    text = yaml.safe_dump(setting.default, default_flow_style=True, width=1000).strip()
    return f"``{text.removesuffix(chr(10) + '...').strip()}``"


def settings_rst() -> str:
    """The settings guide (docs/docsite/rst/guide_site_settings.rst), generated from the same table."""
    rows = []
    for setting in SETTINGS:
        kind = {"vlans": "VLANs", "dict": "mapping"}.get(setting.kind, setting.kind)
        allowed = ", ".join(f"``{c}``" for c in setting.choices if c)
        if setting.minimum is not None:
            allowed = f"{setting.minimum} to {setting.maximum}"
        text = setting.description + (f" One of: {allowed}." if setting.choices else
                                      f" From {allowed}." if allowed else "")
        if not setting.survey:
            text += " Not in the survey."
        rows.append(f"   * - ``{setting.name}``\n     - {kind}\n     - {_rst_default(setting)}\n     - {text}")
    return f"""\
.. Generated from the settings table in plugins/plugin_utils/_site_settings.py; do not edit.

.. _ansible_collections.virtinfra.hyperconverged.docsite.guide_site_settings:

Site settings
=============

The site playbook (``virtinfra.hyperconverged.site``) is configured by flat ``site_*`` variables, from the
inventory, ``group_vars``, extra vars or an AWX survey. Its first task, ``virtinfra.hyperconverged.site_settings``,
checks all of them before anything is contacted or written and reports every problem at once, each with the
variable's name:

- an unknown ``site_*`` name is refused, with a suggestion (``site_overcomit_percent``: did you mean
  ``site_overcommit_percent``?);
- a value of the wrong type, outside its choices or its range is refused; YAML's slips get a hint
  (``site_release: 1.20`` is read as the number 1.2: quote it);
- survey answers arrive as text and are converted: ``"150"`` to 150, ``"true"`` to true, YAML or JSON text to a list
  or mapping, ``"100-200, 300"`` to VLAN ranges;
- each value comes from, in this order: the survey's answer (``site_survey_<setting>``, see below), the setting as the
  play's variables hold it (extra vars, then the inventory and group vars, with Ansible's precedence), the
  HyperConverged spec for the settings that are shortcuts into it, the default. ``ansible-playbook -v`` (an AWX job
  with verbosity 1) lists every setting with its value and where it came from;
- ``site_hyperconverged_spec`` is the HyperConverged spec; the flat settings merge into it and a flat setting that
  contradicts it is an error naming both;
- a section whose NIC is empty is left out: no VM bridge without ``site_vm_bridge_nic``, no dedicated migration
  network without ``site_migration_nic``, no SR-IOV without ``site_sriov_nic``.

The AWX survey ``extensions/awx/site_survey.json`` in the collection is generated from the same table (credentials
come from AWX credentials, not the survey). Its questions set ``site_survey_<setting>`` (``site_survey_overcommit_percent``
for ``site_overcommit_percent``) and have no defaults, because AWX sends every survey default as an extra var and an
extra var hides the inventory's value of the same name. An unanswered (or blank) question leaves the inventory's
value in force; an answered one wins over it.

.. list-table::
   :header-rows: 1
   :widths: 25 10 20 45

   * - Variable
     - Type
     - Default
     - Meaning
{chr(10).join(rows)}
"""
