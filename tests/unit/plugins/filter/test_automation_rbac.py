# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.virtinfra.hyperconverged.plugins.filter.automation_rbac import automation_rbac

KINDS = [{"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt"}]


def test_kinds_listed_for_cluster_info_include_the_always_read_ones():
    kinds = automation_rbac(KINDS)["kinds"]
    assert kinds[0] == KINDS[0]
    assert {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"} in kinds


@pytest.mark.parametrize(("written", "options", "message"), [
    ({"apiVersion": "v1"}, {}, "must be lists"),
    (KINDS, {"read": "v1/ConfigMap"}, "must be lists"),
    (KINDS, {"resources": ["kubevirts"]}, "resources= must be"),
    ([{"kind": "KubeVirt"}], {}, r"written\[0\]: needs apiVersion and kind"),
])
def test_bad_input_is_a_filter_error(written, options, message):
    with pytest.raises(AnsibleFilterError, match=message):
        automation_rbac(written, **options)
