# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import KubeError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators import catalog, running


class Answers:
    """Answers by path, as the API server gave them; 404 for the rest."""

    def __init__(self, answers):
        self.answers, self.asked = answers, []

    def request(self, method, path, **_):
        self.asked.append((method, path))
        if path in self.answers:
            return self.answers[path]
        raise KubeError("not found", 404)


class NoKinds:
    def find(self, *_):
        return None


def test_from_manifests_reads_the_deployment_where_the_site_puts_it():
    connection = Answers({"/apis/apps/v1/namespaces/kv/deployments/virt-operator": {
        "spec": {"template": {"spec": {"containers": [{"image": "q/virt-operator:v1.8.0"}]}}}}})
    found = running.from_manifests(connection, NoKinds(), catalog.BY_KEY["kubevirt"], "kv")
    assert found == running.Running("v1.8.0", "Deployment kv/virt-operator image q/virt-operator:v1.8.0")
    assert running.from_manifests(Answers({}), NoKinds(), catalog.BY_KEY["kubevirt"], "kv") is None
    elsewhere = Answers({"/apis/apps/v1/deployments?fieldSelector=metadata.name%3Dvirt-operator": {"items": [
        {"metadata": {"namespace": "kubevirt", "labels": {"app.kubernetes.io/version": "v1.4.0"}}}]}})
    found = running.from_manifests(elsewhere, NoKinds(), catalog.BY_KEY["kubevirt"], "kv")
    assert found == running.Running("v1.4.0", "Deployment kubevirt/virt-operator label app.kubernetes.io/version",
                                    external=True)


def test_installed_csv():
    path = "/apis/operators.coreos.com/v1alpha1/namespaces/ns/subscriptions/p"
    sub, csv = running.installed_csv(Answers({path: {"status": {"installedCSV": "p.v1"}}}), "ns", "p")
    assert csv == "p.v1" and sub is not None
    assert running.installed_csv(Answers({}), "ns", "p") == (None, None)


def test_the_csv_a_subscription_stands_for_before_olm_records_it_as_installed():
    # OLM sets currentCSV when it resolves the CSV and installedCSV in a later update, after the CSV succeeded: a
    # reader between the two (the wait for the CSV's CRDs) must still find the CSV.
    assert running.current_csv({"status": {"currentCSV": "p.v2", "installedCSV": "p.v1"}}) == "p.v1"
    assert running.current_csv({"status": {"currentCSV": "p.v2"}}) == "p.v2"
    assert running.current_csv({"status": {}}) is None and running.current_csv(None) is None
