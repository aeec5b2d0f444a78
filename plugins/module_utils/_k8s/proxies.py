# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which proxy, if any, carries the requests to the API server, and how a proxy is named in a message. PRIVATE.

kubectl's order (k8s.io/client-go rest/transport.go, ``HTTPWrappersForConfig``, and transport/cache.go, which falls
back to ``http.ProxyFromEnvironment``): the ``proxy`` option (kubernetes.core's, ``K8S_AUTH_PROXY``) over the
kubeconfig cluster's ``proxy-url``, both proxying every request; without either, the environment as Go reads it
(golang.org/x/net/http/httpproxy, ``FromEnvironment``, ``config.proxyForURL`` and ``config.useProxy``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import typing as t
from urllib.parse import urlsplit


@dataclasses.dataclass(frozen=True)
class Route:
    proxy: str | None   # the proxy's URL (credentials included: never print it, print shown(proxy))
    source: str         # what chose it: "proxy option", "kubeconfig proxy-url", "HTTPS_PROXY", ...; "" for none


def route(server: str, configured: str | None, configured_source: str, no_proxy: str | None,
          environ: t.Mapping[str, str]) -> Route:
    """The proxy for ``server``: ``configured`` (the option or the kubeconfig's) unless the ``no_proxy`` option names
    the server, else the environment's."""
    if configured:
        if no_proxy and bypasses_proxy(server, no_proxy, loopback=False):
            return Route(None, f"{configured_source} bypassed by no_proxy")
        return Route(configured, configured_source)
    scheme = urlsplit(server).scheme.lower()
    if scheme == "https":
        name, value = _first(environ, "HTTPS_PROXY", "https_proxy")
    elif scheme == "http" and not environ.get("REQUEST_METHOD"):   # CGI: HTTP_PROXY may be a request header
        name, value = _first(environ, "HTTP_PROXY", "http_proxy")
    else:
        return Route(None, "")
    if not value:
        return Route(None, "")
    if bypasses_proxy(server, _first(environ, "NO_PROXY", "no_proxy")[1] + "," + (no_proxy or "")):
        return Route(None, f"{name} bypassed by NO_PROXY")
    return Route(value if "://" in value else f"http://{value}", name)


def _first(environ: t.Mapping[str, str], *names: str) -> tuple[str, str]:
    """The first of ``names`` set to a non-empty value (httpproxy's getEnvAny)."""
    for name in names:
        if environ.get(name):
            return name, environ[name]
    return names[0], ""


def bypasses_proxy(url: str, no_proxy: str, loopback: bool = True) -> bool:
    """Whether ``no_proxy`` names the server, by httpproxy's rules: ``*``; an address or a CIDR range; a domain, which
    matches itself and its subdomains, or with a leading dot (or ``*.``) its subdomains only; any of them with
    ``:port``, matched against the URL's port or its scheme's default. ``loopback``: localhost and loopback addresses
    are never proxied (the environment's rule; an explicit proxy carries them too)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = str(parts.port or (443 if parts.scheme.lower() == "https" else 80))
    except ValueError:
        return False
    address = _address(host)
    if loopback and (host == "localhost" or (address is not None and address.is_loopback)):
        return True
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        if "/" in entry:   # a CIDR range (one that does not parse can name no host either)
            with contextlib.suppress(ValueError):
                if address is not None and address in ipaddress.ip_network(entry, strict=False):
                    return True
            continue
        name, wanted = _host_port(entry)
        if not name or (wanted and wanted != port):
            continue
        if _address(name) is not None:
            if address is not None and _address(name) == address:
                return True
            continue
        subdomains_only = name.startswith((".", "*."))
        suffix = "." + name.lstrip("*").lstrip(".")
        if host.endswith(suffix) or (not subdomains_only and host == suffix[1:]):
            return True
    return False


def _host_port(entry: str) -> tuple[str, str]:
    """net.SplitHostPort's reading of a NO_PROXY entry: ``host:port`` or ``[v6]:port``; otherwise the whole entry."""
    if entry.startswith("["):
        close = entry.find("]")
        if close > 0 and entry[close + 1:close + 2] == ":":
            return entry[1:close], entry[close + 2:]
        return entry.strip("[]"), ""
    if entry.count(":") == 1:
        name, _sep, port = entry.partition(":")
        return name, port
    return entry, ""


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def shown(proxy: str) -> str:
    """A proxy URL as messages show it: scheme, host and port; its credentials, if any, left out."""
    parts = urlsplit(proxy)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return f"{parts.scheme}://{host}{port}"
