# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import json
import pathlib

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils import _site_values as site_values

ROOT = pathlib.Path(__file__).resolve().parents[4]
SURVEY = json.loads((ROOT / "extensions" / "awx" / "site_survey.json").read_text())
MINIMAL = {"site_platform_version": "1.33"}


def check(**provided):
    return site_values.normalize({**MINIMAL, **provided})


def setting_of(question: dict):
    return site_values.SURVEYED[question["variable"]]


def valid_answers(question: dict) -> list[str]:
    """Every kind of answer AWX can send for this question, as the text it sends."""
    kind, setting = question["type"], setting_of(question)
    if kind == "integer":
        return [str(question["min"]), str(question["max"]), str(setting.default)]
    if kind == "multiplechoice":
        return list(question["choices"])
    if kind == "textarea":
        empty = "{}" if setting.kind == "dict" else "[]"
        written = {"site_vm_vlans": "100-200, 300", "site_node_networks": "[10.0.0.0/16]",
                   "site_vm_networks": "[{name: n, namespace: vms, vlan: 100}]",
                   "site_hpp_pools": "- {name: local, path: /var/hpvolumes}",
                   "site_infra_node_selector": "{node-role.kubernetes.io/infra: ''}",
                   "site_workload_node_selector": '{"node-role.kubernetes.io/worker": ""}',
                   "site_operators_versions": "{kubevirt: v1.8.0}",
                   "site_operators_checksums": '{"kubevirt/kubevirt-operator.yaml": "sha256:00"}',
                   "site_operators_csvs": "{hco: kubevirt-hyperconverged-operator.v4.17.3}"}
        return [empty, written[setting.name]]
    samples = {"site_platform_version": "4.19", "site_migration_range": "10.200.5.0/24", "site_sriov_vendor": "15b3",
               "site_swap_file": "/var/swap/kubevirt", "site_node_batch": "5", "site_render_dir": "out",
               "site_swap_pool": "vm-workers", "site_vm_bridge": "br2", "site_sriov_resource": "vfs",
               "site_operators_manifests_dir": "/srv/mirror"}
    return [samples.get(setting.name, "eno2")]


WRONG = {"integer": ["eight", "1.5"], "multiplechoice": ["no-such-choice"], "textarea": ["{unclosed", "[1, 2"]}
WRONG_TEXT = {"site_platform_version": "latest", "site_hco_namespace": "Kube_Virt", "site_swap_file": "relative/swap",
              "site_migration_range": "10.200.5.0/33", "site_sriov_vendor": "intel",
              "site_sriov_network_namespace": "VMs", "site_vm_bridge": "br_1", "site_node_batch": "a quarter"}


@pytest.mark.parametrize("question", SURVEY["spec"], ids=lambda q: q["variable"])
def test_every_answer_the_survey_allows_is_accepted_as_that_setting(question):
    setting = setting_of(question)
    for answer in valid_answers(question):
        extra = {"site_migration_range": {"site_migration_nic": "eno3"},
                 "site_migration_nic": {"site_migration_range": "10.200.5.0/24"}}.get(setting.name, {})
        if setting.name == "site_vm_networks" and answer not in ("", "[]"):
            extra["site_vm_bridge_nic"] = "eno2"
        result = check(**{**extra, question["variable"]: answer})
        assert result.errors == (), (question["variable"], answer)
        if answer not in ("[]", "{}"):
            assert setting.name in result.given
            assert result.sources[setting.name] == f"survey answer ({question['variable']})"


@pytest.mark.parametrize("question", SURVEY["spec"], ids=lambda q: q["variable"])
def test_a_wrong_answer_is_refused_with_its_name(question):
    wrong_text = WRONG_TEXT.get(setting_of(question).name)
    answers = WRONG.get(question["type"]) or ([wrong_text] if wrong_text else [])
    if not answers:
        pytest.skip("free text: every answer is a valid name")
    for answer in answers:
        result = check(**{question["variable"]: answer})
        assert len(result.errors) == 1 and result.errors[0].startswith(question["variable"] + ": "), answer


