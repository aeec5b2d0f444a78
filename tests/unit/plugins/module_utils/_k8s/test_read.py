# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Live state: one labelled list per kind and namespace; the rest is left to the dry run, never read one by one."""

from __future__ import annotations

import threading
import typing as t

import pytest
from k8s_fakes import CONFIG_MAPS, NAMESPACES, SET, FakeAPI, context, item, member, path

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.model import Target
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.parse import parse
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.read import (
    Listing,
    input_scopes,
    read_live,
    scopes_of,
)
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.resolve import resolve


def test_listed_members_are_live_and_the_rest_is_left_to_the_dry_run():
    api = FakeAPI({path("a"): member("a"), path("b"): {"metadata": {"name": "b", "namespace": "ns"}}})
    items = read_live(context(api), [item("a", 0), item("b", 1), item("c", 2)], SET)
    assert items[0].live is not None and items[0].live["metadata"]["name"] == "a"
    assert [(i.live, i.live_unknown) for i in items[1:]] == [(None, True), (None, True)]
    assert api.sent("GET") == ["/api/v1/namespaces/ns/configmaps"]   # one list, no GET per object


def test_objects_in_a_namespace_this_run_creates_wait_for_it():
    namespace = Target(0, {"metadata": {"name": "new"}}, "v1", "Namespace", "new", resource=NAMESPACES)
    given = item("a", 1).but(namespace="new")
    namespace, waiting = read_live(context(FakeAPI()), [namespace, given], SET)
    assert given.deferred == ""                                  # the input record is never changed
    assert namespace.live is None and waiting.deferred == "its namespace new is created by this run"


def test_observed_reads_each_object():
    api = FakeAPI({path("a"): {"metadata": {"name": "a"}}})
    items = read_live(context(api, state="observed"), [item("a", 0), item("b", 1)], None)
    assert items[0].live == {"metadata": {"name": "a"}} and items[1].live is None


def test_a_listing_sent_early_is_what_read_live_uses_and_is_sent_before_read_live_runs():
    api = FakeAPI({path("a"): member("a")})
    listed = threading.Event()
    exchange = api.exchange

    def noted(*args, **kwargs):
        answer = exchange(*args, **kwargs)
        listed.set()
        return answer

    api.exchange = noted  # type: ignore[method-assign]
    items: list[Target] = [item("a", 0), item("b", 1)]
    ctx = context(api)
    listing = Listing(ctx, scopes_of(items), SET)
    assert listed.wait(5)                  # sent from its own thread, before anyone asks for it
    labelled = [i.but(index=i.index) for i in items]   # new records for the same objects, as label() makes them
    found = read_live(ctx, labelled, SET, listing)
    assert found[0].live is not None and found[0].live["metadata"]["name"] == "a" and found[1].live_unknown
    assert api.sent("GET") == ["/api/v1/namespaces/ns/configmaps"]   # read_live sent no list of its own


def test_a_listing_that_failed_fails_read_live_with_the_servers_error():
    api = FakeAPI()
    api.refuse[("GET", "/api/v1/namespaces/ns/configmaps")] = KubeError("forbidden", 403, {"code": 403})
    items: list[Target] = [item("a", 0)]
    ctx = context(api)
    listing = Listing(ctx, scopes_of(items), SET)
    with pytest.raises(KubeError, match="forbidden"):
        read_live(ctx, items, SET, listing)


def config_map(name: str, namespace: str | None = None) -> dict[str, t.Any]:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"k": name}}


def test_the_scopes_read_from_the_input_are_those_parse_and_resolve_find():
    ctx = context(FakeAPI(), namespace="fallback")
    objects = [config_map("a", "ns"), config_map("b"), config_map("c", "other"), config_map("d", "ns"),
               {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
               {"apiVersion": "example.com/v1", "kind": "NotServed", "metadata": {"name": "x", "namespace": "ns"}}]
    targets, problems = resolve(ctx, parse(objects)[0])
    guessed = input_scopes(ctx, objects)
    assert guessed == scopes_of(t for t in targets if t.index not in {p.index for p in problems})
    assert guessed == {CONFIG_MAPS: {"ns", "fallback", "other"}, NAMESPACES: frozenset()}


@pytest.mark.parametrize("broken", [["a list"], {"kind": "ConfigMap", "metadata": {"name": "a"}},
                                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": ""}},
                                    {"apiVersion": "v1", "kind": "ConfigMap"}])
def test_input_parse_refuses_outright_sends_no_list(broken):
    api = FakeAPI()
    assert input_scopes(context(api), [config_map("a", "ns"), broken]) is None
    assert api.calls == []


def test_a_namespaced_object_without_a_namespace_sends_no_list_across_the_cluster():
    api = FakeAPI()
    assert input_scopes(context(api), [config_map("a", "ns"), config_map("b")]) is None   # no namespace option
    assert input_scopes(context(api, namespace="given"), [config_map("b")]) == {CONFIG_MAPS: {"given"}}
    assert [p for m, p, _d in api.calls if "configmaps" in p] == []


def test_a_wrong_guess_is_listed_again_as_resolved_and_its_own_failure_is_not_raised():
    api = FakeAPI({path("a"): member("a")})
    api.refuse[("GET", "/api/v1/namespaces/elsewhere/configmaps")] = KubeError("forbidden", 403, {"code": 403})
    ctx = context(api)
    listing = Listing(ctx, {CONFIG_MAPS: frozenset({"elsewhere"})}, SET)   # an object resolve then refused
    found = read_live(ctx, [item("a", 0)], SET, listing)
    assert found[0].live is not None and found[0].live["metadata"]["name"] == "a"
    assert api.sent("GET") == ["/api/v1/namespaces/elsewhere/configmaps", "/api/v1/namespaces/ns/configmaps"]
