# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import catalog, subscriptions
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.settings import ROLE_NAMES

FAMILY = [catalog.BY_KEY["kubevirt"], catalog.BY_KEY["cdi"]]


def test_hco_stands_for_the_family_and_prerequisite_operators_get_their_own():
    wants, problems = subscriptions.wanted([*FAMILY, catalog.BY_KEY["nmstate"]], "openshift", {"hco": "x.v1"}, "kv", ROLE_NAMES.__getitem__)
    assert wants == [subscriptions.Wanted("hco", "kubevirt-hyperconverged", "openshift-cnv", "x.v1"),
                     subscriptions.Wanted("nmstate", "kubernetes-nmstate-operator", "openshift-nmstate", "")]
    assert problems == []
    # HCO's CSV runs the hostpath-provisioner-operator too; SR-IOV has no package on Kubernetes.
    wants, problems = subscriptions.wanted([*FAMILY, catalog.BY_KEY["hpp"], catalog.BY_KEY["sriov"]], "kubernetes", {}, "kv", ROLE_NAMES.__getitem__)
    assert wants == [subscriptions.Wanted("hco", "community-kubevirt-hyperconverged", "kv", "")]
    assert len(problems) == 1 and problems[0].startswith("sriov-network-operator: no OLM package of it is known")


def test_allowed_csv():
    want = subscriptions.Wanted("hco", "p", "ns", "p.v1.20.0")
    assert subscriptions.allowed_csv(want, None, ROLE_NAMES.__getitem__) == ("p.v1.20.0", None)
    assert subscriptions.allowed_csv(want, "p.v1.20.0", ROLE_NAMES.__getitem__) == (None, None)
    assert subscriptions.allowed_csv(want, "p.v1.19.3", ROLE_NAMES.__getitem__) == ("p.v1.20.0", None)
    csv, problem = subscriptions.allowed_csv(want, "p.v1.18.0", ROLE_NAMES.__getitem__)
    assert csv is None and "v1.18 → v1.19 → v1.20" in (problem or "")
    csv, problem = subscriptions.allowed_csv(subscriptions.Wanted("hco", "p", "ns", ""), None, ROLE_NAMES.__getitem__)
    assert csv is None and "operators_csvs.hco" in (problem or "")


def test_approvals_take_exactly_the_allowed_csv():
    plans = [
        {"metadata": {"name": "a"}, "spec": {"clusterServiceVersionNames": ["p.v1.20.0"], "approved": False}},
        {"metadata": {"name": "b"}, "spec": {"clusterServiceVersionNames": ["p.v1.21.0"], "approved": False}},
        {"metadata": {"name": "c"}, "spec": {"clusterServiceVersionNames": ["p.v1.20.0"], "approved": True}},
        {"metadata": {"name": "d"}, "spec": {"clusterServiceVersionNames": ["q.v2.0.0"], "approved": False}},
        {"metadata": {"name": "e"}, "spec": {"clusterServiceVersionNames": ["p.v1.20.0", "p.v1.21.0"]}},
    ]
    approve, notes = subscriptions.approvals(plans, "p.v1.20.0")
    assert approve == ["a"]
    assert len(notes) == 2 and notes[0].startswith("InstallPlan b") and notes[1].startswith("InstallPlan e")
