# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""state=absent: every delete dry-run first, only members with an apply set, each confirmed delete in the ledger."""

from __future__ import annotations

import pytest
from k8s_fakes import SET, FakeAPI, context, item, member, path

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import delete
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError


def refused(message: str) -> KubeError:
    return KubeError(message, 403, {"kind": "Status", "code": 403, "message": message})


def test_a_refused_dry_run_deletes_nothing():
    api = FakeAPI({path("a"): member("a"), path("b"): member("b")})
    api.refuse[("DELETE", path("b"))] = refused('admission webhook "guard" denied the request: b is protected')
    with pytest.raises(delete.DeleteFailed) as failure:
        delete.run(context(api), [item("a", 0), item("b", 1)], None)
    assert [(p.index, p.message) for p in failure.value.problems] == [
        (1, 'admission webhook "guard" denied the request: b is protected')]
    assert api.writes == 0 and sorted(api.objects) == [path("a"), path("b")]


def test_only_members_go_and_a_persons_object_is_kept_with_a_warning():
    persons = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "p", "namespace": "ns"}}
    api = FakeAPI({path("a"): member("a"), path("p"): persons})
    ctx = context(api, check_mode=True)
    result = delete.run(ctx, [item("a", 0), item("p", 1), item("absent", 2)], SET)
    assert {o["name"]: o["action"] for o in result["objects"]} == {"a": "deleted", "p": "kept", "absent": "unchanged"}
    assert [d["name"] for d in result["deleted"]] == ["a"] and result["changed"]
    assert any("p was not created by apply set" in w for w in result["warnings"])
    assert api.writes == 0 and api.sent("DELETE", dry_run=False) == []   # check mode: dry runs only


def test_a_failure_halfway_leaves_exactly_the_confirmed_deletes_in_the_ledger():
    api = FakeAPI({path(n): member(n) for n in ("a", "b", "c")})
    ctx = context(api, workers=1)
    original = api.exchange

    def failing(method, target, **options):
        if method == "DELETE" and target == path("c") and not (options.get("query") or {}).get("dryRun"):
            raise KubeError("etcdserver: request timed out", 0)
        return original(method, target, **options)

    api.exchange = failing  # type: ignore[method-assign,assignment]
    with pytest.raises(KubeError):
        delete.run(ctx, [item("a", 0), item("b", 1), item("c", 2)], None)
    assert [d["name"] for d in ctx.ledger.deleted()] == ["a", "b"]
    assert sorted(api.objects) == [path("c")]
