# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection's name, and Kubernetes' name rules, once: the patterns of k8s.io/apimachinery v0.34.4,
pkg/util/validation/validation.go (the length limits are the callers', which name the field they check), and a DNS
host name as resolvers take it.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import re

# The collection's name: its field manager, the owner of what it writes, its user agent.
COLLECTION = "virtinfra.hyperconverged"

_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_PART = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"

DNS1123_LABEL = re.compile(rf"^{_LABEL}\Z")                           # IsDNS1123Label (63)
DNS1123_SUBDOMAIN = re.compile(rf"^{_LABEL}(\.{_LABEL})*\Z")          # IsDNS1123Subdomain (253)
LABEL_VALUE = re.compile(rf"^({_PART})?\Z")                           # IsValidLabelValue (63)
QUALIFIED_NAME_PART = re.compile(rf"^{_PART}\Z")                      # IsQualifiedName's name part (63)
QUALIFIED_NAME = re.compile(rf"^({_LABEL}(\.{_LABEL})*/)?{_PART}\Z")  # IsQualifiedName: [subdomain/]name
# A host name the DNS probe resolves: letters of either case, an optional final dot, 253 characters at most.
HOST_NAME = re.compile(r"^(?=.{1,253}\Z)[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*\.?\Z")
