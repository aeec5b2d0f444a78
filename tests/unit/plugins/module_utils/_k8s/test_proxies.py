# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which proxy reaches the API server. The expected answers are Go's, from reading golang.org/x/net/http/httpproxy
(proxy.go: FromEnvironment, config.proxyForURL, config.useProxy, domainMatch.match, ipMatch.match, cidrMatch.match)
and net/http's ProxyFromEnvironment documentation; the integration test compares with kubectl through a real proxy."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.proxies import (
    Route,
    bypasses_proxy,
    route,
    shown,
)


@pytest.mark.parametrize(("url", "no_proxy", "bypassed"), [
    # A domain matches itself and its subdomains, never a name that only ends in the same letters.
    ("https://api.example.com:6443", "example.com", True),
    ("https://example.com:6443", "example.com", True),
    ("https://notexample.com:6443", "example.com", False),
    # A leading dot, or "*.", matches subdomains only.
    ("https://api.example.com:6443", ".example.com", True),
    ("https://example.com:6443", ".example.com", False),
    ("https://api.example.com:6443", "*.example.com", True),
    ("https://example.com:6443", "*.example.com", False),
    # Case does not matter; blank entries and spaces are skipped.
    ("https://API.Example.com:6443", " , EXAMPLE.com ", True),
    ("https://api:6443", " , ", False),
    # Addresses and CIDR ranges, v4 and v6.
    ("https://10.1.2.3:6443", "10.0.0.0/8", True),
    ("https://10.1.2.3:6443", "192.168.0.0/16,example.com", False),
    ("https://10.1.2.3:6443", "10.1.2.3", True),
    ("https://10.1.2.4:6443", "10.1.2.3", False),
    ("https://[2001:db8::1]:6443", "2001:db8::/32", True),
    ("https://[2001:db8::1]:6443", "[2001:db8::1]:6443", True),
    ("https://[2001:db8::1]:6443", "[2001:db8::1]:443", False),
    # A port must match the URL's, or its scheme's default.
    ("https://api:6443", "api:6443", True),
    ("https://api:6443", "api:443", False),
    ("https://api", "api:443", True),
    ("http://api", "api:80", True),
    ("https://10.1.2.3", "10.1.2.3:443", True),
    # Everything.
    ("https://api:6443", "*", True),
    ("https://api:6443", "example.com,*", True),
    # Entries Go's httpproxy reads otherwise than a lenient reading would (golang.org/x/net v0.38,
    # http/httpproxy/proxy.go, config.init): "*" only before "." is a wildcard, so "*example.com" is a domain no host
    # has; "[v6]" without a port fails net.SplitHostPort and becomes a domain; a mask-form range fails net.ParseCIDR.
    ("https://api.example.com:6443", "*example.com", False),
    ("https://example.com:6443", "*example.com", False),
    ("https://[fd00::1]:6443", "[fd00::1]", False),
    ("https://[fd00::1]:6443", "fd00::1", True),
    ("https://[fd00::1]:6443", "[fd00::1]:6443", True),
    ("https://10.1.2.3:6443", "10.0.0.0/255.0.0.0", False),
    ("https://10.1.2.3:6443", "10.9.9.9/8", True),          # host bits set: net.ParseCIDR takes the network
    ("https://10.1.2.3:6443", "10.0.0.0/33", False),
    ("https://10.1.2.3:6443", "10.0.0.0/", False),
    ("https://api:6443", ":6443", False),                   # no host part: ignored
    ("https://api:6443", "api:", True),                     # an empty port: any
    ("https://api.example.com:6443", "example.com:6443", True),
    ("https://api.example.com:6443", ".example.com:443", False),
    ("https://10.1.2.3:6443", "1.2.3", True),               # no address to Go: a domain, and ".1.2.3" ends the host
    ("https://10.1.2.3:6443", "0.1.2.3", False),            # an address, another one
    # Loopback is never proxied from the environment, NO_PROXY or not.
    ("https://localhost:6443", "", True),
    ("https://127.0.0.5:6443", "", True),
    ("https://[::1]:6443", "", True),
    ("https://api.example.com:6443", "", False),
])
def test_no_proxy_follows_go(url, no_proxy, bypassed):
    assert bypasses_proxy(url, no_proxy) is bypassed


