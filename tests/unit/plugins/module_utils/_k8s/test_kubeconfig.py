# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kubeconfig reading, checked against the kubernetes client library's loader on the same files (the library is
what read them before, and still reads exec and auth-provider users)."""

from __future__ import annotations

import base64
import json
import pathlib
import typing as t

import pytest
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.kubeconfig import KubeconfigError, read

PEM = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def config(cluster: dict[str, t.Any], user: dict[str, t.Any] | None, **top: t.Any) -> dict[str, t.Any]:
    context = {"cluster": "k", **({"user": "u"} if user is not None else {})}
    return {"apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "k", "cluster": cluster}],
            "users": [{"name": "u", "user": user}] if user is not None else [],
            "contexts": [{"name": "c", "context": context}], **top}


def library(path: pathlib.Path, context: str | None = None) -> k8s_client.Configuration:
    configuration = k8s_client.Configuration()
    # temp_file_path: the library writes embedded certificates and keys to files it removes only at exit, which
    # pytest-xdist's workers never reach; in the test's own directory they go with it.
    k8s_config.load_kube_config(config_file=str(path), context=context, client_configuration=configuration,
                                temp_file_path=str(path.parent))
    return configuration


def contents(path: str | None) -> bytes | None:
    return pathlib.Path(path).read_bytes() if path else None


CASES: dict[str, tuple[dict[str, t.Any], dict[str, t.Any] | None]] = {
    "token and CA file": ({"server": "https://api:6443/", "certificate-authority": "ca.crt"}, {"token": "abc"}),
    "embedded CA, client certificate and key": (
        {"server": "https://api:6443", "certificate-authority-data": base64.b64encode(PEM).decode()},
        {"client-certificate-data": base64.b64encode(PEM).decode(),
         "client-key-data": base64.b64encode(b"KEY\n").decode()}),
    "certificate files relative to the kubeconfig": (
        {"server": "https://api:6443", "certificate-authority": "pki/ca.crt"},
        {"client-certificate": "pki/u.crt", "client-key": "pki/u.key"}),
    "insecure, server name and proxy": (
        {"server": "https://10.0.0.1:6443", "insecure-skip-tls-verify": True, "tls-server-name": "kubernetes",
         "proxy-url": "http://proxy:3128"}, {"token": "t"}),
    "basic auth": ({"server": "https://api:6443", "certificate-authority": "ca.crt"},
                   {"username": "admin", "password": "s3cr:t"}),
    "a token wins over username and password": (
        {"server": "https://api"}, {"token": "t", "username": "a", "password": "b"}),
    "plain HTTP ignores the CA": ({"server": "http://127.0.0.1:8080", "certificate-authority": "ca.crt"},
                                  {"token": "t"}),
    "no user": ({"server": "https://api:6443", "certificate-authority": "ca.crt"}, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_what_the_library_reads_from_the_same_file(name, tmp_path):
    cluster, user = CASES[name]
    (tmp_path / "pki").mkdir()
    for path, data in (("ca.crt", PEM), ("pki/ca.crt", PEM), ("pki/u.crt", PEM), ("pki/u.key", b"KEY\n")):
        (tmp_path / path).write_bytes(data)
    path = tmp_path / "config"
    path.write_text(json.dumps(config(cluster, user)))
    ours, theirs = read(str(path), None), library(path)
    assert ours.server == theirs.host
    assert ours.insecure == (not theirs.verify_ssl)
    assert (ours.tls_server_name, ours.proxy) == (theirs.tls_server_name, theirs.proxy)
    assert (ours.ca_data or contents(ours.ca_file)) == contents(theirs.ssl_ca_cert)
    assert (ours.cert_data or contents(ours.cert_file)) == contents(theirs.cert_file)
    assert (ours.key_data or contents(ours.key_file)) == contents(theirs.key_file)
    bearer = theirs.auth_settings().get("BearerToken")
    assert ours.authorization == (bearer["value"] if bearer else None)
    assert ours.plugin is None


def test_exec_and_auth_provider_users_are_left_to_the_library(tmp_path):
    exec_user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "get-token"}}
    assert read(config({"server": "https://api"}, exec_user), None).plugin == "exec"
    provider = {"auth-provider": {"name": "oidc", "config": {"id-token": "x"}}, "token": "t"}
    assert read(config({"server": "https://api"}, provider), None).plugin == "auth-provider"
    # A token is used before an exec plugin, as the library orders them.
    assert read(config({"server": "https://api"}, {**exec_user, "token": "t"}), None).plugin is None


def test_kubeconfig_files_merge_as_kubectl_merges_them(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    first.write_text(json.dumps({"current-context": "one", "clusters": [{"name": "k", "cluster": {"server": "http://a"}}],
                                 "contexts": [{"name": "one", "context": {"cluster": "k"}}]}))
    second.write_text(json.dumps({"current-context": "two",
                                  "clusters": [{"name": "k", "cluster": {"server": "http://ignored"}},
                                               {"name": "k2", "cluster": {"server": "http://b"}}],
                                  "contexts": [{"name": "two", "context": {"cluster": "k2"}}]}))
    # The first file to name an entry or set current-context wins (kubectl's rule; the library takes the last
    # current-context); a listed file that does not exist is skipped.
    monkeypatch.setenv("KUBECONFIG", f"{first}:{tmp_path / 'absent'}:{second}")
    assert (read(None, None).server, read(None, None).context) == ("http://a", "one")
    assert read(None, "two").server == "http://b"
    assert read(f"{second}:{first}", None).server == "http://b"


def test_mistakes_are_named_with_what_the_file_has(tmp_path):
    path = tmp_path / "config"
    path.write_text(json.dumps(config({"server": "https://api"}, {"token": "t"})))
    with pytest.raises(KubeconfigError, match=r"has no context 'prod'; it has: c") as failure:
        read(str(path), "prod")
    assert (failure.value.fault, failure.value.contexts) == ("context", ("c",))
    path.write_text(json.dumps({**config({"server": "https://api"}, {"token": "t"}), "current-context": ""}))
    with pytest.raises(KubeconfigError, match="sets no current-context"):
        read(str(path), None)
    with pytest.raises(KubeconfigError, match=f"no kubeconfig found at {tmp_path}/absent"):
        read(str(tmp_path / "absent"), None)
    path.write_text("")
    with pytest.raises(KubeconfigError, match="is empty"):
        read(str(path), None)
    path.write_text("clusters:\n- name: k\n  cluster: {server: https://x\n")
    with pytest.raises(KubeconfigError, match=r"config is not valid YAML, line \d+, column \d+"):
        read(str(path), None)
    with pytest.raises(KubeconfigError, match="is not a kubeconfig") as failure:
        read({"kind": "Config", "current-context": "c"}, None)
    assert failure.value.fault == "file"
    with pytest.raises(KubeconfigError, match="cluster 'k' has no server"):
        read(config({}, {"token": "t"}), None)
    with pytest.raises(KubeconfigError, match="cannot read the token file"):
        read(config({"server": "https://api"}, {"tokenFile": str(tmp_path / "none")}), None)
