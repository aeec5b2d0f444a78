# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The shipped survey over an inventory that sets every section, as AWX runs the job: ansible-runner with a private
data dir, the Kubernetes credential's K8S_AUTH_* in the environment and the extra vars AWX builds from the survey.
Unanswered questions must leave the inventory's plan exactly as it is."""

from __future__ import annotations

import json
import pathlib
import shutil
import sys
import typing as t

import yaml
from harness.runner_job import run_job
from test_render_playbook import run_playbook

ROOT = pathlib.Path(__file__).resolve().parents[2]
SURVEY = json.loads((ROOT / "extensions" / "awx" / "site_survey.json").read_text())


def awx_extra_vars(answers: t.Mapping[str, str]) -> dict[str, t.Any]:
    """What AWX puts in a job's extra vars for a survey (awx/main/models/mixins.py,
    SurveyJobTemplateMixin._update_unified_job_kwargs): every question's default that is not None, then the launch's
    answers. Its launch form sends a question left blank as an empty string."""
    extra = {q["variable"]: q["default"] for q in SURVEY["spec"] if q.get("default") is not None}
    extra.update({q["variable"]: "" for q in SURVEY["spec"] if q["type"] in ("text", "textarea")})
    extra.update(answers)
    return extra


def rendered(directory: pathlib.Path) -> dict[str, dict]:
    return {path.name: yaml.safe_load(path.read_text()) for path in sorted(directory.glob("*.yaml"))}


def awx_job(tmp_path: pathlib.Path, name: str, answers: t.Mapping[str, str]) -> dict[str, dict]:
    data = tmp_path / name
    (data / "inventory").mkdir(parents=True)
    shutil.copytree(ROOT / "examples" / "inventory", data / "inventory", dirs_exist_ok=True)
    output = tmp_path / f"{name}-rendered"
    extra = {**awx_extra_vars({"site_survey_action": "render", "site_survey_render_dir": str(output), **answers}),
             "ansible_python_interpreter": sys.executable}
    envvars = {"K8S_AUTH_HOST": "https://kubernetes.invalid:6443", "K8S_AUTH_API_KEY": "not-used-in-render-mode",
               "ANSIBLE_COLLECTIONS_PATH": str(ROOT / ".cache" / "collections"), "ANSIBLE_NOCOLOR": "1"}
    run = run_job(private_data_dir=str(data), project_dir=str(ROOT / "playbooks"), playbook="site.yml",
                  envvars=envvars, extravars=extra, verbosity=1)
    stdout = run.stdout
    assert run.status == "successful", stdout[-6000:]
    # Verbosity 1 says where each setting came from.
    source = "survey answer (site_survey_overcommit_percent)" if "site_survey_overcommit_percent" in answers \
        else "inventory or play vars"
    assert f"site_overcommit_percent = {answers.get('site_survey_overcommit_percent', 150)} ({source})" in stdout
    return rendered(output)


def test_an_unanswered_survey_leaves_the_inventorys_plan_and_an_answer_changes_only_its_setting(tmp_path):
    inventory = ROOT / "examples" / "inventory"
    cli = tmp_path / "cli"
    plain = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(inventory / "hosts.yml"),
                         "-e", f"site_render_dir={cli}", "-e", "site_action=render")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    expected = rendered(cli)
    # Every section of the example inventory is in the plan.
    kinds = {manifest["kind"] for manifest in expected.values()}
    assert {"NodeNetworkConfigurationPolicy", "SriovNetworkNodePolicy", "HostPathProvisioner",
            "NetworkAttachmentDefinition", "KubeVirt"} <= kinds, kinds

    assert awx_job(tmp_path, "unanswered", {}) == expected

    answered = awx_job(tmp_path, "answered", {"site_survey_overcommit_percent": "200"})
    changed = sorted(name for name in expected if answered.get(name) != expected[name])
    assert changed and set(answered) == set(expected)
    kubevirt = next(m for m in answered.values() if m["kind"] == "KubeVirt")
    assert kubevirt["spec"]["configuration"]["developerConfiguration"]["memoryOvercommit"] == 200
    assert kubevirt["spec"]["configuration"]["migrations"]["network"] == "migration-net"   # still the inventory's
