# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Connections as kubectl makes them, side by side with the harness's kubectl on the same API server: a proxy from
the environment (a real CONNECT proxy that tunnels or refuses), the pod's service account where there is no
kubeconfig (a private mount namespace holds the account's files, as a pod's would), and the kubeconfig user's
impersonation fields (the audit log says as whom the server decided)."""

from __future__ import annotations

import base64
import http.server
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import threading
import typing as t

import pytest
from harness import children
from socks5 import Socks5
from test_render_playbook import COLLECTIONS
from tunnels import relay

PLAY = """\
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Apply through whatever connection the environment gives
      virtinfra.hyperconverged.k8s_apply:
        objects:
          - {apiVersion: v1, kind: ConfigMap, metadata: {name: %(name)s, namespace: default}, data: {via: %(name)s}}
        retries: %(retries)d
"""


class Tunnels(http.server.BaseHTTPRequestHandler):
    """A CONNECT proxy: every tunnel goes to the test API server, whatever host it names (the name need not resolve
    here, as behind a real proxy), or is refused with 403 when ``refuse`` is set. Records what each CONNECT asked
    for and its Proxy-Authorization."""

    upstream_port: t.ClassVar[int] = 0
    refuse: t.ClassVar[bool] = False
    asked: t.ClassVar[list[tuple[str, str | None]]] = []

    def do_CONNECT(self) -> None:
        type(self).asked.append((self.path, self.headers.get("Proxy-Authorization")))
        if type(self).refuse:
            self.send_response(403, "Forbidden")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        upstream = socket.create_connection(("127.0.0.1", type(self).upstream_port))
        self.send_response(200, "Connection established")
        self.end_headers()
        relay(self.connection, upstream, 10)

    def log_message(self, *args: t.Any) -> None:
        pass


@pytest.fixture
def proxy(control_plane):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tunnels)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Tunnels.upstream_port, Tunnels.refuse, Tunnels.asked = control_plane.port, False, []
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def clean_environment(tmp_path: pathlib.Path, **extra: str) -> dict[str, str]:
    """This process's environment without any connection setting, HOME in the test's directory (no ~/.kube)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("K8S_AUTH_") and k.upper() not in ("KUBECONFIG", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY")}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), ANSIBLE_COLLECTIONS_PATH=str(COLLECTIONS), ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_INVENTORY_UNPARSED_WARNING="False", **extra)
    return env


def playbook(tmp_path: pathlib.Path, name: str, retries: int = 5) -> list[str]:
    path = tmp_path / f"{name}.yml"
    path.write_text(PLAY % {"name": name, "retries": retries})
    return [str(pathlib.Path(sys.executable).with_name("ansible-playbook")), "-i", "localhost,", "-v",
            "-e", f"ansible_python_interpreter={sys.executable}", str(path)]


def named_kubeconfig(control_plane, tmp_path: pathlib.Path) -> pathlib.Path:
    """The harness's kubeconfig with the server named as a pod names it (a name the certificate carries and this
    machine does not resolve): only a proxy reaches it."""
    config = json.loads(control_plane.kubeconfig.read_text())
    config["clusters"][0]["cluster"]["server"] = f"https://kubernetes.default.svc:{control_plane.port}"
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(config))
    path.chmod(0o600)
    return path