def test_blank_answers_leave_the_inventorys_value_and_say_where_each_came_from():
    inventory = {"site_overcommit_percent": 150, "site_migration_nic": "eno3", "site_migration_range": "10.9.0.0/24",
                 "site_vm_vlans": [100]}
    blanks = {q["variable"]: "" for q in SURVEY["spec"]}
    result = check(**inventory, **{**blanks, "site_survey_sriov_num_vfs": "16"})
    assert result.errors == ()
    assert result.values["overcommit_percent"] == 150 and result.values["migration_nic"] == "eno3"
    assert result.values["vm_vlans"] == [{"min": 100, "max": 100}] and result.values["sriov_num_vfs"] == 16
    assert result.sources["site_overcommit_percent"] == "inventory or play vars"
    assert result.sources["site_sriov_num_vfs"] == "survey answer (site_survey_sriov_num_vfs)"
    assert result.sources["site_swap_file"] == "default"
    extra = site_values.normalize({**MINIMAL, **inventory}, extra_vars={"site_overcommit_percent"})
    assert extra.sources["site_overcommit_percent"] == "extra vars"


def test_an_answered_question_wins_over_the_inventory():
    result = check(site_overcommit_percent=150, site_survey_overcommit_percent="200")
    assert result.values["overcommit_percent"] == 200


def test_a_required_setting_set_nowhere_says_where_to_set_it():
    errors = site_values.normalize({"site_platform_version": " ", "site_survey_platform_version": ""}).errors
    assert len(errors) == 1 and errors[0].startswith("site_platform_version: required (")
    assert "inventory" in errors[0] and "survey" in errors[0]


def test_an_unknown_survey_variable_is_refused_with_a_suggestion():
    assert check(site_survey_overcomit_percent="150").errors[0].startswith(
        "site_survey_overcomit_percent: not a survey question's variable (did you mean "
        "site_survey_overcommit_percent?)")


@pytest.mark.parametrize(("provided", "name", "phrase"), [
    ({"site_overcomit_percent": 150}, "site_overcomit_percent", "did you mean site_overcommit_percent?"),
    ({"site_vm_vlan": [100]}, "site_vm_vlan", "did you mean site_vm_vlans?"),
    ({"site_sriov_numvfs": 8}, "site_sriov_numvfs", "did you mean site_sriov_num_vfs?"),
    ({"site_flavour": "x"}, "site_flavour", "not a site setting"),
    ({"site_release": 1.2}, "site_release", "quote it (e.g. '1.20')"),
    ({"site_platform_version": 1.3}, "site_platform_version", "quote it"),
    ({"site_release": "1.21"}, "site_release", "must be one of '1.20', '1.19', '1.18', '1.17', '1.16', '1.15', '1.14'"),
    ({"site_mode": "standalon"}, "site_mode", "must be one of"),
    ({"site_action": "deploy"}, "site_action", "must be one of"),
    ({"site_overcommit_percent": 5}, "site_overcommit_percent", "between 10 and 1000"),
    ({"site_overcommit_percent": True}, "site_overcommit_percent", "whole number"),
    ({"site_overcommit_percent": "150%"}, "site_overcommit_percent", "whole number"),
    ({"site_sriov_num_vfs": 0}, "site_sriov_num_vfs", "between 1 and 256"),
    ({"site_node_batch": 0}, "site_node_batch", "at least 1"),
    ({"site_node_batch": "120%"}, "site_node_batch", "percentage such as 25%"),
    ({"site_node_batch": "25%"}, "site_node_batch", None),
    ({"site_node_batch": 10}, "site_node_batch", None),
    ({"site_node_max_fail_percentage": 101}, "site_node_max_fail_percentage", "between 0 and 100"),
    ({"site_swap_activate": "maybe"}, "site_swap_activate", "true or false"),
    ({"site_swap_encrypt": 2}, "site_swap_encrypt", "true or false"),
    ({"site_vm_vlans": "100-"}, "site_vm_vlans", "not a VLAN ID"),
    ({"site_vm_vlans": [{"min": 300, "max": 200}]}, "site_vm_vlans", "min <= max"),
    ({"site_vm_vlans": [{"min": 1, "maxx": 2}]}, "site_vm_vlans", "not a VLAN ID"),
    ({"site_vm_vlans": {"min": 1}}, "site_vm_vlans", "must be a list"),
    ({"site_vm_networks": "name: x"}, "site_vm_networks", "must be a list"),
    ({"site_vm_networks": ["vlan100-net"], "site_vm_bridge_nic": "eno2"}, "site_vm_networks", "must be a mapping"),
    ({"site_hpp_pools": "{name: local"}, "site_hpp_pools", "not valid YAML (line 1"),
    ({"site_node_networks": ["10.0.0.0/8", "lan"]}, "site_node_networks", "not: lan"),
    ({"site_workload_node_selector": {"gpu": True}}, "site_workload_node_selector", "quote them"),
    ({"site_infra_node_selector": ["infra"]}, "site_infra_node_selector", "must be a mapping"),
    ({"site_hyperconverged_spec": "featureGates"}, "site_hyperconverged_spec", "must be a mapping"),
    ({"site_operators_source": "helm"}, "site_operators_source", "must be one of"),
    ({"site_operators_versions": {"kubevrit": "v1.8.0"}}, "site_operators_versions",
     "kubevrit: not an operator this collection installs"),
    ({"site_operators_versions": {"cdi": "latest"}}, "site_operators_versions", "not a version like v1.9.0"),
    ({"site_operators_manifests_dir": "mirror"}, "site_operators_manifests_dir", "absolute path"),
    ({"site_operators_checksums": {"kubevirt-operator.yaml": "sha256:0"}}, "site_operators_checksums",
     "<operator>/<file>"),
    ({"site_operators_approval": "manual"}, "site_operators_approval", "must be one of"),
    ({"site_sriov_vendor": 8086}, "site_sriov_vendor", None),  # an int reads back as the same digits: accepted
    ({"site_migration_nic": "eno3"}, "site_migration_range", "required with site_migration_nic"),
    ({"site_migration_range": "10.9.0.0/24"}, "site_migration_range", "without site_migration_nic"),
    ({"site_vm_networks": [{"name": "n", "vlan": 1}]}, "site_vm_networks", "without site_vm_bridge_nic"),
    ({"site_overcommit_percent": 150,
      "site_hyperconverged_spec": {"higherWorkloadDensity": {"memoryOvercommitPercentage": 200}}},
     "site_overcommit_percent", "contradicts site_hyperconverged_spec.higherWorkloadDensity"),
    ({"site_migration_nic": "eno3", "site_migration_range": "10.9.0.0/24",
      "site_hyperconverged_spec": {"liveMigrationConfig": {"network": "mine"}}},
     "site_migration_nic", "contradicts site_hyperconverged_spec.liveMigrationConfig.network"),
    ({"site_workload_node_selector": {"a": "b"},
      "site_hyperconverged_spec": {"workloads": {"nodePlacement": {"nodeSelector": {"c": "d"}}}}},
     "site_workload_node_selector", "contradicts"),
])
def test_mistakes_are_refused_once_each_with_their_name(provided, name, phrase):
    result = check(**provided)
    if phrase is None:
        assert result.errors == ()
        return
    assert len(result.errors) == 1, result.errors
    assert result.errors[0].startswith(name + ": ") and phrase in result.errors[0]


