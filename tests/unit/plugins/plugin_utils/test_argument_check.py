# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster modules' argument check on the controller: AnsibleModule's messages, never the arguments."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.module_args import (
    AUTH_ARGUMENT_SPEC,
    without_fallbacks,
)
from ansible_collections.virtinfra.hyperconverged.plugins.modules.k8s_apply import ARGUMENT_SPEC, REQUIRED_ONE_OF
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._argument_check import (
    checked,
    refusal,
)

SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"password": "p4ss-w0rd"}}


def test_arguments_that_pass_are_not_refused():
    assert refusal("x", checked(ARGUMENT_SPEC, REQUIRED_ONE_OF, {"objects": [SECRET], "concurrency": "2"})) is None


def test_a_refusal_has_the_modules_message_and_no_argument():
    refused = refusal("virtinfra.hyperconverged.k8s_apply",
                      checked(ARGUMENT_SPEC, REQUIRED_ONE_OF, {"objects": [SECRET], "aply_set": "a"}))
    assert refused is not None and refused["failed"] and not refused["changed"]
    assert refused["msg"].startswith("Unsupported parameters for (virtinfra.hyperconverged.k8s_apply) module: aply_set.")
    assert "p4ss-w0rd" not in repr(refused)
    wrong_type = refusal("k", checked(ARGUMENT_SPEC, REQUIRED_ONE_OF, {"objects": [SECRET], "prune": "sometimes"}))
    assert wrong_type is not None and "prune" in wrong_type["msg"] and "p4ss-w0rd" not in repr(wrong_type)
    neither = refusal("k", checked(ARGUMENT_SPEC, REQUIRED_ONE_OF, {}))
    assert neither == {"failed": True, "changed": False, "msg": "one of the following is required: objects, src"}


def test_without_fallbacks_the_controllers_environment_is_not_read(monkeypatch):
    # For a module that runs on another host, the variables there count, not the controller's.
    monkeypatch.setenv("K8S_AUTH_VERIFY_SSL", "perhaps")
    assert refusal("k", checked(ARGUMENT_SPEC, REQUIRED_ONE_OF, {"objects": []})) is not None
    assert refusal("k", checked(without_fallbacks(ARGUMENT_SPEC), REQUIRED_ONE_OF, {"objects": []})) is None
    assert all("fallback" not in option for option in without_fallbacks(ARGUMENT_SPEC).values())
    assert "fallback" in AUTH_ARGUMENT_SPEC["kubeconfig"]   # the module's own spec is left as it is