def test_a_proxy_from_the_environment_is_used_as_kubectl_uses_it(tmp_path, control_plane, proxy):
    kubeconfig = named_kubeconfig(control_plane, tmp_path)
    env = clean_environment(tmp_path, KUBECONFIG=str(kubeconfig),
                            HTTPS_PROXY=f"http://ops:pr0xy-pass@127.0.0.1:{proxy}")
    kubectl = subprocess.run([str(control_plane.kubectl), f"--cache-dir={tmp_path / 'kube-cache'}", "get", "--raw",
                              "/version"], env=env, capture_output=True, text=True, check=False)
    assert kubectl.returncode == 0, kubectl.stderr
    theirs = list(Tunnels.asked)
    ours = children.run(playbook(tmp_path, "via-env-proxy"), env=env, timeout=300)
    assert ours.returncode == 0, ours.stdout + ours.stderr
    target = f"kubernetes.default.svc:{control_plane.port}"
    credentials = "Basic " + base64.b64encode(b"ops:pr0xy-pass").decode()
    assert theirs and set(theirs) == {(target, credentials)}                     # kubectl's tunnels
    assert set(Tunnels.asked[len(theirs):]) == {(target, credentials)}          # ours: the same
    assert f'"proxy": "http://127.0.0.1:{proxy}"' in ours.stdout and '"proxy_source": "HTTPS_PROXY"' in ours.stdout
    assert "pr0xy-pass" not in ours.stdout + ours.stderr
    live = control_plane.kubectl_run("get", "configmap", "via-env-proxy", "-n", "default", "-o", "json").stdout
    assert json.loads(live)["data"] == {"via": "via-env-proxy"}

    # NO_PROXY names the server: neither goes through the proxy (and, the name not resolving here, neither arrives).
    env["NO_PROXY"] = ".svc"
    before = len(Tunnels.asked)
    kubectl = subprocess.run([str(control_plane.kubectl), f"--cache-dir={tmp_path / 'kube-cache'}",
                              "--request-timeout=10s", "get", "--raw", "/version"],
                             env=env, capture_output=True, text=True, check=False)
    ours = children.run(playbook(tmp_path, "no-proxy", retries=0), env=env, timeout=300)
    assert kubectl.returncode != 0 and ours.returncode != 0
    assert len(Tunnels.asked) == before
    assert "HTTPS_PROXY bypassed by NO_PROXY" in ours.stdout


@pytest.mark.parametrize("scheme", ["socks5", "socks5h"])
def test_a_socks5_proxy_resolves_the_servers_name_for_us_as_it_does_for_kubectl(tmp_path, control_plane, scheme):
    # Only the proxy knows kubernetes.default.svc (as a bastion's SOCKS proxy knows the cluster's names); a client
    # that resolved the name itself would fail here, and the proxy records how each CONNECT named its target.
    socks = Socks5({"kubernetes.default.svc": ("127.0.0.1", control_plane.port)}, credentials=("ops", "s0cks-pass"))
    try:
        env = clean_environment(tmp_path, KUBECONFIG=str(named_kubeconfig(control_plane, tmp_path)),
                                HTTPS_PROXY=f"{scheme}://ops:s0cks-pass@127.0.0.1:{socks.port}")
        kubectl = subprocess.run([str(control_plane.kubectl), f"--cache-dir={tmp_path / 'kube-cache'}", "get",
                                  "--raw", "/version"], env=env, capture_output=True, text=True, check=False)
        assert kubectl.returncode == 0, kubectl.stderr
        theirs = list(socks.asked)
        ours = children.run(playbook(tmp_path, f"via-{scheme}", retries=0), env=env, timeout=300)
        assert ours.returncode == 0, ours.stdout + ours.stderr
        target = ("name", f"kubernetes.default.svc:{control_plane.port}")
        assert theirs and set(theirs) == {target}
        assert socks.asked[len(theirs):] and set(socks.asked[len(theirs):]) == {target}
        assert "s0cks-pass" not in ours.stdout + ours.stderr
    finally:
        socks.close()
    live = control_plane.kubectl_run("get", "configmap", f"via-{scheme}", "-n", "default", "-o", "json").stdout
    assert json.loads(live)["data"] == {"via": f"via-{scheme}"}


def test_a_proxy_that_refuses_the_tunnel_is_named_and_asked_once(tmp_path, control_plane, proxy):
    Tunnels.refuse = True
    env = clean_environment(tmp_path, KUBECONFIG=str(named_kubeconfig(control_plane, tmp_path)),
                            HTTPS_PROXY=f"127.0.0.1:{proxy}")
    kubectl = subprocess.run([str(control_plane.kubectl), f"--cache-dir={tmp_path / 'kube-cache'}", "get", "--raw",
                              "/version"], env=env, capture_output=True, text=True, check=False)
    assert kubectl.returncode != 0 and "Forbidden" in kubectl.stderr, kubectl.stderr
    before = len(Tunnels.asked)
    ours = children.run(playbook(tmp_path, "refused"), env=env, timeout=300)
    assert ours.returncode != 0
    refusal = (f"the proxy http://127.0.0.1:{proxy} refused the tunnel to https://kubernetes.default.svc:"
               f"{control_plane.port}: 403 Forbidden")
    assert refusal in ours.stdout, ours.stdout
    assert "from HTTPS_PROXY" in ours.stdout
    assert len(Tunnels.asked) - before == 1   # not retried


