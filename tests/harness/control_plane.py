# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A real etcd + kube-apiserver on 127.0.0.1 for tests and benchmarks; with ``controllers``, also the real
kube-controller-manager and kube-scheduler and kwok's simulated nodes, so that Deployments roll out, DaemonSets
schedule, and garbage collection and namespace deletion happen as on a cluster.

Token authentication (an admin token in system:masters and a limited token with no rights of its own), RBAC
authorization, an audit log of every request (used to count requests at the server), and the CRDs from
``../shared/crds`` installed and Established. Binaries come from ``build-control-plane`` (Go modules, cached).

Hygiene: each server is recorded in ``state.json`` as soon as it is spawned (so a failed start-up is still
stopped), dies with the process that started it unless ``detached`` (``PR_SET_PDEATHSIG``), and is signalled only
while ``/proc/PID`` is still that binary running on this work directory, never a recycled PID.

    python tests/harness/control_plane.py start DIR   # prints the kubeconfig path
    python tests/harness/control_plane.py stop DIR
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import typing as t
import urllib.request

try:
    from harness.children import die_with_parent
except ImportError:   # run as a script (molecule/site's prepare and cleanup): its own directory is on sys.path
    from children import die_with_parent  # type: ignore[no-redef,import-not-found]

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
"""


def shared_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("VIRTINFRA_SHARED_DIR", ROOT.parent / "shared"))


def cache_dir() -> pathlib.Path:
    """The per-machine cache build-control-plane uses (same variables, same default)."""
    for name in ("VIRTINFRA_HARNESS_CACHE", "VIRTINFRA_CACHE"):
        if os.environ.get(name):
            return pathlib.Path(os.environ[name])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "virtinfra-hyperconverged"


def build() -> pathlib.Path:
    """Build (or find in the cache) kube-apiserver, kubectl and etcd; returns their directory."""
    out = subprocess.run([str(HERE / "build-control-plane")], check=True, stdout=subprocess.PIPE, text=True)
    return pathlib.Path(out.stdout.strip().splitlines()[-1])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclasses.dataclass
class ControlPlane:
    workdir: pathlib.Path
    bindir: pathlib.Path
    port: int = 0
    admin_token: str = ""
    limited_token: str = ""
    etcd_pid: int = 0
    apiserver_pid: int = 0
    etcd_port: int = 0
    # True when the servers must outlive the process that starts them (the molecule site scenario's CLI start).
    detached: bool = False
    # API Priority and Fairness: off (it is not what most tests are about), on for the tests of 429 answers.
    priority_and_fairness: bool = False
    # kube-controller-manager, kube-scheduler and kwok (off: a bare API server, where nothing acts on what is written).
    controllers: bool = False
    # MutatingAdmissionPolicy served (beta in 1.34, off by default): a test's stand-in for an operator's mutating
    # webhook, which cannot run here.
    admission_policies: bool = False
    controller_manager_pid: int = 0
    scheduler_pid: int = 0
    kwok_pid: int = 0

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def kubeconfig(self) -> pathlib.Path:
        return self.workdir / "kubeconfig"

    @property
    def audit_log(self) -> pathlib.Path:
        return self.workdir / "audit.log"

    @property
    def kubectl(self) -> pathlib.Path:
        return self.bindir / "kubectl"

    # -------------------------------------------------------------- lifecycle
    def start(self) -> ControlPlane:
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "certs").mkdir(exist_ok=True)
        self.port = self.port or _free_port()
        self.etcd_port = self.etcd_port or _free_port()
        self.admin_token = self.admin_token or secrets.token_hex(16)
        self.limited_token = self.limited_token or secrets.token_hex(16)
        tokens = self.workdir / "tokens.csv"
        # The controllers act under names of their own (the audit log tells their writes from a test's), with the
        # rights of system:masters as on a cluster's control plane.
        components = "".join(f'{self.admin_token}-{name},{name},{name}-uid,"system:masters"\n' for name in COMPONENTS)
        tokens.write_text(f'{self.admin_token},admin,admin-uid,"system:masters"\n'
                          f'{self.limited_token},limited,limited-uid,""\n{components}', encoding="utf-8")
        tokens.chmod(0o600)
        if not (self.workdir / "sa.key").exists():
            subprocess.run(["openssl", "genrsa", "-out", str(self.workdir / "sa.key"), "2048"], check=True,
                           stderr=subprocess.DEVNULL)
            subprocess.run(["openssl", "rsa", "-in", str(self.workdir / "sa.key"), "-pubout", "-out",
                            str(self.workdir / "sa.pub")], check=True, stderr=subprocess.DEVNULL)
        if not (self.workdir / "client-ca.crt").exists():
            # The CA the API server trusts for client certificates (client_certificate() issues them).
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                            "/CN=harness-client-ca", "-keyout", str(self.workdir / "client-ca.key"), "-out",
                            str(self.workdir / "client-ca.crt")], check=True, stderr=subprocess.DEVNULL)
        (self.workdir / "audit-policy.yaml").write_text(AUDIT_POLICY, encoding="utf-8")
        for attempt in range(3):
            try:
                self.start_etcd()
                self.start_apiserver()
                break
            except PortTaken:
                # A free port found by binding it and letting go can be taken by another process (a parallel
                # worker, a test's own listener) before the server binds it: new ports, and again.
                self.stop()
                if attempt == 2:
                    raise
                self.port, self.etcd_port = _free_port(), _free_port()
            except BaseException:
                self.stop()
                raise
        self._write_kubeconfig()
        self.save()
        if self.controllers:
            try:
                self.start_controllers()
            except BaseException:
                self.stop()
                raise
        return self

    def _spawn(self, argv: list[str], log_name: str) -> int:
        with open(self.workdir / log_name, "ab") as log:
            # Detached servers get a session of their own: an Ansible worker is a process-group leader that, when
            # the playbook ends while it is still alive, signals its whole group (killpg), servers started by its
            # module included. That stopped the site scenario's API server between prepare and check.
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                       preexec_fn=None if self.detached else die_with_parent(signal.SIGKILL),
                                       start_new_session=self.detached)
        return process.pid

    def start_etcd(self) -> None:
        peer = _free_port()
        self.etcd_pid = self._spawn([
            str(self.bindir / "etcd"), "--name", "harness", "--data-dir", str(self.workdir / "etcd"),
            "--listen-client-urls", f"http://127.0.0.1:{self.etcd_port}",
            "--advertise-client-urls", f"http://127.0.0.1:{self.etcd_port}",
            "--listen-peer-urls", f"http://127.0.0.1:{peer}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
            "--initial-cluster", f"harness=http://127.0.0.1:{peer}",
            "--unsafe-no-fsync", "--log-level", "warn",
        ], "etcd.log")
        self.save()
        # Its own socket first: etcd's health answers anyone, and another plane's etcd on a port both chose (between
        # choosing and binding) would answer it while this one exits, its API server then sharing that store.
        _wait(lambda: _listens(self.etcd_pid, self.etcd_port) and _http_ok(f"http://127.0.0.1:{self.etcd_port}/health"),
              60, "etcd", self.workdir / "etcd.log", lambda: _running(self.etcd_pid))

    def start_apiserver(self) -> None:
        self.apiserver_pid = self._spawn([
            str(self.bindir / "kube-apiserver"),
            f"--etcd-servers=http://127.0.0.1:{self.etcd_port}",
            "--bind-address=127.0.0.1", f"--secure-port={self.port}", "--advertise-address=127.0.0.1",
            f"--cert-dir={self.workdir / 'certs'}",
            f"--token-auth-file={self.workdir / 'tokens.csv'}",
            f"--client-ca-file={self.workdir / 'client-ca.crt'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={self.workdir / 'sa.pub'}",
            f"--service-account-signing-key-file={self.workdir / 'sa.key'}",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--endpoint-reconciler-type=none",
            f"--enable-priority-and-fairness={str(self.priority_and_fairness).lower()}",
            "--allow-privileged=true",
            f"--audit-policy-file={self.workdir / 'audit-policy.yaml'}",
            f"--audit-log-path={self.audit_log}", "--audit-log-format=json", "--audit-log-mode=blocking",
            "--v=0",
            *(["--feature-gates=MutatingAdmissionPolicy=true",
               "--runtime-config=admissionregistration.k8s.io/v1beta1=true"] if self.admission_policies else []),
        ], "kube-apiserver.log")
        self.save()
        _wait(self.ready, 180, "kube-apiserver", self.workdir / "kube-apiserver.log",
              lambda: _running(self.apiserver_pid))

    def stop_apiserver(self) -> None:
        self._kill(self.apiserver_pid, "kube-apiserver")
        self.apiserver_pid = 0
        self.save()

    def restart_apiserver(self) -> None:
        self.stop_apiserver()
        self.start_apiserver()
        self.save()

    def signal_apiserver(self, signum: int) -> None:
        """SIGSTOP/SIGCONT/SIGKILL to our kube-apiserver (fault injection); nothing else is ever signalled."""
        if self.apiserver_pid and self.owns(self.apiserver_pid, "kube-apiserver"):
            os.kill(self.apiserver_pid, signum)
        if signum == signal.SIGKILL:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.apiserver_pid, 0)
            self.apiserver_pid = 0
            self.save()

    def restart_etcd(self) -> None:
        self._kill(self.etcd_pid, "etcd")
        self.etcd_pid = 0
        self.start_etcd()

    def start_controllers(self) -> None:
        """kube-controller-manager, kube-scheduler (no serving port: several planes run at once) and kwok, which
        manages the Nodes annotated ``kwok.x-k8s.io/node: fake`` (fake_node) and plays the kubelet for their Pods."""
        common = ["--leader-elect=false", "--secure-port=0", "--v=0"]
        self.controller_manager_pid = self._spawn([
            str(self.bindir / "kube-controller-manager"), *common,
            f"--kubeconfig={self._component_kubeconfig('system:kube-controller-manager')}",
            f"--service-account-private-key-file={self.workdir / 'sa.key'}",
            f"--root-ca-file={self.workdir / 'certs' / 'apiserver.crt'}",
            # Namespaces and garbage collected objects go at once: the tests wait for them.
            "--concurrent-namespace-syncs=5", "--concurrent-gc-syncs=20",
            # A Node kwok stops heart-beating is tainted after this long, as the node lifecycle controller does.
            "--node-monitor-grace-period=40s",
        ], "kube-controller-manager.log")
        self.save()
        self.scheduler_pid = self._spawn([str(self.bindir / "kube-scheduler"), *common,
                                          f"--kubeconfig={self._component_kubeconfig('system:kube-scheduler')}"],
                                         "kube-scheduler.log")
        self.save()
        # kwok's configuration file, never its default ~/.kwok/kwok.yaml.
        config = self.workdir / "kwok.yaml"
        config.write_text(KWOK_CONFIG, encoding="utf-8")
        self.kwok_pid = self._spawn([
            str(self.bindir / "kwok"), f"--kubeconfig={self._component_kubeconfig('kwok')}", f"--config={config}",
            f"--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}=fake",
            "--cidr=10.244.0.1/16", "--node-lease-duration-seconds=40",
        ], "kwok.log")
        self.save()
        # The service-account controller makes every namespace's default ServiceAccount: the controller manager runs.
        _wait(lambda: self.kubectl_run("get", "serviceaccount", "default", "-n", "default", check=False).returncode == 0,
              120, "kube-controller-manager", self.workdir / "kube-controller-manager.log",
              lambda: _running(self.controller_manager_pid))
        for pid, log in ((self.scheduler_pid, "kube-scheduler"), (self.kwok_pid, "kwok")):
            if not _running(pid):
                tail = (self.workdir / f"{log}.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"{log} exited; log tail:\n{tail}")

    @contextlib.contextmanager
    def controllers_paused(self) -> t.Iterator[None]:
        """The controllers and kwok stopped (SIGSTOP) while the block runs: a benchmark then times the client and the
        API server, not the simulation's own heart-beats, which on a real cluster run on other machines."""
        stopped = [pid for pid, binary in ((self.kwok_pid, "kwok"), (self.scheduler_pid, "kube-scheduler"),
                                           (self.controller_manager_pid, "kube-controller-manager"))
                   if pid and self.owns(pid, binary)]
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in stopped:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)

    def _component_kubeconfig(self, name: str) -> pathlib.Path:
        """A kubeconfig with the component's own token (tokens.csv), beside the admin's."""
        config = json.loads(self.kubeconfig.read_text(encoding="utf-8"))
        config["users"] = [{"name": "admin", "user": {"token": f"{self.admin_token}-{name}"}}]
        config["contexts"] = [context for context in config["contexts"] if context["name"] == "admin"]
        path = self.workdir / f"kubeconfig-{name.rsplit(':', 1)[-1]}"
        path.write_text(json.dumps(config), encoding="utf-8")
        path.chmod(0o600)
        return path

    def add_nodes(self, nodes: t.Sequence[dict[str, t.Any]], timeout: float = 120) -> None:
        """Create ``fake_node`` objects (one request per 500) and wait until kwok reports every one Ready."""
        for start in range(0, len(nodes), 500):
            listed = {"apiVersion": "v1", "kind": "List", "items": list(nodes[start:start + 500])}
            self.kubectl_run("create", "-f", "-", input=json.dumps(listed))
        names = {node["metadata"]["name"] for node in nodes}
        deadline = time.monotonic() + timeout
        while True:
            listed = json.loads(self.kubectl_run("get", "nodes", "-o", "json").stdout)["items"]
            ready = {n["metadata"]["name"] for n in listed
                     if any(c.get("type") == "Ready" and c.get("status") == "True"
                            for c in (n.get("status") or {}).get("conditions") or [])}
            if names <= ready:
                return
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{len(names - ready)} node(s) not Ready after {timeout:g} s "
                                   f"(kwok log: {self.workdir / 'kwok.log'})")
            time.sleep(0.5)

    def stop(self) -> None:
        for pid, binary in ((self.kwok_pid, "kwok"), (self.scheduler_pid, "kube-scheduler"),
                            (self.controller_manager_pid, "kube-controller-manager"),
                            (self.apiserver_pid, "kube-apiserver"), (self.etcd_pid, "etcd")):
            self._kill(pid, binary)
        self.kwok_pid = self.scheduler_pid = self.controller_manager_pid = 0
        self.apiserver_pid = self.etcd_pid = 0
        self.save()

    def owns(self, pid: int, binary: str) -> bool:
        """Whether PID is still ``binary`` from our bin directory running on our work directory."""
        return _is_our_process(pid, self.bindir / binary, str(self.workdir))

    def _kill(self, pid: int, binary: str) -> None:
        if pid and self.owns(pid, binary):
            _kill(pid)

    # -------------------------------------------------------------- helpers
    def ready(self) -> bool:
        return _http_ok(f"{self.server}/readyz", self.admin_token)

    def _write_kubeconfig(self) -> None:
        ca = self.workdir / "certs" / "apiserver.crt"
        config = {
            "apiVersion": "v1", "kind": "Config", "current-context": "admin",
            "clusters": [{"name": "harness", "cluster": {"server": self.server, "certificate-authority": str(ca)}}],
            "users": [{"name": "admin", "user": {"token": self.admin_token}},
                      {"name": "limited", "user": {"token": self.limited_token}}],
            "contexts": [{"name": "admin", "context": {"cluster": "harness", "user": "admin"}},
                         {"name": "limited", "context": {"cluster": "harness", "user": "limited"}}],
        }
        self.kubeconfig.write_text(json.dumps(config, indent=2), encoding="utf-8")
        self.kubeconfig.chmod(0o600)

    def client_certificate(self, user: str, group: str) -> tuple[bytes, bytes]:
        """A client certificate (PEM) and its key for ``user`` in ``group``, as the API server reads them (CN, O)."""
        work = pathlib.Path(tempfile.mkdtemp(dir=self.workdir))
        try:
            subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/O={group}/CN={user}",
                            "-keyout", str(work / "key"), "-out", str(work / "csr")], check=True,
                           stderr=subprocess.DEVNULL)
            subprocess.run(["openssl", "x509", "-req", "-in", str(work / "csr"), "-days", "1", "-CA",
                            str(self.workdir / "client-ca.crt"), "-CAkey", str(self.workdir / "client-ca.key"),
                            "-CAcreateserial", "-out", str(work / "crt")], check=True, stderr=subprocess.DEVNULL)
            return (work / "crt").read_bytes(), (work / "key").read_bytes()
        finally:
            shutil.rmtree(work)

    def kubectl_run(self, *args: str, check: bool = True, context: str = "admin",
                    input: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        # --cache-dir: kubectl's discovery cache goes with the server, never into ~/.kube.
        done = subprocess.run([str(self.kubectl), f"--kubeconfig={self.kubeconfig}", f"--context={context}",
                               f"--cache-dir={self.workdir / 'kube-cache'}", *args],
                              check=False, capture_output=True, text=True, input=input,
                              env={**os.environ, **env} if env else None)
        if check and done.returncode != 0:
            raise KubectlFailed(done.returncode, done.args, done.stdout, done.stderr)
        return done

    def install_crds(self, crd_dir: pathlib.Path | None = None) -> None:
        crd_dir = crd_dir or shared_dir() / "crds"
        files = sorted(str(p) for p in crd_dir.glob("*.yaml"))
        args: list[str] = ["apply", "--server-side", "--field-manager=test-harness"]
        for path in files:
            args += ["-f", path]
        self.kubectl_run(*args)
        self.wait_established(120)

    def wait_established(self, timeout: float) -> None:
        """Every CRD Established. Read in a loop, not with ``kubectl wait --for=condition=Established crd --all``,
        which fails at once on a CRD the API server has not given a status yet (".status.conditions accessor error:
        <nil>")."""
        deadline = time.monotonic() + timeout
        while True:
            listed = json.loads(self.kubectl_run("get", "crd", "-o", "json").stdout)["items"]
            waiting = [c["metadata"]["name"] for c in listed
                       if not any(k.get("type") == "Established" and k.get("status") == "True"
                                  for k in (c.get("status") or {}).get("conditions") or [])]
            if not waiting:
                return
            if time.monotonic() >= deadline:
                raise TimeoutError(f"CRDs not Established after {timeout:g} s: {', '.join(waiting)}")
            time.sleep(0.5)

    def audit_offset(self) -> int:
        return self.audit_log.stat().st_size if self.audit_log.exists() else 0

    def audit_events(self, since: int = 0, user: str | None = None) -> list[dict[str, t.Any]]:
        events = []
        with open(self.audit_log, "rb") as handle:
            handle.seek(since)
            for line in handle:
                event = json.loads(line)
                if user is None or (event.get("user") or {}).get("username") == user:
                    events.append(event)
        return events

    def save(self) -> None:
        state = {k: str(v) if isinstance(v, pathlib.Path) else v for k, v in dataclasses.asdict(self).items()}
        path = self.workdir / "state.json"
        path.write_text(json.dumps(state), encoding="utf-8")
        path.chmod(0o600)

    @classmethod
    def load(cls, workdir: pathlib.Path) -> ControlPlane:
        state = json.loads((workdir / "state.json").read_text(encoding="utf-8"))
        state["workdir"], state["bindir"] = pathlib.Path(state["workdir"]), pathlib.Path(state["bindir"])
        return cls(**state)


COMPONENTS = ("system:kube-controller-manager", "system:kube-scheduler", "kwok")
KWOK_ANNOTATION = "kwok.x-k8s.io/node"
# kwok's own configuration (sigs.k8s.io/kwok v0.7.0, pkg/apis/config/v1alpha1, KwokConfiguration); its stages are
# its defaults: Nodes initialised and heart-beating, Pods Running and Ready, deleted Pods removed.
KWOK_CONFIG = """apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  enableCRDs: []
"""


# What a kubelet reports as status.capacity.memory for a machine sold with each size: the kernel's MemTotal, short of
# the installed memory by the firmware's reservation, the kernel's page descriptors and a crash-kernel reservation
# (263856120Ki is a 256 GiB server's, the others are of the same shape). A test registers machines by what they were
# sold as; the Node says what a real one says.
KUBELET_MEMORY = {"8Gi": "8029388Ki", "16Gi": "16265052Ki", "32Gi": "32762788Ki", "64Gi": "65843644Ki",
                  "128Gi": "131811932Ki", "256Gi": "263856120Ki", "384Gi": "395994236Ki",
                  "512Gi": "527852296Ki", "768Gi": "791889544Ki"}
# The kubelet's default hard eviction threshold (memory.available<100Mi) comes off allocatable.
EVICTION_KI = 100 * 1024


def kubelet_memory(sold: str) -> str:
    """The capacity a kubelet registers for a machine ``sold`` with that size (a Ki value is taken as reported)."""
    if sold.endswith("Ki") and sold[:-2].isdigit():
        return sold
    return KUBELET_MEMORY[sold]   # a size without a row would register the nominal size no real kubelet reports


def fake_node(name: str, *, labels: t.Mapping[str, str] | None = None, taints: t.Sequence[t.Mapping[str, str]] = (),
              memory: str = "64Gi", cpu: str = "16", architecture: str = "amd64",
              address: str | None = None) -> dict[str, t.Any]:
    """A Node kwok manages: the status a kubelet would report at registration (capacity, addresses, node info).
    ``memory``: what the machine was sold with (the inventory's node_memory); the Node reports kubelet_memory's."""
    reported = kubelet_memory(memory)
    capacity = {"cpu": cpu, "memory": reported, "pods": "110"}
    allocatable = {**capacity, "memory": f"{int(reported[:-2]) - EVICTION_KI}Ki"}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "annotations": {KWOK_ANNOTATION: "fake"},
                     # The labels a kubelet registers with (kwok adds the beta ones later where they are missing:
                     # a test reading the Node twice would see it change).
                     "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                "kubernetes.io/arch": architecture, "beta.kubernetes.io/os": "linux",
                                "beta.kubernetes.io/arch": architecture, "type": "kwok", **(labels or {})}},
        "spec": {"taints": [dict(taint) for taint in taints]} if taints else {},
        "status": {"capacity": capacity, "allocatable": allocatable,
                   "addresses": [{"type": "InternalIP", "address": address or "192.0.2.1"},
                                 {"type": "Hostname", "address": name}],
                   # Every field the Node schema requires of nodeInfo, as a kubelet reports them.
                   "nodeInfo": {"architecture": architecture, "operatingSystem": "linux", "kubeletVersion": "fake",
                                "kubeProxyVersion": "fake", "containerRuntimeVersion": "fake", "osImage": "fake",
                                "kernelVersion": "fake", "machineID": name, "systemUUID": name, "bootID": name}},
    }


