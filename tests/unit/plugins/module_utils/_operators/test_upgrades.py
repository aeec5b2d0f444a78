# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.versions import Version, parse
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import ROLE_NAMES
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.upgrades import step_problem


@pytest.mark.parametrize(("text", "expected"), [
    ("v1.9.0", Version(1, 9, 0)), ("1.20", Version(1, 20, 0)), ("v1.20.0-rc.1", Version(1, 20, 0)),
    ("quay.io/kubevirt/virt-operator:v1.9.2", Version(1, 9, 2)), ("localhost:5000/virt-operator:v1.8.1", Version(1, 8, 1)),
    ("quay.io/kubevirt/virt-operator@sha256:abc", None), ("latest", None), ("", None), (None, None),
])
def test_parse(text, expected):
    assert parse(text) == expected


def test_one_minor_and_patches_are_steps():
    assert step_problem(Version(1, 8, 3), Version(1, 9, 0), ROLE_NAMES.__getitem__) is None
    assert step_problem(Version(1, 9, 0), Version(1, 9, 4), ROLE_NAMES.__getitem__) is None


def test_two_minors_names_the_path():
    problem = step_problem(Version(1, 7, 2), Version(1, 9, 0), ROLE_NAMES.__getitem__)
    assert problem is not None
    assert "v1.7 → v1.8 → v1.9" in problem and "skips 1 minor" in problem


def test_downgrade_and_major_are_refused():
    assert "downgrades" in (step_problem(Version(1, 9, 0), Version(1, 8, 0), ROLE_NAMES.__getitem__) or "")
    assert "major" in (step_problem(Version(1, 9, 0), Version(2, 0, 0), ROLE_NAMES.__getitem__) or "")
