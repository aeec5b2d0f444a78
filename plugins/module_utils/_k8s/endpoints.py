# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where to connect and as whom, in kubectl's order: the explicit options over the kubeconfig (kubeconfig.py), or the
pod's service account where there is no kubeconfig (in_cluster.py); the proxy (proxies.py); the impersonation
headers. A problem is a KubeconfigError, which the client reports. PRIVATE.
"""

from __future__ import annotations

import os
import typing as t
from urllib.parse import quote

from . import in_cluster, proxies
from .kubeconfig import Endpoint, KubeconfigError, default_paths, read


def endpoint(kubeconfig: str | dict[str, t.Any] | None, context: str | None, host: str | None,
             overrides: t.Mapping[str, t.Any], no_proxy: str | None = None,
             environ: t.Mapping[str, str] | None = None) -> tuple[Endpoint, t.Callable[[], str | None] | None]:
    """The server and credentials, with the explicit options over them: the kubeconfig's (none when only a host is
    given), or the pod's service account where no kubeconfig file exists; the proxy that reaches the server
    (proxies.py); and, for a user whose token a program or a file renews, where to ask for the current one."""
    environ = os.environ if environ is None else environ
    changes = {name: value for name, value in overrides.items() if value is not None and value != ""}
    renewed = None
    if host and not kubeconfig:
        found = Endpoint(server="", source="host option")
    elif not kubeconfig and not _kubeconfig_files() and in_cluster.available(environ):
        found, renewed = in_cluster.endpoint(environ)
    else:
        found = read(kubeconfig, context)
    if found.plugin and "authorization" not in changes:   # an explicit api_key: the program is not run
        # The context read here, by name: the library would pick another current-context when KUBECONFIG lists
        # several files that set one (it takes the last, kubectl the first).
        found, renewed = _from_library(kubeconfig, found.context or context, found)
    if "authorization" in changes:
        renewed = None
    if "server" in changes:
        changes["server"] = changes["server"].rstrip("/")
        if found.server:
            changes["source"] = f"{found.source}, server from the host option"
    for option, data in (("ca_file", "ca_data"), ("cert_file", "cert_data"), ("key_file", "key_data")):
        if option in changes:
            changes[data] = None
    found = found.but(**changes)
    if not found.server:
        raise KubeconfigError("no API server: set host, or kubeconfig with a cluster's server")
    chosen = proxies.route(found.server, found.proxy, "proxy option" if "proxy" in changes else "kubeconfig proxy-url",
                           no_proxy, environ)
    return found.but(proxy=chosen.proxy, proxy_source=chosen.source), renewed


def impersonation_headers(target: Endpoint) -> list[tuple[str, str]]:
    """Kubernetes' impersonation headers (k8s.io/client-go transport/round_trippers.go, NewImpersonatingRoundTripper):
    one Impersonate-Group per group and one Impersonate-Extra-<key> per value, the key percent-encoded."""
    headers = [("Impersonate-User", target.impersonate_user)] if target.impersonate_user else []
    if target.impersonate_uid:
        headers.append(("Impersonate-Uid", target.impersonate_uid))
    headers += [("Impersonate-Group", group) for group in target.impersonate_groups]
    headers += [(f"Impersonate-Extra-{quote(key, safe='')}", value) for key, values in target.impersonate_extra
                for value in values]
    return headers


def _kubeconfig_files() -> list[str]:
    """The default kubeconfig files that exist (KUBECONFIG's, or ~/.kube/config)."""
    return [p for p in (os.path.expanduser(p) for p in default_paths().split(os.pathsep) if p) if os.path.exists(p)]


def _from_library(kubeconfig: str | dict[str, t.Any] | None, context: str | None, found: Endpoint
                  ) -> tuple[Endpoint, t.Callable[[], str | None]]:
    """A user whose credentials a program gives: the kubernetes client library's kubeconfig loader runs it (and
    again when the token it gave expires), as kubectl would."""
    try:
        from kubernetes import client as k8s_client
        from kubernetes import config as k8s_config
        from kubernetes.config.config_exception import ConfigException
    except ImportError as exc:
        raise KubeconfigError(f"the kubeconfig's user has {found.plugin} credentials, which need the kubernetes "
                              f"Python package: {exc}") from None
    configuration = k8s_client.Configuration()
    try:
        if isinstance(kubeconfig, dict):
            k8s_config.load_kube_config_from_dict(kubeconfig, context=context, client_configuration=configuration)
        else:
            k8s_config.load_kube_config(config_file=kubeconfig or default_paths(), context=context,
                                        client_configuration=configuration)
    except (ConfigException, OSError) as exc:
        raise KubeconfigError(f"cannot load kubeconfig: {exc}") from exc

    def renewed() -> str | None:
        bearer = configuration.auth_settings().get("BearerToken")
        return bearer.get("value") if bearer else None

    # An exec plugin may give a client certificate instead of a token.
    return found.but(cert_file=configuration.cert_file or found.cert_file,
                     key_file=configuration.key_file or found.key_file), renewed
