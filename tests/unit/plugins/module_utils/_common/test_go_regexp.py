# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Name and schema patterns match the whole text, as Go's regexp does (``$`` is the end of the text there; Python's
``$`` also matches before a final newline). The expectations are Go's (regexp, RE2 syntax: EndText)."""

from __future__ import annotations

import pytest

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common import names
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.golang import go_regexp


@pytest.mark.parametrize("pattern, text, matches", [
    (r"^[a-z]+$", "abc", True),
    (r"^[a-z]+$", "abc\n", False),
    (r"^[$a-z]+$", "a$b", True),        # a "$" in a class is a member
    (r"^[]a]+$", "]a", True),           # a first "]" is a member, the class goes on
    (r"^[^]a]+$", "b\n", True),         # "\n" is not "]" or "a"
    (r"^a\$$", "a$", True),             # an escaped "$" is the character
    (r"^a\$$", "a$\n", False),
    (r"(?m)^a$", "a\nb", True),         # multi-line: end of a line, in Go too
    (r"^(\d+)(s|m)$", "10m\n", False),
])
def test_a_schema_pattern_matches_as_go_matches_it(pattern, text, matches):
    assert bool(go_regexp(pattern).search(text)) is matches


@pytest.mark.parametrize("pattern", [names.DNS1123_LABEL, names.DNS1123_SUBDOMAIN, names.LABEL_VALUE,
                                     names.QUALIFIED_NAME_PART, names.QUALIFIED_NAME, names.HOST_NAME])
def test_kubernetes_name_rules_refuse_a_trailing_newline(pattern):
    assert pattern.match("vlan100-net") and not pattern.match("vlan100-net\n")
