# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the stages share: warnings once each, masked."""

from __future__ import annotations

import threading

from k8s_fakes import FakeAPI, context

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.secrets import Masker


def test_warnings_are_kept_once_in_order_and_masked():
    ctx = context(FakeAPI())
    ctx.masker = Masker(["hunter2"])
    threads = [threading.Thread(target=ctx.warn, args=(f"w{i % 3} hunter2",)) for i in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(ctx.warnings) == ["w0 <redacted>", "w1 <redacted>", "w2 <redacted>"]
