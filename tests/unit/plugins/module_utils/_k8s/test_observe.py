# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""state=observed: read-only, missing and drifted named with who set each field."""

from __future__ import annotations

from k8s_fakes import FakeAPI, context, item

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import observe


def test_missing_drifted_and_unchanged_never_change_anything():
    same = item("same", 0, live={"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": "same", "namespace": "ns"}})
    drifted = item("drifted", 1, live={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "drifted", "namespace": "ns", "managedFields": [
        {"manager": "hco", "operation": "Apply", "fieldsV1": {"f:data": {"f:k": {}}}}]}, "data": {"k": "theirs"}})
    drifted.desired["data"] = {"k": "ours"}
    api = FakeAPI()
    result = observe.run(context(api, state="observed"), [same, drifted, item("missing", 2)])
    actions = {o["name"]: o["action"] for o in result["objects"]}
    assert actions == {"same": "unchanged", "drifted": "drifted", "missing": "missing"}
    assert result["objects"][1]["drift"]["fields"][0]["managers"] == ["hco"]
    assert result["changed"] is False and api.calls == []
