# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One module call from checked parameters to its Outcome; the calls that reach a server are in
tests/integration/test_in_process.py (both paths, through ansible-playbook)."""

from __future__ import annotations

import typing as t

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.task_run import (
    apply_options,
    run_apply,
    run_info,
    wait_specs,
)
from ansible_collections.virtinfra.hyperconverged.plugins.modules.cluster_info import ARGUMENT_SPEC as INFO_SPEC
from ansible_collections.virtinfra.hyperconverged.plugins.modules.k8s_apply import ARGUMENT_SPEC as APPLY_SPEC


def checked(spec: dict[str, t.Any], **args: t.Any) -> dict[str, t.Any]:
    result = ArgumentSpecValidator(spec).validate(args)
    assert not result.error_messages, result.error_messages
    return result.validated_parameters


def test_wait_specs_take_each_wait_for_entry_with_the_documented_defaults():
    specs = wait_specs([
        {"apiVersion": "v1", "kind": "Pod", "name": "a", "namespace": "ns", "condition": {"type": "Ready"}},
        {"apiVersion": "v1", "kind": "Pod", "name": "b", "jsonpath": "{.status.phase}", "success": ["Running"],
         "failure": ["Failed"]},
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "c", "ready": True},
    ])
    assert (specs[0].condition_type, specs[0].condition_status, specs[0].namespace) == ("Ready", "True", "ns")
    assert (specs[1].jsonpath, specs[1].success, specs[1].failure, specs[1].namespace) == (
        "{.status.phase}", ("Running",), ("Failed",), None)
    assert specs[2].ready and specs[2].condition_type is None


def test_apply_options_carry_the_checked_parameters_and_the_check_mode():
    params = checked(APPLY_SPEC, objects=[], apply_set="site", prune=True, concurrency="3",
                     prune_kinds=[{"apiVersion": "v1", "kind": "ConfigMap"}], namespaces_created_earlier=["a"])
    options = apply_options(params, check_mode=True)
    assert options.check_mode and options.prune and options.apply_set == "site"
    assert options.workers == 3 and options.prune_kinds == [("v1", "ConfigMap")]
    assert options.namespaces_created_earlier == frozenset({"a"})
    assert options.wait_timeout == 300.0 and options.lock_timeout == 120.0


def test_a_concurrency_below_one_fails_before_any_connection():
    outcome = run_apply(checked(APPLY_SPEC, objects=[], concurrency=0, kubeconfig="/nonexistent"), False, False)
    assert outcome.failed and outcome.result == {"msg": "concurrency: must be at least 1, got 0"}


def test_a_failed_connection_still_masks_the_objects_secret_values(tmp_path):
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "ns"},
              "stringData": {"password": "never-printed"}}
    outcome = run_apply(checked(APPLY_SPEC, objects=[secret], kubeconfig=str(tmp_path / "missing")), False, True)
    assert outcome.failed and "no kubeconfig found" in outcome.result["msg"]
    assert "never-printed" in outcome.no_log_values
    assert outcome.result["requests"] == {"total": 0, "writes": 0, "by_method": {}}


def test_cluster_info_reports_an_unreachable_server_with_the_requests_made(tmp_path):
    outcome = run_info(checked(INFO_SPEC, kubeconfig=str(tmp_path / "missing")))
    assert outcome.failed and "no kubeconfig found" in outcome.result["msg"]
    assert outcome.result["status"] == 0 and outcome.result["requests"]["total"] == 0
