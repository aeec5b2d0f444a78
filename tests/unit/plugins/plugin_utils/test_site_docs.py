# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import importlib.util
import json
import pathlib

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_settings import SETTINGS

ROOT = pathlib.Path(__file__).resolve().parents[4]
# The generator is a development tool (scripts/site_docs.py), not part of the collection.
_SPEC = importlib.util.spec_from_file_location("site_docs", ROOT / "scripts" / "site_docs.py")
assert _SPEC and _SPEC.loader
site_docs = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(site_docs)
SURVEY = json.loads((ROOT / "extensions" / "awx" / "site_survey.json").read_text())


def test_the_committed_survey_and_guide_are_what_the_table_generates():
    assert site_docs.survey() == SURVEY, "run scripts/generate-site-settings"
    guide = (ROOT / "docs" / "docsite" / "rst" / "guide_site_settings.rst").read_text()
    assert guide == site_docs.settings_rst(), "run scripts/generate-site-settings"


def test_the_survey_asks_for_every_setting_but_credentials_under_names_of_its_own():
    asked = {q["variable"] for q in SURVEY["spec"]}
    assert "site_survey_overcommit_percent" in asked and "site_survey_vm_vlans" in asked
    assert not asked & {"site_survey_kubeconfig", "site_survey_admin_kubeconfig", "site_survey_hyperconverged_spec"}
    assert not [name for name in asked if not name.startswith("site_survey_")]


def test_no_question_has_a_default_or_is_required():
    # AWX sends every default as an extra var, which hides the inventory's value of the same name.
    assert [q["variable"] for q in SURVEY["spec"] if "default" in q or q["required"]] == []


def test_questions_are_asked_in_words():
    for question in SURVEY["spec"]:
        assert not question["question_name"].startswith("site_"), question
        assert "Unanswered: the inventory's site_" in question["question_description"]
    assert len({q["question_name"] for q in SURVEY["spec"]}) == len(SURVEY["spec"])


def test_the_guide_lists_every_setting():
    guide = site_docs.settings_rst()
    assert all(f"``{setting.name}``" in guide for setting in SETTINGS)
