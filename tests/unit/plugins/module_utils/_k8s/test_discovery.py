# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Discovery from the aggregated endpoints, and what an unserved kind is named with."""

from __future__ import annotations

import typing as t

from k8s_fakes import group

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.discovery import Discovery


class Aggregated:
    """Answers /api and /apis as a 1.34 API server does (APIGroupDiscoveryList), counting requests."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def request(self, method: str, path: str, **_options: t.Any) -> dict[str, t.Any]:
        self.asked.append(path)
        if path == "/api":
            items = [group("", ("v1", [("ConfigMap", "configmaps", True), ("Namespace", "namespaces", False)]))]
        else:
            items = [group("skew.example.io", ("v1beta1", [("Gizmo", "gizmos", True), ("Gadget", "gadgets", True)])),
                     group("apps", ("v1", [("Deployment", "deployments", True)]))]
        return {"kind": "APIGroupDiscoveryList", "items": items}


def test_two_requests_find_every_resource_with_its_scope_and_path():
    connection = Aggregated()
    discovery = Discovery(connection)  # type: ignore[arg-type]
    deployment = discovery.find("apps/v1", "Deployment")
    assert deployment is not None and deployment.path("ns", "web") == "/apis/apps/v1/namespaces/ns/deployments/web"
    namespace = discovery.find("v1", "Namespace")
    assert namespace is not None and not namespace.namespaced and namespace.path("ignored", "x") == "/api/v1/namespaces/x"
    assert discovery.find("v1", "Nope") is None
    assert connection.asked == ["/api", "/apis"]


def test_an_unserved_version_is_named_with_the_versions_served():
    discovery = Discovery(Aggregated())  # type: ignore[arg-type]
    assert discovery.not_served("skew.example.io/v1", "Gizmo") == (
        "the server does not serve Gizmo in skew.example.io/v1; it serves Gizmo in skew.example.io/v1beta1")


def test_an_unknown_kind_is_named_with_its_group_and_a_suggestion():
    discovery = Discovery(Aggregated())  # type: ignore[arg-type]
    message = discovery.not_served("skew.example.io/v1beta1", "Gizmoo")
    assert message == ("the server serves no kind Gizmoo in group skew.example.io (did you mean Gizmo?); that group "
                       "has: Gadget, Gizmo")
    assert "in group core" in discovery.not_served("v1", "ConfigMapp")


def test_an_unknown_group_says_the_crd_may_be_missing():
    message = Discovery(Aggregated()).not_served("kubevirt.io/v1", "KubeVirt")  # type: ignore[arg-type]
    assert "no API group kubevirt.io is served" in message and "CustomResourceDefinition" in message
