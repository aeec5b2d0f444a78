# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading an operator's release file on the controller: a local path, or a URL through Ansible's own HTTP client
(proxies from the environment, certificates verified). Errors name the file. PRIVATE."""

from __future__ import annotations

import os

from ansible.module_utils.urls import open_url

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import ClusterFailed

# The largest release file upstream publishes is a few MiB (virt-operator's, with its CRDs); anything far past
# that is not one.
MAX_BYTES = 64 * 1024 * 1024


class FetchError(ClusterFailed):
    pass


def fetch(location: str, timeout: float = 60.0) -> bytes:
    if "://" not in location:
        try:
            with open(location, "rb") as stream:
                content = stream.read(MAX_BYTES + 1)
        except OSError as exc:
            raise FetchError(f"{location}: {exc.strerror or exc}"
                             + (" (is it a dangling link?)" if os.path.islink(location) else "")) from None
    else:
        try:
            with open_url(location, timeout=timeout, follow_redirects="safe") as response:
                content = response.read(MAX_BYTES + 1)
        except Exception as exc:  # HTTPError, URLError, SSL errors, timeouts: all name the URL the same way
            raise FetchError(f"{location}: cannot be fetched: {exc}") from None
    if len(content) > MAX_BYTES:
        raise FetchError(f"{location}: larger than {MAX_BYTES // (1024 * 1024)} MiB; not a release manifest")
    return content
