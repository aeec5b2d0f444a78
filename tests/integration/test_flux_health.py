# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flux chain's health checks (spec.healthCheckExprs), judged by Flux's own status reader for them
(tests/harness/flux_health: github.com/fluxcd/pkg/runtime/cel, as kustomize-controller builds it from a
Kustomization) on the status samples the Argo CD checks are tested on (test_argocd_health: each operator's condition
types and reasons). Without them kstatus, Flux's fallback, calls an object Current while its operator still deploys
it: the premise, checked on the same samples."""

from __future__ import annotations

import json
import pathlib
import subprocess
import typing as t

import pytest
from harness.go_tools import built
from test_argocd_health import SAMPLES

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._flux_health import EXPRESSIONS, health_check_exprs
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._gitops_fleet import HEALTH_EXPRESSIONS

# What Flux's wait makes of each of Argo CD's verdicts: only Current ends a wait, Failed ends it in failure. An
# object with no status yet cannot be evaluated and reads Unknown, which the wait keeps polling.
AS_FLUX = {"Healthy": "Current", "Progressing": "InProgress", "Suspended": "InProgress", "Degraded": "Failed"}


@pytest.fixture(scope="module")
def reader() -> pathlib.Path:
    return built("build-flux-health")


def judge(reader: pathlib.Path, exprs: list[dict[str, str]], objects: list[dict[str, t.Any]]) -> list[dict[str, str]]:
    done = subprocess.run([str(reader)], input=json.dumps({"healthCheckExprs": exprs, "objects": objects}),
                          capture_output=True, text=True, check=True, timeout=60)
    return [json.loads(line) for line in done.stdout.splitlines()]


def group_kind(key: tuple[str, str]) -> tuple[str, str]:
    return key[0].rsplit("/", 1)[0], key[1]


@pytest.mark.parametrize("key", sorted(EXPRESSIONS), ids=lambda key: key[1])
def test_each_kind_is_ready_for_flux_only_once_its_operator_says_so(reader, key):
    # Every expression of every stage, as the chain's Kustomizations carry them.
    exprs = [entry for stage in HEALTH_EXPRESSIONS for entry in health_check_exprs(HEALTH_EXPRESSIONS[stage])]
    samples = SAMPLES[group_kind(key)]
    judged = judge(reader, exprs, [sample for sample, _verdict in samples])
    for (sample, verdict), answer in zip(samples, judged):
        wanted = "Unknown" if "status" not in sample else AS_FLUX[verdict]
        assert answer["cel"] == wanted, (sample, answer)
    # Without the expressions, kstatus calls the one still deploying Current: the stage after it would start.
    deploying = samples[1][0]
    assert judge(reader, [], [deploying])[0] == {"cel": "", "kstatus": "Current"}


def test_every_kind_with_a_flux_check_is_in_a_waiting_stage():
    waited = {kind for kinds in HEALTH_EXPRESSIONS.values() for kind in kinds}
    assert waited == {group_kind(key) for key in EXPRESSIONS}


def test_an_expression_flux_cannot_parse_is_refused_by_flux(reader):
    done = subprocess.run([str(reader)], input=json.dumps({"healthCheckExprs": [
        {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "current": "status.conditions.exists(e, "}],
        "objects": []}), capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 2 and "failed to parse" in done.stderr
