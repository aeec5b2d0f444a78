# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A site run that fails midway still says what it wrote: the KubeVirt stage is refused by a real admission webhook
after the node prerequisites were written. Its own API server (the webhook watches the KubeVirt namespace)."""

from __future__ import annotations

import json
import re
import typing as t

from test_k8s_apply_faults import _wait_for_webhook
from test_site import site
from webhooks import AdmissionServer, validating_webhook

NAMESPACE = "kubevirt-hyperconverged"


def _refuse_the_kubevirt_stage(request: dict[str, t.Any]) -> tuple[bool, str]:
    # The KubeVirt stage's apply-set parent: the first object that stage writes.
    refused = request["name"] == "hyperconverged"
    return not refused, "the KubeVirt stage is refused by this test"


def summary_lines(stdout: str) -> list[str]:
    start = stdout.index('"msg": [', stdout.index("TASK [What happened]")) + len('"msg": ')
    return json.loads(stdout[start:stdout.index("\n    ]", start) + 6])


def test_a_run_failing_in_the_kubevirt_stage_reports_what_the_prerequisites_wrote(tmp_path, empty_control_plane):
    plane = empty_control_plane
    plane.kubectl_run("create", "namespace", NAMESPACE)
    with AdmissionServer(tmp_path, _refuse_the_kubevirt_stage) as server, \
            validating_webhook(plane, "refuse-kubevirt", server.port, NAMESPACE, resources=["configmaps"],
                               operations=["CREATE", "UPDATE"], ca_bundle=server.ca_bundle):
        _wait_for_webhook(plane, server, NAMESPACE)
        failed = site(plane)
    assert failed.returncode != 0
    lines = summary_lines(failed.stdout)
    wrote = next(line for line in lines if line.startswith("node prerequisites: wrote "))
    assert next(line for line in lines if line.startswith("KubeVirt: ")) == "KubeVirt: FAILED, wrote nothing"
    stopped = next(line for line in lines if line.startswith("the run stopped at KubeVirt: "))
    assert "the KubeVirt stage is refused by this test" in stopped
    assert any(line.startswith("to resume: ") for line in lines)
    # Every object the summary names as written is on the server.
    named = re.findall(r"(?:created|updated) (\w+) (?:([\w.-]+)/)?([\w.-]+)", wrote)
    assert len(named) >= 8, wrote
    for kind, namespace, name in named:
        where = ["-n", namespace] if namespace else []
        plural = {"NetworkAttachmentDefinition": "network-attachment-definitions"}.get(kind) or (
            kind.lower()[:-1] + "ies" if kind.endswith("y") else kind.lower() + ("es" if kind.endswith("s") else "s"))
        assert plane.kubectl_run("get", plural, name, *where, check=False).returncode == 0, (kind, name)

    # Resumed once the cause is gone: the prerequisites are already there, the KubeVirt stage completes.
    resumed = site(plane)
    assert resumed.returncode == 0, resumed.stdout
    lines = summary_lines(resumed.stdout)
    assert "node prerequisites: wrote nothing" in lines
    assert any(line.startswith("KubeVirt: wrote ") for line in lines)
