# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cluster is the source of truth for its nodes: the nodes inventory plugin and the site's plan read the Nodes
of a real API server, kept Ready by kwok (the ``cluster`` fixture: the example inventory's six machines)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
import yaml
from harness import children
from harness.control_plane import fake_node
from test_k8s_apply import server_writes
from test_render_playbook import COLLECTIONS, ROOT, run_playbook

EXAMPLE = ROOT / "examples" / "inventory" / "hosts.yml"


def plan(tmp_path: pathlib.Path, inventory: pathlib.Path, *extra: str, name: str = "plan") -> tuple[dict, str]:
    """The site's plan task alone (playbooks/tasks/plan_site.yml): its registered result, and the run's output."""
    out = tmp_path / f"{name}.json"
    playbook = tmp_path / f"{name}-playbook.yml"
    playbook.write_text(yaml.safe_dump([{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        {"ansible.builtin.import_tasks": str(ROOT / "playbooks" / "tasks" / "plan_site.yml")},
        {"ansible.builtin.copy": {"content": "{{ site_settings | to_json }}", "dest": str(out)}}]}]))
    done = run_playbook(playbook, "-i", str(inventory), "-e", "site_platform_version=1.34", *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text()), done.stdout + done.stderr   # warnings go to stderr from ansible-core 2.19


def objects(settings: dict) -> list:
    """What the plan writes to the cluster: the node prerequisites and the operands."""
    return settings["prereqs"]["objects"] + settings["render"]["operands"]


def inventory_with(tmp_path: pathlib.Path, name: str, edit) -> pathlib.Path:
    data = yaml.safe_load(EXAMPLE.read_text())
    edit(data["all"]["children"]["kubevirt_nodes"]["children"])
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    link_group_vars(path.parent)
    return path


def link_group_vars(directory: pathlib.Path) -> None:
    """The example inventory's group_vars beside a copy of its hosts file (Ansible reads them from there)."""
    target = directory / "group_vars"
    if not target.exists():
        target.symlink_to(EXAMPLE.parent / "group_vars")


def test_apply_mode_plans_from_the_live_nodes_and_names_every_difference(cluster, tmp_path):
    cluster.add_nodes([fake_node("extra-worker", labels={"node-role.kubernetes.io/worker": ""}, memory="512Gi")])
    try:
        differences_named(cluster, tmp_path)
    finally:
        cluster.kubectl_run("delete", "node", "extra-worker")


def differences_named(cluster, tmp_path):

    def disagree(groups):
        workers = groups["workload_nodes"]["hosts"]
        workers["worker3"]["node_memory"] = "512Gi"
        workers["worker2"] = {"node_labels": {"node-role.kubernetes.io/worker": "", "pool": "a"}}
        workers["extra-wroker"] = {}

    inventory = inventory_with(tmp_path, "hosts.yml", disagree)
    kubeconfig = ("-e", f"site_kubeconfig={cluster.kubeconfig}")
    mark = cluster.audit_offset()
    live, said = plan(tmp_path, inventory, *kubeconfig)
    assert server_writes(cluster, mark) == []
    warnings = live["warnings"]
    assert ("hostvars[worker3]: node_memory is '512Gi' in the inventory, '131811932Ki' on the Node (the cluster): "
            "planned with the Node's") in " ".join(warnings)
    # The other machines report their memory as real kubelets do (256Gi sold, 263856120Ki reported): the same
    # machines, no warning.
    assert not [w for w in warnings if w.startswith(("hostvars[worker1]", "hostvars[infra1]"))], warnings
    assert "hostvars[worker2]: node_labels is {'pool': 'a'} in the inventory, {'pool': None} on the Node" in warnings[0]
    assert "[WARNING]: hostvars[worker2]: node_labels is" in said   # shown to the user, not only registered
    assert any(w.startswith("hostvars: extra-wroker (did you mean extra-worker?) in kubevirt_nodes but no Node")
               for w in warnings)
    assert any(w.startswith("Nodes extra-worker in the cluster but not in kubevirt_nodes") for w in warnings)
    assert live["config"]["nodes_from"] == "the cluster" and live["requests"]["writes"] == 0
    planned = {node["name"]: node for node in live["nodes"]}
    # From the Nodes: kwok reports what fake_node registered, which kubectl reads back the same.
    reported = json.loads(cluster.kubectl_run("get", "nodes", "-o", "json").stdout)["items"]
    assert {n["metadata"]["name"]: n["status"]["capacity"]["memory"] for n in reported} == \
        {name: node["memory"] for name, node in planned.items()}
    assert {n["metadata"]["name"]: n["status"]["nodeInfo"]["architecture"] for n in reported} == \
        {name: node["architecture"] for name, node in planned.items()}
    # The inventory wins when asked, each difference still named.
    kept, _said = plan(tmp_path, inventory, *kubeconfig, "-e", "site_node_facts=inventory", name="kept")
    assert {node["name"]: node["memory"] for node in kept["nodes"]}["worker3"] == "512Gi"
    assert any("planned with the inventory's (site_node_facts: inventory)" in w for w in kept["warnings"])
    swap = {node["name"]: node["swap_mib"] for node in live["prereqs"]["swap"]["nodes"]}
    kept_swap = {node["name"]: node["swap_mib"] for node in kept["prereqs"]["swap"]["nodes"]}
    assert swap["worker3"] < kept_swap["worker3"] and swap["worker1"] == kept_swap["worker1"]


