# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import socket

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._operators_fetch import FetchError, fetch


def test_a_file_is_read(tmp_path):
    path = tmp_path / "operator.yaml"
    path.write_bytes(b"kind: Namespace\n")
    assert fetch(str(path)) == b"kind: Namespace\n"


def test_a_missing_file_and_a_dangling_link_are_named(tmp_path):
    with pytest.raises(FetchError, match=f"{tmp_path}/missing.yaml: No such file"):
        fetch(str(tmp_path / "missing.yaml"))
    (tmp_path / "link.yaml").symlink_to(tmp_path / "gone.yaml")
    with pytest.raises(FetchError, match="dangling link"):
        fetch(str(tmp_path / "link.yaml"))


def test_a_url_that_cannot_be_fetched_is_named():
    # A port nothing listens on: the connection is refused at once, no network needed.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/kubevirt/v1.9.0/kubevirt-operator.yaml"
    with pytest.raises(FetchError, match=f"{url}: cannot be fetched"):
        fetch(url, timeout=5)