@pytest.fixture
def service_account_token(control_plane) -> t.Iterator[str]:
    control_plane.kubectl_run("create", "serviceaccount", "in-cluster-job", "-n", "default")
    control_plane.kubectl_run("create", "clusterrolebinding", "in-cluster-job", "--clusterrole=cluster-admin",
                              "--serviceaccount=default:in-cluster-job")
    yield control_plane.kubectl_run("create", "token", "in-cluster-job", "-n", "default").stdout.strip()
    control_plane.kubectl_run("delete", "clusterrolebinding", "in-cluster-job")
    control_plane.kubectl_run("delete", "serviceaccount", "in-cluster-job", "-n", "default")


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a private mount namespace needs root and unshare")
def test_in_a_pod_without_a_kubeconfig_the_service_account_connects_as_kubectl_connects(
        tmp_path, control_plane, service_account_token):
    # As a pod is given them: the token, the CA and the namespace in the account's directory, the service's address
    # in the environment. A tmpfs over /run in a mount namespace of its own holds them; it ends with the command.
    account = tmp_path / "account"
    account.mkdir()
    (account / "token").write_text(service_account_token)
    shutil.copy(control_plane.workdir / "certs" / "apiserver.crt", account / "ca.crt")
    (account / "namespace").write_text("default")
    env = clean_environment(tmp_path, KUBERNETES_SERVICE_HOST="127.0.0.1",
                            KUBERNETES_SERVICE_PORT=str(control_plane.port))
    kubectl = f"{control_plane.kubectl} --cache-dir={tmp_path / 'kube-cache'} auth whoami -o jsonpath='{{.status.userInfo.username}}'"
    script = ("set -e; mount -t tmpfs tmpfs /run; mkdir -p /run/secrets/kubernetes.io/serviceaccount; "
              f"cp {account}/* /run/secrets/kubernetes.io/serviceaccount/; "
              f"echo kubectl-user=$({kubectl}); exec \"$@\"")
    mark = control_plane.audit_offset()
    run = children.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                        *playbook(tmp_path, "in-cluster")], env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "kubectl-user=system:serviceaccount:default:in-cluster-job" in run.stdout
    assert '"source": "in-cluster service account (/var/run/secrets/kubernetes.io/serviceaccount' in run.stdout
    users = {(e.get("user") or {}).get("username") for e in control_plane.audit_events(mark)
             if (e.get("objectRef") or {}).get("name") == "in-cluster"}
    assert users == {"system:serviceaccount:default:in-cluster-job"}
    assert not os.path.exists("/run/secrets/kubernetes.io")   # nothing of it outside the namespace


def test_the_kubeconfig_users_impersonation_is_sent_as_kubectl_sends_it(tmp_path, control_plane):
    config = json.loads(control_plane.kubeconfig.read_text())
    config["users"][0]["user"].update({"as": "limited", "as-groups": ["system:authenticated", "ops-team"]})
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps(config))
    kubeconfig.chmod(0o600)
    env = clean_environment(tmp_path, KUBECONFIG=str(kubeconfig))
    mark = control_plane.audit_offset()
    kubectl = subprocess.run([str(control_plane.kubectl), f"--cache-dir={tmp_path / 'kube-cache'}", "get",
                              "configmaps", "-n", "default"], env=env, capture_output=True, text=True, check=False)
    ours = children.run(playbook(tmp_path, "impersonated"), env=env, timeout=300)
    # The limited user may not list or create ConfigMaps: both were refused as that user, with those groups.
    assert kubectl.returncode != 0 and ours.returncode != 0
    assert "user limited cannot" in ours.stdout, ours.stdout
    seen = {(e["userAgent"].split("/")[0], (e.get("impersonatedUser") or {}).get("username"),
             tuple((e.get("impersonatedUser") or {}).get("groups") or ())) for e in control_plane.audit_events(mark)}
    groups = ("system:authenticated", "ops-team")
    assert ("kubectl", "limited", groups) in seen and ("virtinfra.hyperconverged", "limited", groups) in seen
