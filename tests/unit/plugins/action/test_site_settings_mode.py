# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""site_settings' choice of render or apply mode, from site_action and the credentials at hand."""

from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.action.site_settings import choose_mode, render_mode
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s import in_cluster

AWX = {"K8S_AUTH_HOST": "https://api.example:6443", "K8S_AUTH_API_KEY": "token"}


def values(**given):
    return {"kubeconfig": "", "action": "auto", "state": "present", **given}


def test_auto_applies_only_with_a_credential_at_hand_and_says_which():
    assert choose_mode(values(), {})[:2] == (False, "")
    apply, found, reason, problems = choose_mode(values(), AWX)
    assert apply and found and found in reason and problems == []
    assert choose_mode(values(kubeconfig="/etc/kube/config"), {})[:2] == (True, "site_kubeconfig")


def test_render_is_chosen_even_with_a_credential():
    apply, _found, reason, problems = choose_mode(values(action="render"), AWX)
    assert not apply and reason == "site_action is render" and problems == []


def test_apply_without_a_credential_and_a_removal_in_render_mode_are_refused_by_name():
    assert [p.split(":", 1)[0] for p in choose_mode(values(action="apply"), {})[3]] == ["site_action"]
    assert [p.split(":", 1)[0] for p in choose_mode(values(state="absent"), {})[3]] == ["site_state"]
    assert choose_mode(values(action="render", state="absent"), AWX)[3][0].endswith("(it is render)")


def test_the_pods_service_account_is_a_credential_for_apply_only(tmp_path, monkeypatch):
    # AWX on Kubernetes runs every job in a pod: auto must not apply to that cluster because a token is mounted.
    (tmp_path / "token").write_text("t")
    monkeypatch.setattr(in_cluster, "ACCOUNT_DIR", str(tmp_path))
    pod = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    apply, found, reason, problems = choose_mode(values(), pod)
    assert (apply, found, problems) == (False, "", []) and "service account is used with site_action: apply" in reason
    apply, found, reason, problems = choose_mode(values(action="apply"), pod)
    assert apply and "service account" in found and found in reason and problems == []
    assert choose_mode(values(), AWX)[1] == "K8S_AUTH_HOST and K8S_AUTH_API_KEY"   # a credential given wins


def test_render_mode_auto_follows_the_operators_source_and_says_why():
    # Through OLM the site installs HCO, which builds the operands: its HyperConverged, never operands beside it.
    mode, why = render_mode({"mode": "auto", "operators_source": "olm"})
    assert mode == "hco" and "site_operators_source olm" in why
    for source in ("manifests", "none"):
        assert render_mode({"mode": "auto", "operators_source": source})[0] == "standalone"
    assert render_mode({"mode": "standalone", "operators_source": "olm"}) == ("standalone", "site_mode is standalone")