def test_inventory_slices_plan_the_same_cluster_objects_from_the_live_nodes(cluster, tmp_path):
    # AWX's job slicing gives each slice part of the hosts. From the inventory alone, a slice of one worker plans
    # its cluster objects for one worker; from the live Nodes every slice plans what the whole site plans.
    def slice_of(kept):
        def edit(groups):
            for group in groups.values():
                group["hosts"] = {name: v for name, v in group["hosts"].items() if name in kept}
        return edit

    first = inventory_with(tmp_path, "first.yml", slice_of({"infra1", "worker1"}))
    second = inventory_with(tmp_path, "second.yml", slice_of({"infra2", "infra3", "worker2", "worker3"}))
    kubeconfig = ("-e", f"site_kubeconfig={cluster.kubeconfig}")
    whole = objects(plan(tmp_path, EXAMPLE, *kubeconfig, name="whole")[0])
    assert objects(plan(tmp_path, first, *kubeconfig, name="first")[0]) == whole
    assert objects(plan(tmp_path, second, *kubeconfig, name="second")[0]) == whole
    # Without the cluster the first slice plans other objects: what the live Nodes fix.
    render = ("-e", "site_action=render")
    assert objects(plan(tmp_path, first, *render, name="first-render")[0]) != \
        objects(plan(tmp_path, EXAMPLE, *render, name="whole-render")[0])


def test_render_mode_plans_from_a_nodes_snapshot_what_apply_mode_plans(cluster, tmp_path):
    snapshot = tmp_path / "nodes.yaml"
    snapshot.write_text(cluster.kubectl_run("get", "nodes", "-o", "yaml").stdout)
    # The inventory's hosts without any node_* fact: the snapshot gives them.
    bare = inventory_with(tmp_path, "bare.yml", lambda groups: [group.pop("vars") for group in groups.values()])
    rendered, _said = plan(tmp_path, bare, "-e", "site_action=render", "-e", f"site_nodes_snapshot={snapshot}",
                           name="snapshot")
    applied, _said = plan(tmp_path, bare, "-e", f"site_kubeconfig={cluster.kubeconfig}", name="live")
    assert rendered["config"]["nodes_from"] == f"site_nodes_snapshot {snapshot}"
    assert objects(rendered) == objects(applied) and rendered["nodes"] == applied["nodes"]


def test_a_credential_that_may_not_list_nodes_is_named_before_anything_is_written(cluster, tmp_path):
    playbook = tmp_path / "plan.yml"
    playbook.write_text(yaml.safe_dump([{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        {"ansible.builtin.import_tasks": str(ROOT / "playbooks" / "tasks" / "plan_site.yml")}]}]))
    mark = cluster.audit_offset()
    done = run_playbook(playbook, "-i", str(EXAMPLE), "-e", "site_platform_version=1.34",
                        "-e", f"site_kubeconfig={cluster.kubeconfig}", "-e", "site_context=limited")
    assert done.returncode != 0
    assert "site_action: apply mode cannot read the cluster's Nodes" in done.stdout
    assert "user limited cannot list nodes at cluster scope" in done.stdout
    assert server_writes(cluster, mark, user="limited") == []


def inventory_file(tmp_path: pathlib.Path, **options) -> pathlib.Path:
    path = tmp_path / "cluster.nodes.yml"
    path.write_text(yaml.safe_dump({"plugin": "virtinfra.hyperconverged.nodes", **options}))
    return path