def _http_ok(url: str, token: str | None = None) -> bool:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(request, timeout=2, context=context) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _listens(pid: int, port: int) -> bool:
    """Process ``pid`` holds the listening TCP socket on ``port`` (its descriptors against /proc/net/tcp)."""
    try:
        owned = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    except OSError:
        return False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table, encoding="ascii") as rows:
            for row in list(rows)[1:]:
                fields = row.split()   # sl, local address:port (hex), remote, state (0A: LISTEN), ..., inode
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port \
                        and f"socket:[{fields[9]}]" in owned:
                    return True
    return False


def _running(pid: int) -> bool:
    """The process has not exited. Not ``owns``: between fork and exec a child still runs Python, not the server."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)   # reaps it if it exited: nothing is left to stop
    except ChildProcessError:   # not our child (a server a previous run started): is it there at all
        return os.path.exists(f"/proc/{pid}")
    return done == 0


class KubectlFailed(subprocess.CalledProcessError):
    """A kubectl command that failed, with what kubectl said (CalledProcessError's message leaves it out, and a
    harness step that fails under load is then undiagnosable)."""

    def __str__(self) -> str:
        said = (self.stderr or self.stdout or "").strip()
        return f"{super().__str__()}\n{said[-2000:]}"


class PortTaken(RuntimeError):
    """The server exited because its port was taken between choosing it and binding it."""


def _wait(probe: t.Callable[[], bool], timeout: float, what: str, log: pathlib.Path,
          alive: t.Callable[[], bool] = lambda: True) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe():
            return
        if not alive():
            break   # it exited: waiting longer cannot help
        time.sleep(0.3)
    tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
    error = PortTaken if "address already in use" in tail else RuntimeError
    raise error(f"{what} did not become ready (it exited, or {timeout}s passed); log tail:\n{tail}")


def _is_our_process(pid: int, executable: pathlib.Path, marker: str) -> bool:
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
        cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    # A binary replaced since (a newer cache) still names the process it started, with " (deleted)".
    return exe.removesuffix(" (deleted)") == str(executable.resolve()) and marker in cmdline


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _attempt in range(100):
        try:
            waited, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            waited = 0
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
        if waited == pid:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["build", "start", "stop"])
    parser.add_argument("workdir", nargs="?", type=pathlib.Path)
    parser.add_argument("--controllers", action="store_true",
                        help="also kube-controller-manager, kube-scheduler and kwok")
    args = parser.parse_args(argv)
    if args.action == "build":
        print(build())
        return 0
    if args.workdir is None:
        parser.error("start and stop need a work directory")
    if args.action == "start":
        plane = ControlPlane(args.workdir.resolve(), build(), detached=True, controllers=args.controllers).start()
        plane.install_crds()
        print(plane.kubeconfig)
    else:
        if (args.workdir / "state.json").exists():
            ControlPlane.load(args.workdir.resolve()).stop()
        shutil.rmtree(args.workdir / "etcd", ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
