# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_summary import lines, stage


def obj(kind, name, action, namespace=None, drift=()):
    return {"kind": kind, "name": name, "namespace": namespace, "action": action,
            "drift": {"count": len(drift), "fields": list(drift)}}


def test_a_stage_that_never_ran_or_was_skipped_says_so():
    assert stage("KubeVirt", [None, ""]).state == "not started"
    assert stage("KubeVirt", [{"skipped": True}]).state == "skipped"
    assert lines([stage("KubeVirt", [None])], check_mode=False, drift_mode="revert")[0] == \
        "KubeVirt: not started, nothing written"


def test_a_finished_stage_names_what_it_wrote_but_not_what_was_unchanged():
    result = {"objects": [obj("Namespace", "vms", "created"), obj("CDI", "cdi", "unchanged"),
                          obj("NetworkAttachmentDefinition", "n", "updated", "vms")], "pruned": [], "drift_total": 0}
    done = stage("node prerequisites", [result])
    assert done.state == "done"
    assert done.written == ("created Namespace vms", "updated NetworkAttachmentDefinition vms/n")
    assert lines([done], check_mode=True, drift_mode="revert")[0] == (
        "node prerequisites: would write 2 object(s): created Namespace vms, updated NetworkAttachmentDefinition vms/n")


def test_a_failed_stage_names_exactly_what_the_server_confirmed():
    failed = {"failed": True, "msg": "refused", "written": [
        {"kind": "ConfigMap", "namespace": "kv", "name": "hyperconverged", "action": "created"}],
        "objects": [obj("KubeVirt", "kv", "created", "kv")]}   # planned, never written
    one = stage("KubeVirt", [failed])
    assert one.state == "failed" and one.written == ("created ConfigMap kv/hyperconverged",)
    out = lines([one], check_mode=False, drift_mode="revert", failure="Apply: refused")
    assert out[0] == "KubeVirt: FAILED, wrote 1 object(s): created ConfigMap kv/hyperconverged"
    assert out[2] == "the run stopped at KubeVirt: Apply: refused" and out[3].startswith("to resume: ")


def test_drift_names_objects_and_fields_first_eight_then_a_count():
    fields = [{"path": f"spec.f{i}", "managers": ["kubectl-edit"]} for i in range(10)]
    result = {"objects": [obj("KubeVirt", "kv", "updated", "ns", fields)], "drift_total": 10}
    out = lines([stage("KubeVirt", [result])], check_mode=False, drift_mode="report")
    assert out[1].startswith("drift: 10 field(s) changed by others, left as they are (site_drift: report): "
                             "KubeVirt ns/kv: spec.f0 (set by kubectl-edit), ")
    assert out[1].endswith("and 2 more")
    assert lines([stage("KubeVirt", [{"objects": [], "drift_total": 0}])], check_mode=False,
                 drift_mode="revert")[1] == "drift: none"


def test_deletions_are_listed_once():
    result = {"objects": [obj("CDI", "cdi", "deleted"), obj("Namespace", "vms", "kept")],
              "deleted": [{"kind": "CDI", "name": "cdi", "namespace": None, "action": "deleted"}]}
    assert stage("KubeVirt", [result]).written == ("deleted CDI cdi",)


def test_a_refusal_before_any_write_is_placed_at_the_first_stage_that_never_started():
    stages = [stage("KubeVirt", [None]), stage("node prerequisites", [None])]
    out = lines(stages, check_mode=False, drift_mode="revert", failure="Refuse: 1 VirtualMachine(s) exist")
    assert "the run stopped at KubeVirt: Refuse: 1 VirtualMachine(s) exist" in out
