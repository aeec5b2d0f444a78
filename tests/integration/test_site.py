# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site playbook's cluster side against the real API server (hosts limited out: they are covered by molecule); the
tests that start from an empty cluster run with the real controllers and kwok's nodes (``empty_cluster``), so that
what a removal deletes is deleted as a cluster deletes it: a Namespace with what is in it, owned objects by the
garbage collector."""

from __future__ import annotations

import json
import re
import sys

from test_hyperconverged_role import recap_changed
from test_k8s_apply import server_writes
from test_render_playbook import ROOT, run_playbook


def site(control_plane, *extra):
    return run_playbook(ROOT / "playbooks" / "site.yml", "-i", str(ROOT / "examples" / "inventory" / "hosts.yml"),
                        "-i", "localhost,", "--limit", "localhost", "-e", f"ansible_python_interpreter={sys.executable}",
                        "-e", f"site_kubeconfig={control_plane.kubeconfig}", "-e", "site_platform_version=1.34", *extra)


def summary(stdout: str) -> str:
    match = re.search(r'"apply mode \([a-z]+\): (\d+ prerequisite and \d+ KubeVirt object\(s\)) (would change|changed)'
                      r' - a credential is set: site_kubeconfig"', stdout)
    assert match, stdout
    return match.group(1)


def test_check_predicts_the_run_and_the_rerun_changes_nothing(control_plane):
    mark = control_plane.audit_offset()
    check = site(control_plane, "--check", "--diff")
    assert check.returncode == 0, check.stdout + check.stderr
    assert server_writes(control_plane, mark) == []
    assert "KubeVirt object(s) would change" in check.stdout
    assert "node prerequisites: would write " in check.stdout
    # The namespaces the prerequisites create are known to the KubeVirt stage: no warning that they are missing.
    assert "does not exist; a real run fails" not in check.stdout
    real = site(control_plane, "--diff")
    assert real.returncode == 0, real.stdout + real.stderr
    assert summary(real.stdout) == summary(check.stdout)
    assert "node prerequisites: wrote " in real.stdout and "KubeVirt: wrote " in real.stdout
    assert "0 prerequisite and 0" not in summary(real.stdout)
    mark = control_plane.audit_offset()
    again = site(control_plane)
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert summary(again.stdout) == "0 prerequisite and 0 KubeVirt object(s)"
    assert server_writes(control_plane, mark) == []
    # The site's summary speaks for every stage: the roles run at their converge entry points, without their own
    # summary and result facts, and the site's summary still names the mode and the operands the run wrote.
    for left_out in ("hyperconverged : Summary", "hyperconverged : Record the result", "prerequisites : Record the result",
                     "prerequisites : Read the live"):
        assert f"TASK [virtinfra.hyperconverged.{left_out}" not in again.stdout
    assert "apply mode (standalone): 0 prerequisite and 0 KubeVirt object(s)" in again.stdout
    assert re.search(r"operands: .*KubeVirt kubevirt-kubevirt-hyperconverged in kubevirt-hyperconverged", again.stdout)
    # The summary counts every request the run made, as the server saw them: the plan's read of the Nodes and of the
    # release the cluster runs (HyperConverged, HCO's Deployments, KubeVirt: three lists the one read makes again) and
    # of what HCO's alerts read (the KubeDescheduler, the wasp-agent DaemonSets), then one read of the cluster serves
    # every stage and no kind is listed again by a pruner: requests <= kinds + 17
    # (the version; discovery, 2 per call;
    # the two apply sets' parents; three kinds listed a second time with another selector: Deployments for HCO,
    # and the live NNCPs and SR-IOV policies, read whole for their state and again as the apply set's members).
    counted = re.search(r"API requests: (\d+) \((\d+) writes\) in (\d+) cluster call", again.stdout)
    assert counted, again.stdout
    events = control_plane.audit_events(mark, "admin")
    assert (int(counted.group(1)), int(counted.group(2))) == (len(events), 0)
    kinds = {(e["objectRef"].get("apiGroup", ""), e["objectRef"]["resource"]) for e in events if e["verb"] == "list"}
    assert int(counted.group(3)) == 4 and len(events) <= len(kinds) + 17, [e["requestURI"] for e in events]
    # The hyperconverged role took the plan's expansion and render (hyperconverged_plan): computed by the role
    # itself from its own inputs instead, they are the same objects - nothing to change.

    def rendering(stdout: str) -> str:   # what the role's own render task printed
        return stdout.split("Validate and render the HyperConverged", 1)[1].split("TASK [", 1)[0]

    assert "Validate and render the HyperConverged" not in again.stdout
    mark = control_plane.audit_offset()
    own = site(control_plane, "-e", json.dumps({"hyperconverged_plan": None}))
    assert own.returncode == 0 and recap_changed(own.stdout) == 0, own.stdout
    assert "ok: [localhost]" in rendering(own.stdout) and server_writes(control_plane, mark) == []


def test_a_persons_object_stops_the_site_naming_site_adopt_and_a_survey_answer_takes_it_over(empty_cluster):
    # The example inventory's hostpath StorageClass, made by a person before the site ever ran.
    plane = empty_cluster
    plane.kubectl_run("create", "-f", "-", input='{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", '
                      '"metadata": {"name": "hostpath-csi"}, "provisioner": "kubevirt.io.hostpath-provisioner", '
                      '"reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer", '
                      '"parameters": {"storagePool": "local"}}')
    mark = plane.audit_offset()
    refused = site(plane)
    assert refused.returncode != 0
    assert "StorageClass hostpath-csi: already exists and is not a member" in refused.stdout, refused.stdout
    assert "site_adopt: true" in refused.stdout
    assert server_writes(plane, mark) == []

    # AWX passes survey answers as strings.
    adopted = site(plane, "-e", '{"site_adopt": "true"}')
    assert adopted.returncode == 0, adopted.stdout + adopted.stderr
    labels = plane.kubectl_run("get", "storageclass", "hostpath-csi", "-o", "jsonpath={.metadata.labels}").stdout
    assert "applyset.kubernetes.io/part-of" in labels


def test_removing_infra_placement_converges_and_leaves_none_behind(empty_cluster):
    # The example inventory places infrastructure components on node-role.kubernetes.io/infra nodes.
    plane = empty_cluster
    placed = site(plane, "-e", '{"site_adopt": true}')
    assert placed.returncode == 0, placed.stdout + placed.stderr
    cdi = json.loads(plane.kubectl_run("get", "cdi", "-o", "json").stdout)["items"][0]
    assert cdi["spec"]["infra"]["nodeSelector"] == {"node-role.kubernetes.io/infra": ""}

    # Emptied in the inventory: HCO's operands then carry an empty placement (infra: {}), which server-side apply
    # alone turns into null and the API server refuses.
    removed = site(plane, "-e", '{"site_infra_node_selector": {}}')
    assert removed.returncode == 0, removed.stdout + removed.stderr
    for kind in ("cdi", "kubevirt", "networkaddonsconfig"):
        for operand in json.loads(plane.kubectl_run("get", kind, "-A", "-o", "json").stdout)["items"]:
            assert "node-role.kubernetes.io/infra" not in json.dumps(operand["spec"]), (kind, operand["spec"])
    cdi = json.loads(plane.kubectl_run("get", "cdi", "-o", "json").stdout)["items"][0]
    assert cdi["spec"]["infra"] == {}

    mark = plane.audit_offset()
    again = site(plane, "-e", '{"site_infra_node_selector": {}}')
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert server_writes(plane, mark) == []


def test_every_workload_the_site_writes_rolls_out_and_one_that_could_not_is_left_out_and_named(empty_cluster):
    # The API server runs its default admission plugins, ServiceAccount admission among them: a Pod whose
    # ServiceAccount does not exist is refused, so a Deployment written without one never rolls out. The real
    # controllers and kwok's nodes run the Pods.
    plane = empty_cluster
    mark = plane.audit_offset()
    done = site(plane, "-e", '{"site_adopt": true}')
    assert done.returncode == 0, done.stdout + done.stderr
    workloads = {(e["objectRef"]["resource"], e["objectRef"]["namespace"], e["objectRef"]["name"])
                 for e in server_writes(plane, mark)
                 if e["objectRef"].get("resource") in ("deployments", "daemonsets") and e["verb"] != "delete"}
    for resource, namespace, name in sorted(workloads):
        rolled = plane.kubectl_run("rollout", "status", f"{resource}/{name}", "-n", namespace, "--timeout=180s",
                                   check=False)
        assert rolled.returncode == 0, (resource, name, rolled.stdout + rolled.stderr)
    # HCO deploys the network-resources-injector with a ServiceAccount, RBAC, a Service and a serving certificate:
    # standalone mode does not write it, and says so.
    assert ("deployments", "kubevirt-hyperconverged", "virt-network-resources-injector") not in workloads
    assert "Deployment virt-network-resources-injector is not written" in done.stdout + done.stderr
    assert plane.kubectl_run("get", "deployment", "virt-network-resources-injector", "-n", "kubevirt-hyperconverged",
                             check=False).returncode != 0


def test_drift_is_named_by_object_and_field_and_site_drift_chooses_report_or_revert(empty_cluster):
    plane = empty_cluster
    keep = ("-e", '{"site_infra_node_selector": {}, "site_adopt": true}')
    assert site(plane, *keep).returncode == 0
    kubevirt = json.loads(plane.kubectl_run("get", "kubevirt", "-A", "-o", "json").stdout)["items"][0]
    where = ["-n", kubevirt["metadata"]["namespace"], kubevirt["metadata"]["name"]]
    plane.kubectl_run("patch", "kubevirt", *where, "--type", "merge", "-p",
                      '{"spec": {"configuration": {"developerConfiguration": {"memoryOvercommit": 120}}}}')
    field = "spec.configuration.developerConfiguration.memoryOvercommit"
    label = f"KubeVirt {kubevirt['metadata']['namespace']}/{kubevirt['metadata']['name']}: {field}"

    reported = site(plane, *keep, "-e", "site_drift=report")
    assert reported.returncode == 0, reported.stdout
    assert f"left as they are (site_drift: report): {label} (set by kubectl-patch)" in reported.stdout
    live = plane.kubectl_run("get", "kubevirt", *where, "-o", "jsonpath={.spec.configuration.developerConfiguration"
                             ".memoryOvercommit}").stdout
    assert live == "120"

    reverted = site(plane, *keep)
    assert reverted.returncode == 0, reverted.stdout
    assert f"put back: {label} (set by kubectl-patch)" in reverted.stdout
    live = plane.kubectl_run("get", "kubevirt", *where, "-o", "jsonpath={.spec.configuration.developerConfiguration"
                             ".memoryOvercommit}").stdout
    assert live == "150"

    refused = site(plane, *keep, "-e", "site_drift=ignore")
    assert refused.returncode != 0 and "site_drift: must be one of 'revert', 'report', got 'ignore'" in refused.stdout


def test_removal_refuses_while_vms_exist_then_removes_only_what_the_site_made_and_converges(empty_cluster):
    plane = empty_cluster
    keep = ("-e", '{"site_infra_node_selector": {}, "site_adopt": true}')
    assert site(plane, *keep).returncode == 0
    plane.kubectl_run("create", "-f", "-", input=json.dumps({
        "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "db1", "namespace": "vms"},
        "spec": {"runStrategy": "Halted", "template": {"spec": {"domain": {"devices": {}}}}}}))
    plane.kubectl_run("create", "configmap", "mine", "-n", "vms")   # a person's object in the site's namespace
    absent = ("-e", '{"site_infra_node_selector": {}, "site_state": "absent"}')

    mark = plane.audit_offset()
    refused = site(plane, *absent)
    assert refused.returncode != 0
    assert "nothing was removed: 1 VirtualMachine(s) exist (vms/db1)" in refused.stdout, refused.stdout
    assert "KubeVirt: not started, nothing written" in refused.stdout
    assert "node prerequisites: not started, nothing written" in refused.stdout
    assert "the run stopped at KubeVirt: " in refused.stdout
    assert server_writes(plane, mark) == []

    # Allowed on purpose: the VirtualMachine itself is not the site's and stays.
    removed = site(plane, "-e", '{"site_infra_node_selector": {}, "site_state": "absent", '
                                '"site_remove_despite_vms": "true"}')
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert re.search(r"removal \(standalone\): [1-9]\d* KubeVirt and [1-9]\d* prerequisite object\(s\) deleted",
                     removed.stdout), removed.stdout
    for kind in ("kubevirt", "cdi", "networkaddonsconfig", "hostpathprovisioner", "sriovnetworknodepolicy"):
        assert json.loads(plane.kubectl_run("get", kind, "-A", "-o", "json").stdout)["items"] == [], kind
    # Kept: the Namespaces and what is in them (the namespace controller runs here: a deleted Namespace would take
    # them), and the VM bridge's policy (nmstate would not undo it).
    assert plane.kubectl_run("get", "configmap", "mine", "-n", "vms", check=False).returncode == 0
    assert plane.kubectl_run("get", "virtualmachine", "db1", "-n", "vms", check=False).returncode == 0
    assert plane.kubectl_run("get", "nodenetworkconfigurationpolicy", "br1-policy", check=False).returncode == 0
    assert "the VM bridge br1" in removed.stdout

    plane.kubectl_run("delete", "virtualmachine", "db1", "-n", "vms")
    mark = plane.audit_offset()
    again = site(plane, *absent)
    assert again.returncode == 0 and recap_changed(again.stdout) == 0, again.stdout
    assert "removal (standalone): 0 KubeVirt and 0 prerequisite object(s) deleted" in again.stdout
    assert server_writes(plane, mark) == []