def test_internal_names_are_not_taken_for_typos():
    assert check(site_config={}, site_nodes=[], site_prereqs={}).errors == ()


def test_survey_strings_become_typed_values():
    result = check(site_overcommit_percent="150", site_swap_activate="False", site_sriov_num_vfs=" 16 ",
                   site_vm_vlans="100-200, 300", site_platform="OpenShift",
                   site_hpp_pools='[{"name": "local", "path": "/var/hpvolumes"}]')
    assert result.errors == ()
    values = result.values
    assert (values["overcommit_percent"], values["swap_activate"], values["sriov_num_vfs"]) == (150, False, 16)
    assert values["vm_vlans"] == [{"min": 100, "max": 200}, {"min": 300, "max": 300}]
    assert values["platform"] == "openshift" and values["hpp_pools"] == [{"name": "local", "path": "/var/hpvolumes"}]


def test_the_spec_gives_what_unset_flat_settings_would():
    result = check(site_hyperconverged_spec={"higherWorkloadDensity": {"memoryOvercommitPercentage": 200},
                                             "workloads": {"nodePlacement": {"nodeSelector": {"vm": "yes"}}}})
    assert site_values.effective(result)["overcommit_percent"] == 200
    assert site_values.effective_sources(result)["site_overcommit_percent"] == (
        "site_hyperconverged_spec.higherWorkloadDensity.memoryOvercommitPercentage")


def test_through_olm_on_openshift_the_hyperconverged_must_live_where_hco_runs():
    olm = {"site_operators_source": "olm", "site_platform": "openshift", "site_platform_version": "4.19"}
    refused = list(site_values.normalize(olm).errors)
    expected = ("site_hco_namespace: 'kubevirt-hyperconverged', but through OLM on OpenShift HCO "
                "(kubevirt-hyperconverged) runs in openshift-cnv and reconciles a HyperConverged there only; "
                "set site_hco_namespace: openshift-cnv")
    assert refused == [expected]
    assert not site_values.normalize({**olm, "site_hco_namespace": "openshift-cnv"}).errors
    assert not site_values.normalize({**olm, "site_platform": "kubernetes", "site_platform_version": "1.33"}).errors
