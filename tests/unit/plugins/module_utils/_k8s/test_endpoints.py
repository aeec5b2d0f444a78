# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where to connect: the service account where there is no kubeconfig, the options over the kubeconfig, the proxy
and what chose it (the connections themselves: test_client.py; beside kubectl: tests/integration/
test_k8s_apply_connections.py)."""

from __future__ import annotations

import json

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import in_cluster
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.endpoints import endpoint
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.kubeconfig import KubeconfigError


def kubeconfig(server: str, **cluster: object) -> dict:
    return {"apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "k", "cluster": {"server": server, **cluster}}],
            "users": [{"name": "u", "user": {"token": "t"}}],
            "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}]}


def test_in_a_pod_without_a_kubeconfig_the_service_account_connects(tmp_path, monkeypatch):
    account = tmp_path / "serviceaccount"
    account.mkdir()
    (account / "token").write_text("first-token\n")
    monkeypatch.setattr(in_cluster, "ACCOUNT_DIR", str(account))
    monkeypatch.setenv("HOME", str(tmp_path))   # no ~/.kube/config
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "6443")
    target, renewed = endpoint(None, None, None, {})
    assert target.server == "https://127.0.0.1:6443"
    assert target.source.startswith("in-cluster service account") and target.ca_file is None   # no ca.crt here
    assert renewed is not None and renewed() == "Bearer first-token"
    (account / "token").write_text("rotated-token")   # kubelet renews the projected token in place
    assert renewed() == "Bearer rotated-token"
    # A kubeconfig file, an explicit kubeconfig or a host: the pod's account is not used.
    assert endpoint(None, None, "https://api:6443", {"server": "https://api:6443"})[0].source == \
        "host option"
    (tmp_path / ".kube").mkdir()
    (tmp_path / ".kube" / "config").write_text(json.dumps(kubeconfig("https://kc:6443")))
    assert endpoint(None, None, None, {})[0].server == "https://kc:6443"


def test_the_sources_are_named_for_the_result():
    found, _renewed = endpoint(kubeconfig("https://kc:6443", **{"proxy-url": "http://p:3128"}), None, None, {}, None,
                               {})
    assert (found.source, found.proxy, found.proxy_source) == (
        "the kubeconfig given, context c", "http://p:3128", "kubeconfig proxy-url")
    found, _renewed = endpoint(kubeconfig("https://kc:6443"), None, "https://other:6443",
                               {"server": "https://other:6443", "proxy": "http://o:1"}, None, {})
    assert (found.server, found.source, found.proxy_source) == (
        "https://other:6443", "the kubeconfig given, context c, server from the host option", "proxy option")


def test_no_server_and_an_unreadable_token_are_kubeconfig_problems(tmp_path, monkeypatch):
    with pytest.raises(KubeconfigError, match="cluster 'k' has no server"):
        endpoint(kubeconfig(""), None, None, {}, None, {})
    (tmp_path / "token").mkdir()   # a token that cannot be read as a file
    monkeypatch.setattr(in_cluster, "ACCOUNT_DIR", str(tmp_path))
    monkeypatch.setattr(in_cluster.os.path, "isfile", lambda _p: True)   # available() sees it; reading it fails
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    with pytest.raises(KubeconfigError, match="cannot read the service account token"):
        endpoint(None, None, None, {}, None, {"KUBERNETES_SERVICE_HOST": "h", "KUBERNETES_SERVICE_PORT": "1"})
