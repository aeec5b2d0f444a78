# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every release profile against the golden files its own HCO release produced (tests/golden/<release>).

The files were written by tests/harness/hco-golden: HCO's webhooks and OperandHandler at the release's tag, behind a
real kube-apiserver applying that tag's CRD. They list the kinds HCO's golden format records (the operators' custom
resources, the PriorityClass, DaemonSets, Deployments and two ConfigMaps); the engine's other objects are not
compared here.
"""

from __future__ import annotations

import pytest
import vectors

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.releases import PROFILES
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

RECORDED_KINDS = {"KubeVirt", "CDI", "NetworkAddonsConfig", "SSP", "AAQ", "MigController", "FileRestoreOperator",
                  "PriorityClass", "DaemonSet", "Deployment"}
RECORDED_CONFIG_MAPS = {"nginx-conf", "kubevirt-aie-launcher-config"}
CASES = vectors.release_golden_files()


def _recorded(obj):
    if obj["kind"] == "ConfigMap":
        return obj["metadata"]["name"] in RECORDED_CONFIG_MAPS
    return obj["kind"] in RECORDED_KINDS


def test_every_profile_but_the_seed_has_golden_files_and_every_golden_directory_a_profile():
    directories = {release for release, _path in CASES}
    assert directories == set(PROFILES) - {"1.14"}  # 1.14: ../shared/hco-examples-1.14, checked by test_examples


@pytest.mark.parametrize(("release", "path"), CASES, ids=[f"{r}/{p.stem}" for r, p in CASES])
def test_release_golden(release, path):
    example = vectors.load(path)
    expect = example["expect"]
    arguments = vectors.render_arguments(example, release, schedule="<schedule>")
    if expect.get("reject"):
        with pytest.raises(RenderError) as refused:
            render(**arguments)
        assert refused.value.errors
        return
    result = render(**arguments)
    got = [o for o in result.operands if _recorded(o)]
    assert [(o["kind"], o["metadata"]["name"]) for o in got] == \
        [(o["kind"], o["metadata"]["name"]) for o in expect["operands"]]
    for obj, wanted in zip(got, expect["operands"]):
        assert obj == wanted, f"{wanted['kind']}/{wanted['metadata']['name']} differs"
    assert result.warnings == expect["warnings"]
    assert result.unsafe_modifications == expect["unsafe_modifications"]
