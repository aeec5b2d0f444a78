# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where to connect and with which static credentials, from kubeconfig files as kubectl reads them. PRIVATE.

Read here, not with the kubernetes client library, because importing that library in every module process (its
kubeconfig loader pulls in the whole API client, pydantic, requests-oauthlib and dateutil) would cost more than a
no-op apply's own work. Users whose credentials come from a program (``exec``) or an ``auth-provider``
are marked ``plugin`` and loaded by the library, which runs and renews those. The order in which a user's
credentials are tried is the library's (kubernetes-client/python, config/kube_config.py,
KubeConfigLoader._load_authentication): auth-provider, token/tokenFile, exec, username/password.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import typing as t

from .._common.errors import Refused

try:
    import yaml
except ImportError as exc:  # the cluster modules report it (client.KUBERNETES_IMPORT_ERROR)
    IMPORT_ERROR: ImportError | None = exc
else:
    IMPORT_ERROR = None

Plugin = t.Literal["exec", "auth-provider"]
# What a problem is about: the file (or an entry in it), no context chosen, or a context the files do not have.
Fault = t.Literal["file", "current-context", "context"]


class KubeconfigError(Refused):
    """A kubeconfig that cannot be used, named by file (and line, for YAML errors) and entry; never a credential.
    ``contexts``: the context names the files have, for a problem with the context."""

    def __init__(self, message: str, fault: Fault = "file", contexts: t.Sequence[str] = ()) -> None:
        super().__init__(message)
        self.fault = fault
        self.contexts = tuple(contexts)


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """An API server and what to present to it. ``*_data`` hold PEM bytes where the kubeconfig embeds them."""

    server: str
    ca_file: str | None = None
    ca_data: bytes | None = None
    insecure: bool = False
    tls_server_name: str | None = None
    proxy: str | None = None
    cert_file: str | None = None
    cert_data: bytes | None = None
    key_file: str | None = None
    key_data: bytes | None = None
    authorization: str | None = None   # the Authorization header: "Bearer ..." or "Basic ..."
    plugin: Plugin | None = None        # the user's credentials come from a program the library runs
    context: str | None = None          # the kubeconfig context it was read from
    # Who to act as: the kubeconfig user's as, as-uid, as-groups and as-user-extra (client-go rest.ImpersonationConfig).
    impersonate_user: str | None = None
    impersonate_uid: str | None = None
    impersonate_groups: tuple[str, ...] = ()
    impersonate_extra: tuple[tuple[str, tuple[str, ...]], ...] = ()
    source: str = ""                    # where the server and credentials were read, for -v ("kubeconfig ...")
    proxy_source: str = ""              # what chose the proxy (proxies.py), for -v

    def but(self, **changes: t.Any) -> Endpoint:
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True)
class _Entry:
    """A named cluster, user or context, with the directory its relative paths are read from."""

    value: dict[str, t.Any]
    base: str


def default_paths() -> str:
    return os.environ.get("KUBECONFIG") or "~/.kube/config"


def read(kubeconfig: str | dict[str, t.Any] | None, context: str | None) -> Endpoint:
    """The endpoint of ``context`` (default: the current context) in the kubeconfig file(s) or mapping given."""
    if isinstance(kubeconfig, dict):
        named, current = _merge([(kubeconfig, "", "the kubeconfig given")])
        where = "the kubeconfig given"
    else:
        spec = kubeconfig or default_paths()
        files = [os.path.expanduser(p) for p in spec.split(os.pathsep) if p]
        loaded = [(_load(path), os.path.dirname(os.path.abspath(path)), path) for path in files if os.path.exists(path)]
        if not loaded:
            raise KubeconfigError(f"no kubeconfig found at {spec} (set kubeconfig, K8S_AUTH_KUBECONFIG, or host with "
                                  "api_key)")
        named, current = _merge(loaded)
        where = ", ".join(path for _config, _base, path in loaded)
    if not named["clusters"]:
        raise KubeconfigError(f"{where} is not a kubeconfig (it has no clusters)")
    name = context or current
    if not name:
        raise KubeconfigError(f"{where} sets no current-context: name the context to use (context, K8S_AUTH_CONTEXT)",
                              "current-context", sorted(named["contexts"]))
    chosen = _named(named, "contexts", name, where)
    settings = chosen.value.get("context") or {}
    cluster = _named(named, "clusters", settings.get("cluster"), where, f"context {name}")
    user_name = settings.get("user")
    user = named["users"].get(user_name) if user_name else None
    named_as = where if isinstance(kubeconfig, dict) else f"kubeconfig {where}"
    return _endpoint(cluster, user, where).but(context=name, source=f"{named_as}, context {name}")


def contexts(kubeconfig: str) -> list[str]:
    """Every context the kubeconfig file(s) name, merged as read() merges them (a fleet's clusters)."""
    files = [os.path.expanduser(p) for p in kubeconfig.split(os.pathsep) if p]
    loaded = [(_load(path), os.path.dirname(os.path.abspath(path)), path) for path in files]
    named, _current = _merge(loaded)
    return sorted(named["contexts"])


