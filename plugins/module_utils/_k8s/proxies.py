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
    """Whether ``no_proxy`` names the server, read entry by entry as httpproxy's ``config.init`` reads NO_PROXY and
    matched as ``config.useProxy`` matches: ``*``; a CIDR range as net.ParseCIDR reads one (a decimal prefix length:
    ``10.0.0.0/255.0.0.0`` is no range); an address, with a port as net.SplitHostPort splits one (``[fd00::1]`` without
    a port is no address); otherwise a domain, which matches itself and its subdomains, or with a leading ``.`` (or
    ``*.``; a bare ``*example.com`` is a name no host has) its subdomains only; a port given must be the URL's (or its
    scheme's default). ``loopback``: localhost and loopback addresses are never proxied (the environment's rule; an
    explicit proxy carries them too)."""
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
        if entry == "*":
            return True
        if not entry:
            continue
        network = _cidr(entry)
        if network is not None:
            if address is not None and address in network:
                return True
            continue
        split = _split_host_port(entry)
        name, wanted = split if split is not None else (entry, "")
        if not name:   # ":80": no host part, ignored
            continue
        if _address(name) is not None:
            if address == _address(name) and wanted in ("", port):
                return True
            continue
        if name.startswith("*."):
            name = name[1:]
        whole = not name.startswith(".")   # "example.com" matches itself too, ".example.com" only below it
        suffix = "." + name if whole else name
        if (host.endswith(suffix) or (whole and host == suffix[1:])) and wanted in ("", port):
            return True
    return False


def _cidr(entry: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """net.ParseCIDR: an address, ``/`` and a decimal prefix length within its size; None otherwise."""
    text, slash, length = entry.partition("/")
    address = _address(text) if slash else None
    if address is None or not (length.isascii() and length.isdigit()) or int(length) > address.max_prefixlen:
        return None
    return ipaddress.ip_network(f"{address}/{int(length)}", strict=False)


def _split_host_port(entry: str) -> tuple[str, str] | None:
    """net.SplitHostPort: ``host:port`` or ``[v6]:port`` as (host, port); None where Go's reports an error (a missing
    port, too many colons, a stray bracket)."""
    colon = entry.rfind(":")
    if colon < 0:
        return None
    start, after = 0, 0
    if entry.startswith("["):
        end = entry.find("]")
        if end < 0 or end + 1 != colon:
            return None
        host, start, after = entry[1:end], 1, end + 1
    else:
        host = entry[:colon]
        if ":" in host:
            return None
    if "[" in entry[start:] or "]" in entry[after:]:
        return None
    return host, entry[colon + 1:]


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """net.ParseIP: an address in its plain form (no brackets, no zone)."""
    if "%" in host:
        return None
    try:
        return ipaddress.ip_address(host)
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