def awx_credential_env(cluster) -> dict[str, str]:
    """What an AWX Kubernetes credential injects (K8S_AUTH_HOST, K8S_AUTH_API_KEY, K8S_AUTH_VERIFY_SSL and
    K8S_AUTH_SSL_CA_CERT), with no kubeconfig anywhere."""
    return {"K8S_AUTH_HOST": cluster.server, "K8S_AUTH_API_KEY": cluster.admin_token, "K8S_AUTH_VERIFY_SSL": "True",
            "K8S_AUTH_SSL_CA_CERT": str(cluster.workdir / "certs" / "apiserver.crt"), "KUBECONFIG": "/nonexistent"}


def plain(value):
    """A value as ansible-inventory prints it without its trust marker (ansible-core 2.19 and later mark what an
    inventory plugin read from elsewhere as unsafe: never templated)."""
    if isinstance(value, dict):
        return plain(value["__ansible_unsafe"]) if set(value) == {"__ansible_unsafe"} else \
            {k: plain(v) for k, v in value.items()}
    return [plain(v) for v in value] if isinstance(value, list) else value


def test_the_inventory_plugin_lists_the_nodes_as_kubectl_reports_them(cluster, tmp_path):
    source = inventory_file(tmp_path, keyed_groups=[{"key": "node_architecture", "prefix": "arch"}],
                            compose={"ram": "node_memory"})
    env = {**awx_credential_env(cluster), "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}
    done = children.run([str(pathlib.Path(sys.executable).with_name("ansible-inventory")), "-i", str(source),
                         "--list", "--export"], env={**os.environ, **env}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = json.loads(done.stdout)
    reported = {n["metadata"]["name"]: n for n in
                json.loads(cluster.kubectl_run("get", "nodes", "-o", "json").stdout)["items"]}
    hostvars = plain(listed["_meta"]["hostvars"])
    assert set(hostvars) == set(reported)
    for name, node in reported.items():
        mine = hostvars[name]
        assert mine["node_labels"] == node["metadata"]["labels"]
        assert mine["node_memory"] == node["status"]["capacity"]["memory"] == mine["ram"]
        assert mine["node_allocatable"] == node["status"]["allocatable"]
        internal = [a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP"]
        assert mine["ansible_host"] == internal[0]
    assert sorted(listed["workload_nodes"]["hosts"]) == ["worker1", "worker2", "worker3"]
    assert sorted(listed["infra_nodes"]["hosts"]) == ["infra1", "infra2", "infra3"]
    assert sorted(listed["kubevirt_nodes"]["children"]) == ["infra_nodes", "workload_nodes"]
    assert set(listed["arch_amd64"]["hosts"]) == set(reported)


def test_the_guides_inventory_source_lists_the_nodes(cluster, tmp_path):
    from test_docs_examples import GUIDES, inventory_sources

    (example,) = inventory_sources(GUIDES / "guide_nodes.rst")
    source = tmp_path / "cluster.nodes.yml"
    source.write_text(example)
    env = {**awx_credential_env(cluster), "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}
    done = children.run([str(pathlib.Path(sys.executable).with_name("ansible-inventory")), "-i", str(source),
                         "--list"], env={**os.environ, **env}, timeout=120)
    assert done.returncode == 0 and "[WARNING]" not in done.stderr, done.stderr
    listed = json.loads(done.stdout)
    hostvars = plain(listed["_meta"]["hostvars"])
    assert hostvars["worker1"]["ansible_host"] == "192.0.2.21"   # no ExternalIP: the InternalIP
    assert sorted(listed["infra_nodes"]["hosts"]) == ["infra1", "infra2", "infra3"]
    assert "arch_amd64" in listed


def test_an_awx_inventory_source_runs_it_through_ansible_runner(cluster, tmp_path):
    # As AWX runs an inventory update: ansible-runner's ansible-inventory, the credential's K8S_AUTH_* injected.
    source = inventory_file(tmp_path, label_selector="node-role.kubernetes.io/worker")
    child = ("import json, sys\nfrom ansible_runner import interface\nargs = json.load(sys.stdin)\n"
             "out, err = interface.get_inventory('list', [args['source']], response_format='json', quiet=True,"
             " envvars=args['env'], export=True)\nprint(json.dumps({'out': out, 'err': err}))\n")
    env = {**awx_credential_env(cluster), "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}
    done = subprocess.run([sys.executable, "-c", child], input=json.dumps({"source": str(source), "env": env}),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    listed = answer["out"] if isinstance(answer["out"], dict) else json.loads(answer["out"])
    assert sorted(listed["_meta"]["hostvars"]) == ["worker1", "worker2", "worker3"], answer


def test_a_wrong_credential_fails_the_inventory_naming_the_file(cluster, tmp_path):
    source = inventory_file(tmp_path)
    token = "not-a-token-5c1f9e"
    env = {**awx_credential_env(cluster), "K8S_AUTH_API_KEY": token, "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}
    done = children.run([str(pathlib.Path(sys.executable).with_name("ansible-inventory")), "-i", str(source),
                         "--list"], env={**os.environ, **env}, timeout=120)
    assert f"{source}: cannot list the cluster's Nodes" in done.stdout + done.stderr
    assert "refused the credentials (HTTP 401 Unauthorized)" in done.stdout + done.stderr
    assert token not in done.stdout + done.stderr


def test_the_inventory_cache_answers_without_the_cluster_until_flushed(cluster, tmp_path):
    source = inventory_file(tmp_path, cache=True, cache_plugin="ansible.builtin.jsonfile",
                            cache_connection=str(tmp_path / "cache"), retries=0)
    inventory = str(pathlib.Path(sys.executable).with_name("ansible-inventory"))
    env = {**os.environ, **awx_credential_env(cluster), "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}
    first = children.run([inventory, "-i", str(source), "--list"], env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    # The same server with a token it refuses: only the cache can answer.
    refused = {**env, "K8S_AUTH_API_KEY": "not-a-token-7d2e0a"}
    cached = children.run([inventory, "-i", str(source), "--list"], env=refused, timeout=120)
    assert cached.returncode == 0 and "cannot list" not in cached.stderr, cached.stderr
    assert json.loads(cached.stdout)["_meta"] == json.loads(first.stdout)["_meta"]
    flushed = children.run([inventory, "-i", str(source), "--list", "--flush-cache"], env=refused, timeout=300)
    assert f"{source}: cannot list the cluster's Nodes" in flushed.stdout + flushed.stderr
    # Another server is another answer: never the first one's from the cache.
    elsewhere = children.run([inventory, "-i", str(source), "--list"],
                             env={**env, "K8S_AUTH_HOST": "https://127.0.0.1:9"}, timeout=120)
    assert f"{source}: cannot list the cluster's Nodes" in elsewhere.stdout + elsewhere.stderr


def test_with_the_cache_on_every_option_that_shapes_the_inventory_changes_the_next_result(cluster, tmp_path):
    cache = {"cache": True, "cache_plugin": "ansible.builtin.jsonfile", "cache_connection": str(tmp_path / "cache"),
             "retries": 0}
    inventory = str(pathlib.Path(sys.executable).with_name("ansible-inventory"))
    env = {**os.environ, **awx_credential_env(cluster), "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}
    refused = {**env, "K8S_AUTH_API_KEY": "not-a-token-41c9b3"}   # only the cache can answer with it

    def listed(environment, **options):
        done = children.run([inventory, "-i", str(inventory_file(tmp_path, **cache, **options)), "--list"],
                            env=environment, timeout=120)
        assert done.returncode == 0 and "cannot list" not in done.stderr, done.stderr
        return json.loads(done.stdout)

    first = listed(env)
    assert sorted(first["workload_nodes"]["hosts"]) == ["worker1", "worker2", "worker3"]
    assert "arch_amd64" not in first
    changed = listed(refused, workload_node_selector={"kubernetes.io/hostname": "worker2"},
                     infra_node_selector={"kubernetes.io/hostname": "infra1"}, address="Hostname",
                     keyed_groups=[{"key": "node_architecture", "prefix": "arch"}], compose={"ram": "node_memory"},
                     groups={"big": "node_memory.endswith('Ki')"})
    assert changed["workload_nodes"]["hosts"] == ["worker2"] and changed["infra_nodes"]["hosts"] == ["infra1"]
    assert sorted(changed["arch_amd64"]["hosts"]) == sorted(changed["_meta"]["hostvars"])
    hostvars = plain(changed["_meta"]["hostvars"])
    assert hostvars["worker1"]["ansible_host"] == "worker1"   # the Hostname address
    assert hostvars["worker1"]["ram"] == hostvars["worker1"]["node_memory"]
    # A selector is part of the question asked of the API: another selector is read again, never filtered from the
    # cache (with the refused token that read fails, naming the file).
    other = children.run([inventory, "-i", str(inventory_file(tmp_path, **cache, label_selector="pool=none")),
                          "--list"], env=refused, timeout=120)
    assert "cannot list the cluster's Nodes" in other.stdout + other.stderr
    assert listed(env, label_selector="node-role.kubernetes.io/worker")["_meta"]["hostvars"].keys() == {
        "worker1", "worker2", "worker3"}


@pytest.mark.parametrize("where", ["environment", "file"])
def test_a_mistyped_tls_setting_is_refused_naming_where_it_was_set_never_read_as_false(cluster, tmp_path, where):
    env = {**os.environ, **awx_credential_env(cluster), "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS)}
    if where == "environment":
        env["K8S_AUTH_VERIFY_SSL"] = "ture"
        source, named = inventory_file(tmp_path), "K8S_AUTH_VERIFY_SSL"
    else:
        source = inventory_file(tmp_path, validate_certs="ture")
        named = f"{source}: validate_certs"
    mark = cluster.audit_offset()
    done = children.run([str(pathlib.Path(sys.executable).with_name("ansible-inventory")), "-i", str(source),
                         "--list"], env=env, timeout=120)
    out = done.stdout + done.stderr
    assert f"{named}: argument 'validate_certs'" in out and "not a valid boolean" in out, out
    assert '"worker1"' not in done.stdout
    assert not [e for e in cluster.audit_events(mark, "admin") if (e.get("objectRef") or {}).get("resource") == "nodes"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a private mount namespace needs root and unshare")
def test_in_a_pod_the_inventory_lists_the_nodes_with_its_service_account(cluster, tmp_path):
    # An AWX container group's pod: no kubeconfig and no K8S_AUTH_* variable, the service account's token and CA
    # where a pod has them (a tmpfs over /run in a mount namespace of its own), the service's address in the
    # environment (as test_k8s_apply_connections.py gives them to k8s_apply).
    from test_k8s_apply_connections import clean_environment

    cluster.kubectl_run("create", "serviceaccount", "inventory-job", "-n", "default")
    cluster.kubectl_run("create", "clusterrole", "inventory-job", "--verb=get,list", "--resource=nodes")
    cluster.kubectl_run("create", "clusterrolebinding", "inventory-job", "--clusterrole=inventory-job",
                        "--serviceaccount=default:inventory-job")
    try:
        account = tmp_path / "account"
        account.mkdir()
        (account / "token").write_text(cluster.kubectl_run("create", "token", "inventory-job", "-n", "default")
                                       .stdout.strip())
        shutil.copy(cluster.workdir / "certs" / "apiserver.crt", account / "ca.crt")
        (account / "namespace").write_text("default")
        env = clean_environment(tmp_path, KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(cluster.port))
        source = inventory_file(tmp_path)
        script = ("set -e; mount -t tmpfs tmpfs /run; mkdir -p /run/secrets/kubernetes.io/serviceaccount; "
                  f"cp {account}/* /run/secrets/kubernetes.io/serviceaccount/; exec \"$@\"")
        reported = json.loads(cluster.kubectl_run("get", "nodes", "-o", "json").stdout)["items"]
        mark = cluster.audit_offset()
        done = children.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                             str(pathlib.Path(sys.executable).with_name("ansible-inventory")), "-i", str(source),
                             "--list"], env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        listed = json.loads(done.stdout)
        assert set(listed["_meta"]["hostvars"]) == {n["metadata"]["name"] for n in reported}
        users = {(e.get("user") or {}).get("username") for e in cluster.audit_events(mark)
                 if (e.get("objectRef") or {}).get("resource") == "nodes" and e.get("verb") == "list"}
        assert users == {"system:serviceaccount:default:inventory-job"}
    finally:
        cluster.kubectl_run("delete", "clusterrolebinding", "inventory-job")
        cluster.kubectl_run("delete", "clusterrole", "inventory-job")
        cluster.kubectl_run("delete", "serviceaccount", "inventory-job", "-n", "default")
    assert not os.path.exists("/run/secrets/kubernetes.io")   # nothing of it outside the namespace