def _load(path: str) -> dict[str, t.Any]:
    if IMPORT_ERROR is not None:
        raise KubeconfigError(f"cannot read kubeconfig {path}: PyYAML is not installed ({IMPORT_ERROR})")
    try:
        with open(path, encoding="utf-8") as stream:
            config = yaml.load(stream, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except OSError as exc:
        raise KubeconfigError(f"cannot read kubeconfig {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise KubeconfigError(f"{path} is not valid YAML{line} ({getattr(exc, 'problem', None) or 'unreadable'})"
                              ) from None
    if config is None:
        raise KubeconfigError(f"kubeconfig {path} is empty")
    if not isinstance(config, dict):
        raise KubeconfigError(f"kubeconfig {path} is not a kubeconfig (a mapping with clusters, users and contexts)")
    return config


def _merge(configs: list[tuple[dict[str, t.Any], str, str]]
           ) -> tuple[dict[str, dict[str, _Entry]], str | None]:
    """Clusters, users and contexts by name, and the current context. As kubectl merges KUBECONFIG's files
    (k8s.io/client-go tools/clientcmd/loader.go, ClientConfigLoadingRules.Load): the first file to name an entry or
    set current-context wins."""
    named: dict[str, dict[str, _Entry]] = {"clusters": {}, "users": {}, "contexts": {}}
    current: str | None = None
    for config, base, path in configs:
        for section, entries in named.items():
            listed = config.get(section) or []
            if not isinstance(listed, list):
                raise KubeconfigError(f"{path}: {section} must be a list")
            for index, entry in enumerate(listed):
                if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                    raise KubeconfigError(f"{path}: {section}[{index}] has no name")
                entries.setdefault(entry["name"], _Entry(entry, base))
        if current is None and config.get("current-context"):
            current = str(config["current-context"])
    return named, current


def _named(named: dict[str, dict[str, _Entry]], section: str, name: t.Any, where: str, of: str = "") -> _Entry:
    entry = named[section].get(name) if isinstance(name, str) else None
    if entry is None:
        known = sorted(named[section])
        whose = f" (named by {of})" if of else ""
        raise KubeconfigError(f"{where} has no {section[:-1]} {name!r}{whose}; it has: {', '.join(known) or 'none'}",
                              "context" if section == "contexts" else "file", known if section == "contexts" else ())
    return entry


def _endpoint(cluster: _Entry, user: _Entry | None, where: str) -> Endpoint:
    settings = cluster.value.get("cluster") or {}
    server = str(settings.get("server") or "").rstrip("/")
    if not server:
        raise KubeconfigError(f"{where}: cluster {cluster.value['name']!r} has no server")
    endpoint = Endpoint(server=server, insecure=bool(settings.get("insecure-skip-tls-verify")),
                        tls_server_name=settings.get("tls-server-name") or None,
                        proxy=settings.get("proxy-url") or None)
    if server.startswith("https"):
        ca_file, ca_data = _file_or_data(settings, "certificate-authority", cluster.base)
        endpoint = endpoint.but(ca_file=ca_file, ca_data=ca_data)
    if user is None:
        return endpoint
    return _credentials(endpoint, user.value.get("user") or {}, user.base)


def _credentials(endpoint: Endpoint, user: dict[str, t.Any], base: str) -> Endpoint:
    extra = user.get("as-user-extra") or {}
    endpoint = endpoint.but(
        impersonate_user=str(user["as"]) if user.get("as") else None,
        impersonate_uid=str(user["as-uid"]) if user.get("as-uid") else None,
        impersonate_groups=tuple(str(g) for g in user.get("as-groups") or ()),
        impersonate_extra=tuple((str(k), tuple(str(v) for v in (vs or ()))) for k, vs in sorted(extra.items()))
        if isinstance(extra, dict) else ())
    if "auth-provider" in user:
        return endpoint.but(plugin="auth-provider")
    cert_file, cert_data = _file_or_data(user, "client-certificate", base)
    key_file, key_data = _file_or_data(user, "client-key", base)
    endpoint = endpoint.but(cert_file=cert_file, cert_data=cert_data, key_file=key_file, key_data=key_data)
    token = _token(user, base)
    if token:
        return endpoint.but(authorization=f"Bearer {token}")
    if "exec" in user:
        return endpoint.but(plugin="exec")
    if "username" in user and "password" in user:
        basic = base64.b64encode(f"{user['username']}:{user['password']}".encode()).decode()
        return endpoint.but(authorization=f"Basic {basic}")
    return endpoint


def _token(user: dict[str, t.Any], base: str) -> str | None:
    if user.get("token"):
        return str(user["token"]).strip()
    if user.get("tokenFile"):
        path = os.path.join(base, os.path.expanduser(str(user["tokenFile"])))
        try:
            with open(path, encoding="utf-8") as stream:
                # Trimmed, as kubectl does (client-go transport, NewCachedFileTokenSource).
                return stream.read().strip() or None
        except OSError as exc:
            raise KubeconfigError(f"cannot read the token file {path}: {exc.strerror}") from None
    return None


def _file_or_data(settings: dict[str, t.Any], key: str, base: str) -> tuple[str | None, bytes | None]:
    """``KEY-data`` (base64 in the kubeconfig) over ``KEY`` (a file, relative to the kubeconfig's directory)."""
    data = settings.get(f"{key}-data")
    if data:
        try:
            # Not validated: the library tolerates line breaks and spaces in the data, and so does this.
            return None, base64.b64decode(str(data))
        except ValueError:
            raise KubeconfigError(f"{key}-data is not base64") from None
    if settings.get(key):
        return os.path.normpath(os.path.join(base, os.path.expanduser(str(settings[key])))), None
    return None, None
