# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The apply-set parent records the union before members are written, and only what is left after a prune."""

from __future__ import annotations

from k8s_fakes import SET, FakeAPI, context, item

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.applyset import Record
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Step
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.parent import parent_item, record_of, shrink


def test_the_record_leaves_out_shared_objects_and_the_parent():
    shared = item("s", owner="shared")
    assert record_of([item("a"), shared]) == Record({"ConfigMap"}, {"ns"})


def test_a_new_parent_is_planned_like_an_object_and_shrunk_after_a_prune():
    api = FakeAPI()
    ctx = context(api)
    parent, recorded, problem = parent_item(ctx, SET, [item("a")], set())
    assert problem is None and parent is not None and parent.live is None and recorded == Record()
    assert parent.desired["metadata"]["labels"]["applyset.kubernetes.io/id"] == SET.id
    planned = Step.of(parent, action="created", result=parent.desired)
    assert shrink(ctx, SET, planned, [item("a")], Record()) is planned
    assert api.writes == 0                         # records just that already: nothing to write
    shrunk = shrink(ctx, SET, planned, [], Record())
    assert api.writes == 1 and ctx.ledger.entries[0].parent
    assert shrunk.result is not None and shrunk.action == "created" and planned.result is parent.desired


def test_a_configmap_that_is_not_our_parent_is_a_problem():
    api = FakeAPI({"/api/v1/namespaces/ns/configmaps/site": {"metadata": {"name": "site", "namespace": "ns"}}})
    parent, _recorded, problem = parent_item(context(api), SET, [item("a")], set())
    assert parent is None and problem is not None and problem.path == "apply_set"
