# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Apply mode computes with the release the cluster runs, read before any write on a real API server.

No HCO runs here: the test writes the ``status.versions`` entry HCO writes once it has reconciled at its version
(controllers/hyperconverged, ``completeReconciliation``), as HCO 1.18.1 would."""

from __future__ import annotations

import json

from test_k8s_apply import server_writes
from test_nodes_from_the_cluster import EXAMPLE, plan
from test_render_playbook import ROOT, run_playbook

# v1: the shared CRD stores v1 and has no conversion webhook here, so a v1beta1 object would be stored unconverted.
HC = {"apiVersion": "hco.kubevirt.io/v1", "kind": "HyperConverged",
      "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"}, "spec": {}}


def test_the_cluster_chooses_the_profile_and_a_disagreeing_setting_is_refused_before_any_write(cluster, tmp_path):
    manifest = tmp_path / "hc.json"
    manifest.write_text(json.dumps(HC))
    created = cluster.kubectl_run("create", "namespace", "kubevirt-hyperconverged", check=False).returncode == 0
    cluster.kubectl_run("create", "-f", str(manifest))
    try:
        cluster.kubectl_run("patch", "hyperconverged", "kubevirt-hyperconverged", "-n", "kubevirt-hyperconverged",
                            "--subresource=status", "--type=merge",
                            "-p", json.dumps({"status": {"versions": [{"name": "operator", "version": "1.18.1"}]}}))
        kubeconfig = ("-e", f"site_kubeconfig={cluster.kubeconfig}")
        mark = cluster.audit_offset()
        # The example inventory sets site_release: blank, it is left to its default.
        settings, said = plan(tmp_path, EXAMPLE, *kubeconfig, "-e", "site_release=")
        assert settings["config"]["release"] == "1.18"
        assert settings["config"]["release_source"] == (
            "the cluster (HCO 1.18.1 (HyperConverged kubevirt-hyperconverged/kubevirt-hyperconverged "
            "status.versions))")
        assert "site_release's default 1.20 is not used" in said
        refused = run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(EXAMPLE), *kubeconfig,
                               "-e", "site_release=1.20", "-e", "site_platform_version=1.34")
        assert refused.returncode != 0
        assert "site_release: 1.20 is not what the cluster runs (HCO 1.18.1 " in refused.stdout
        assert "set site_release to '1.18'" in refused.stdout
        assert server_writes(cluster, mark) == []
    finally:
        cluster.kubectl_run("delete", "hyperconverged", "kubevirt-hyperconverged", "-n", "kubevirt-hyperconverged",
                            "--wait=true", check=False)
        if created:
            cluster.kubectl_run("delete", "namespace", "kubevirt-hyperconverged", "--wait=true", check=False)
