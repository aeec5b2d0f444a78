# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Names and identities of the apply-set lock (its behaviour is tested on a real API server: test_k8s_apply_lock)."""

from __future__ import annotations

import datetime
import re

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.lock import holder_identity, lease_name

DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def test_lease_names_stay_valid_and_distinct_for_the_longest_parent_names():
    longest = "a" * 253
    other = "a" * 252 + "b"
    assert lease_name("hyperconverged") == "hyperconverged-lock"
    for name in (lease_name(longest), lease_name(other)):
        assert len(name) <= 253 and DNS_SUBDOMAIN.match(name)
    assert lease_name(longest) != lease_name(other)


def test_the_holder_names_the_awx_job_when_the_job_environment_has_one(monkeypatch):
    started = datetime.datetime(2026, 11, 24, 8, 0, tzinfo=datetime.UTC)
    monkeypatch.delenv("AWX_JOB_ID", raising=False)
    monkeypatch.setenv("JOB_ID", "17")
    assert re.fullmatch(r".+@.+ pid \d+ since 2026-11-24T08:00:00Z \(AWX job 17\)", holder_identity(started))
    monkeypatch.delenv("JOB_ID")
    assert "AWX job" not in holder_identity(started)