def test_an_explicit_proxy_carries_loopback_too():
    assert not bypasses_proxy("https://127.0.0.1:6443", "", loopback=False)
    assert not bypasses_proxy("https://localhost:6443", "example.com", loopback=False)
    assert bypasses_proxy("https://127.0.0.1:6443", "127.0.0.1", loopback=False)


@pytest.mark.parametrize(("server", "environ", "expected"), [
    ("https://api:6443", {"HTTPS_PROXY": "http://proxy:3128"}, Route("http://proxy:3128", "HTTPS_PROXY")),
    ("https://api:6443", {"https_proxy": "http://proxy:3128"}, Route("http://proxy:3128", "https_proxy")),
    # The upper-case name first; an empty one falls through to the lower-case.
    ("https://api:6443", {"HTTPS_PROXY": "http://a:1", "https_proxy": "http://b:2"}, Route("http://a:1", "HTTPS_PROXY")),
    ("https://api:6443", {"HTTPS_PROXY": "", "https_proxy": "http://b:2"}, Route("http://b:2", "https_proxy")),
    # The scheme's own variable only.
    ("https://api:6443", {"HTTP_PROXY": "http://proxy:3128"}, Route(None, "")),
    ("http://api:8080", {"HTTP_PROXY": "http://proxy:3128"}, Route("http://proxy:3128", "HTTP_PROXY")),
    # A proxy without a scheme is an HTTP proxy.
    ("https://api:6443", {"HTTPS_PROXY": "proxy:3128"}, Route("http://proxy:3128", "HTTPS_PROXY")),
    # Under CGI, HTTP_PROXY may come from a request header (httpoxy): not used; HTTPS_PROXY still is.
    ("http://api:8080", {"HTTP_PROXY": "http://proxy:3128", "REQUEST_METHOD": "GET"}, Route(None, "")),
    ("https://api:6443", {"HTTPS_PROXY": "http://proxy:3128", "REQUEST_METHOD": "GET"},
     Route("http://proxy:3128", "HTTPS_PROXY")),
    ("https://api.corp:6443", {"HTTPS_PROXY": "http://proxy:3128", "no_proxy": ".corp"},
     Route(None, "HTTPS_PROXY bypassed by NO_PROXY")),
    ("https://127.0.0.1:6443", {"HTTPS_PROXY": "http://proxy:3128"}, Route(None, "HTTPS_PROXY bypassed by NO_PROXY")),
])
def test_the_environment_is_read_as_go_reads_it(server, environ, expected):
    assert route(server, None, "", None, environ) == expected


def test_the_option_and_the_kubeconfig_come_before_the_environment():
    environ = {"HTTPS_PROXY": "http://env:3128"}
    assert route("https://api:6443", "http://option:1", "proxy option", None, environ) == \
        Route("http://option:1", "proxy option")
    assert route("https://127.0.0.1:6443", "http://kc:1", "kubeconfig proxy-url", None, environ) == \
        Route("http://kc:1", "kubeconfig proxy-url")
    # The no_proxy option goes around any of them.
    assert route("https://api:6443", "http://option:1", "proxy option", "api", environ).proxy is None
    assert route("https://api:6443", None, "", "api", environ).proxy is None


def test_a_proxy_is_shown_without_its_credentials():
    assert shown("http://user:s3cret@proxy.example:3128") == "http://proxy.example:3128"
    assert shown("socks5h://u:p@[2001:db8::2]:1080") == "socks5h://[2001:db8::2]:1080"
    assert shown("http://proxy") == "http://proxy"
