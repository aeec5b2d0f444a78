# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Apply benchmark on one real kube-apiserver: k8s_apply vs kubectl apply --server-side vs a kubernetes.core.k8s loop.

Objects: the full operand set of the fully populated HyperConverged of bench/render.py (OpenShift profile), rendered
for three HyperConverged namespaces so the set has at least 30 objects (cluster-scoped names carry the namespace).
Each tool gets its own copy (own namespaces and names) on the same server, applied from empty and then again
(no-op). Wall time is measured around the whole command; requests are counted from the server's audit log.

    ./scripts/bench-apply            # sets up the venvs (kubernetes.core comes from the PyPI 'ansible' package)
    ./scripts/bench-apply --scale    # at scale: 10,000 ConfigMaps side by side with kubectl apply --server-side
                                     # (wall time, requests, peak RSS of the applying process; the no-op also
                                     # through ansible-playbook), 293 mixed objects, and time to fail on a frozen
                                     # server (--count sets the number of ConfigMaps)

In --scale mode each apply runs in its own Python process, so its peak RSS is its own (os.wait4).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import typing as t

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".cache" / "collections"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from harness.control_plane import ControlPlane, build  # noqa: E402
from render import FULL  # noqa: E402

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render  # noqa: E402
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import Applier, Options  # noqa: E402
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import Connection  # noqa: E402


def object_set(tag: str, copies: int = 3) -> list[dict]:
    objects: list[dict] = []
    for index in range(copies):
        namespace = f"{tag}-hco-{index}"
        hyperconverged = json.loads(json.dumps(FULL))
        hyperconverged["metadata"]["namespace"] = namespace
        result = render(hyperconverged, release="1.20", cluster={"platform": "openshift", "namespace": namespace,
                                                                 "base_domain": "example.com"})
        objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
        for operand in result.operands:
            if operand["kind"] == "SecurityContextConstraints":
                continue  # an OpenShift API the test server does not serve
            if "namespace" not in operand["metadata"]:
                operand["metadata"]["name"] = f"{operand['metadata']['name']}-{namespace}"
            objects.append(operand)
    return objects


def mixed_set(tag: str, size: int = 293) -> list[dict]:
    """Operands of three HyperConvergeds, then Secrets (stringData), ConfigMaps and Deployments up to ``size``."""
    objects = object_set(tag)
    namespace = f"{tag}-hco-0"
    index = 0
    while len(objects) < size:
        kind = ("Secret", "ConfigMap", "Deployment")[index % 3]
        name = f"extra-{index:03d}"
        if kind == "Secret":
            objects.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": namespace},
                            "stringData": {"password": f"value-{index}"}})
        elif kind == "ConfigMap":
            objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace},
                            "data": {"index": str(index)}})
        else:
            objects.append({"apiVersion": "apps/v1", "kind": "Deployment",
                            "metadata": {"name": name, "namespace": namespace},
                            "spec": {"replicas": 0, "selector": {"matchLabels": {"app": name}},
                                     "template": {"metadata": {"labels": {"app": name}},
                                                  "spec": {"containers": [{"name": "c", "image": "registry.local/c:1"}]}}}})
        index += 1
    return objects


def config_maps(namespace: str, count: int) -> list[dict]:
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}] + [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i:04d}", "namespace": namespace},
         "data": {"index": str(i)}} for i in range(count)]


def child_apply(request_file: pathlib.Path) -> int:
    """--child: one apply in this process; prints its seconds and outcome as JSON."""
    request = json.loads(request_file.read_text())
    connection = Connection(kubeconfig=request["kubeconfig"], **request["connection"])
    start = time.perf_counter()
    try:
        Applier(connection, Options(**request["options"])).run(request["objects"])
        outcome = "ok"
    except Exception as exc:  # reported, not raised: the parent measures how it failed
        first_line = str(exc).splitlines()[0]
        outcome = f"{type(exc).__name__}: {first_line if len(first_line) <= 200 else first_line[:197] + '...'}"
    print(json.dumps({"seconds": time.perf_counter() - start, "outcome": outcome}))
    return 0


def server_cpu(plane: ControlPlane) -> float:
    """CPU seconds the test API server and etcd have used so far (user + system, from /proc)."""
    total = 0.0
    for pid in (plane.apiserver_pid, plane.etcd_pid):
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def measured(plane: ControlPlane, work: pathlib.Path, objects: list[dict], options: dict[str, t.Any],
             connection: dict[str, t.Any] | None = None, during: t.Callable[[], None] | None = None) -> dict[str, t.Any]:
    """Apply in a child process: seconds, requests the server saw, peak RSS (MiB), outcome."""
    request = work / "request.json"
    request.write_text(json.dumps({"kubeconfig": str(plane.kubeconfig), "objects": objects, "options": options,
                                   "connection": connection or {}}))
    mark, cpu = plane.audit_offset(), server_cpu(plane)
    child = subprocess.Popen([sys.executable, __file__, "--child", str(request)], stdout=subprocess.PIPE, text=True)
    if during is not None:
        during()
    assert child.stdout is not None
    answer = json.loads(child.stdout.read())
    _pid, _status, usage = os.wait4(child.pid, 0)
    child.returncode = 0
    return {**answer, "requests": len(plane.audit_events(mark, "admin")), "peak_rss_mib": usage.ru_maxrss / 1024,
            "server_cpu": server_cpu(plane) - cpu, "client_cpu": usage.ru_utime + usage.ru_stime}


def kubectl_apply(plane: ControlPlane, work: pathlib.Path, objects: list[dict]) -> dict[str, t.Any]:
    manifest = work / "kubectl.yaml"
    manifest.write_text("\n---\n".join(json.dumps(o) for o in objects))
    mark, cpu = plane.audit_offset(), server_cpu(plane)
    start = time.perf_counter()
    child = subprocess.Popen([str(plane.kubectl), f"--kubeconfig={plane.kubeconfig}", "apply", "--server-side",
                              "--field-manager=kubectl-bench", f"--cache-dir={work / 'kube-cache'}", "-f",
                              str(manifest)], stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "outcome": "ok" if status == 0 else f"exit status {status >> 8}",
            "requests": len(plane.audit_events(mark, "admin")), "peak_rss_mib": usage.ru_maxrss / 1024,
            "server_cpu": server_cpu(plane) - cpu, "client_cpu": usage.ru_utime + usage.ru_stime}


def k8s_apply_play(path: pathlib.Path, kubeconfig: pathlib.Path, apply_set: str, **arguments: t.Any) -> pathlib.Path:
    """A play of one k8s_apply task on localhost (JSON, which is YAML: no indentation to get wrong)."""
    task = {"kubeconfig": str(kubeconfig), "apply_set": apply_set, **arguments}
    path.write_text(json.dumps([{"hosts": "localhost", "connection": "local", "gather_facts": False,
                                 "tasks": [{"name": "Apply", "virtinfra.hyperconverged.k8s_apply": task}]}], indent=2))
    return path


def through_ansible(plane: ControlPlane, work: pathlib.Path, objects: list[dict], apply_set: str,
                    src: bool) -> dict[str, t.Any]:
    """The same apply as an ansible-playbook task (this venv's ansible-core, the collection from .cache): the objects
    from a lookup (templated by Ansible) or, with ``src``, read by the module from the file. The module's process is
    started through a wrapper interpreter that records its wall time."""
    objects_file = work / "objects.json"
    objects_file.write_text(json.dumps(objects))
    source = ({"src": str(objects_file)} if src
              else {"objects": f"{{{{ lookup('ansible.builtin.file', '{objects_file}') | from_json }}}}"})
    book = k8s_apply_play(work / "scale.yml", plane.kubeconfig, apply_set, **source)
    module_times = work / "module-times"
    interpreter = work / "timed-python"
    interpreter.write_text(textwrap.dedent(f"""\
        #!/bin/bash
        start=$(date +%s.%N)
        {sys.executable} "$@"
        status=$?
        echo "$start $(date +%s.%N)" >> {module_times}
        exit $status
        """))
    interpreter.chmod(0o755)
    module_times.unlink(missing_ok=True)
    mark = plane.audit_offset()
    seconds = timed([str(pathlib.Path(sys.executable).parent / "ansible-playbook"), "-i", "localhost,",
                     "-e", f"ansible_python_interpreter={interpreter}", str(book)], ansible_env())
    start, end = (float(value) for value in module_times.read_text().split())
    return {"seconds": seconds, "outcome": "ok", "requests": len(plane.audit_events(mark, "admin")),
            "peak_rss_mib": float("nan"), "module_seconds": end - start}


def ansible_start_up(work: pathlib.Path) -> float:
    """Seconds for ansible-playbook to run a play whose one task does nothing: time no module can save."""
    book = work / "start-up.yml"
    book.write_text(textwrap.dedent("""\
        - hosts: localhost
          connection: local
          gather_facts: false
          tasks:
            - name: Nothing
              ansible.builtin.meta: noop
        """))
    command = [str(pathlib.Path(sys.executable).parent / "ansible-playbook"), "-i", "localhost,", str(book)]
    return min(timed(command, ansible_env()) for _attempt in range(3))


def scale(plane: ControlPlane, work: pathlib.Path, count: int) -> None:
    label = f"{count:,} ConfigMaps"
    ours, theirs = config_maps("ours", count), config_maps("kubectl", count)
    side_by_side: dict[tuple[str, str], dict[str, t.Any]] = {}
    for phase in ("from empty", "no-op"):
        side_by_side[("kubectl apply --server-side", phase)] = kubectl_apply(plane, work, theirs)
        side_by_side[("k8s_apply core", phase)] = measured(plane, work, ours, {"apply_set": "ours"})
    side_by_side[("ansible-playbook, objects", "no-op")] = through_ansible(plane, work, ours, "ours", src=False)
    side_by_side[("ansible-playbook, src", "no-op")] = through_ansible(plane, work, ours, "ours", src=True)
    print(f"{label} in one namespace (and the Namespace), side by side on one API server")
    print(f"{'tool':<30}{'phase':<12}{'seconds':>9}{'requests':>10}{'peak RSS MiB':>14}"
          f"{'server CPU s':>14}{'client CPU s':>14}")
    for (tool, phase), figures in side_by_side.items():
        print(f"{tool:<30}{phase:<12}{figures['seconds']:>9.2f}{figures['requests']:>10}"
              f"{figures['peak_rss_mib']:>14.0f}{figures.get('server_cpu', float('nan')):>14.1f}"
              f"{figures.get('client_cpu', float('nan')):>14.1f}  {figures['outcome']}")
    size = len(ours)
    core, kubectl = "k8s_apply core", "kubectl apply --server-side"
    for phase, target in (("from empty", 0.5), ("no-op", 0.1)):
        ratio = side_by_side[(core, phase)]["seconds"] / side_by_side[(kubectl, phase)]["seconds"]
        print(f"{phase}: k8s_apply / kubectl wall time {ratio:.2f}x (target <= {target}x)")
    # The API server, etcd and the client share this machine's cores: no schedule can finish before the server's own
    # CPU time, spread over every core, has been spent.
    empty, cores = side_by_side[(core, "from empty")], len(os.sched_getaffinity(0))
    floor = empty["server_cpu"] / cores
    print(f"from empty: the server alone used {empty['server_cpu']:.1f} CPU s for k8s_apply's requests: on {cores} "
          f"cores no client can finish in less than {floor:.1f} s = "
          f"{floor / side_by_side[(kubectl, 'from empty')]['seconds']:.2f}x kubectl's wall time")
    # kubectl's requests are mostly the writes that any client must send: if the server's CPU for those alone
    # exceeds what 0.5x kubectl's wall time gives on these cores, the target cannot be met on this machine.
    theirs_empty = side_by_side[(kubectl, "from empty")]
    budget = cores * 0.5 * theirs_empty["seconds"]
    print(f"from empty: the server used {theirs_empty['server_cpu']:.1f} CPU s for kubectl's {theirs_empty['requests']} "
          f"requests ({size} of them the writes every client sends); 0.5x kubectl's wall time on {cores} cores gives "
          f"{budget:.1f} CPU s for server and client together")
    print(f"from empty: {side_by_side[(core, 'from empty')]['requests']} requests "
          f"(target <= 2 x {size} + 2 kinds + 3 = {2 * size + 5})")
    for tool in ("ansible-playbook, objects", "ansible-playbook, src"):
        run = side_by_side[(tool, "no-op")]
        outside = 1 - run["module_seconds"] / run["seconds"]
        ratio = run["seconds"] / side_by_side[(kubectl, "no-op")]["seconds"]
        print(f"no-op through {tool}: {run['seconds']:.2f} s = {ratio:.2f}x kubectl; the module's process "
              f"{run['module_seconds']:.2f} s, {outside:.0%} of the wall time outside it (target <= 25 %)")
    start_up = ansible_start_up(work)
    print(f"ansible-playbook's own start-up (a play with one task that does nothing, fastest of 3): {start_up:.2f} s, "
          f"{start_up / side_by_side[('ansible-playbook, src', 'no-op')]['seconds']:.0%} of the src no-op's wall time")
    print()

    rows = []
    mixed = mixed_set("mixed")
    kinds = len({(o["apiVersion"], o["kind"]) for o in mixed})
    for phase in ("from empty", "no-op"):
        rows.append(("293 mixed objects", len(mixed), kinds, phase, measured(plane, work, mixed, {"apply_set": "293"})))
    print(f"{'set':<20}{'objects':>8}{'kinds':>6}  {'phase':<11}{'seconds':>9}{'requests':>10}{'peak RSS MiB':>14}")
    for label, count, kinds, phase, figures in rows:
        print(f"{label:<20}{count:>8}{kinds:>6}  {phase:<11}{figures['seconds']:>9.2f}{figures['requests']:>10}"
              f"{figures['peak_rss_mib']:>14.0f}  {figures['outcome']}")
        if phase == "no-op":
            print(f"{'':<36}no-op target: requests <= kinds + 3 = {kinds + 3}")

    # A server that stops answering part-way through 1,000 writes: the call must fail within its limits.
    frozen = config_maps("frozen", 1000)
    limits = {"request_timeout": 2, "retries": 1, "timeout": 60}

    def freeze_soon() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            listed = plane.kubectl_run("get", "configmaps", "-n", "frozen", "-o", "name", check=False).stdout
            if len(listed.split()) > 20:
                break
            time.sleep(0.2)
        plane.signal_apiserver(signal.SIGSTOP)

    try:
        figures = measured(plane, work, frozen, {"apply_set": "frozen"}, limits, during=freeze_soon)
    finally:
        plane.signal_apiserver(signal.SIGCONT)
    print(f"\nfrozen API server (SIGSTOP part-way through 1,000 ConfigMaps; request_timeout=2, retries=1): failed after "
          f"{figures['seconds']:.1f} s ({figures['outcome']}); bound: request_timeout x (retries + 1) plus backoff")


def ansible_env() -> dict[str, str]:
    """The environment of every ansible-playbook the bench runs: the collection from .cache, quiet output."""
    return dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="False",
                ANSIBLE_INVENTORY_UNPARSED_WARNING="False", ANSIBLE_COLLECTIONS_PATH=f"{ROOT / '.cache' / 'collections'}")


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def playbook(path: pathlib.Path, objects_file: pathlib.Path, kubeconfig: pathlib.Path, tool: str) -> None:
    if tool == "k8s_apply":
        task = f"""\
            - name: Apply all objects in one call
              virtinfra.hyperconverged.k8s_apply:
                kubeconfig: {kubeconfig}
                objects: "{{{{ objects }}}}"
                apply_set: bench"""
    else:
        task = f"""\
            - name: Apply one object per task iteration
              kubernetes.core.k8s:
                kubeconfig: {kubeconfig}
                definition: "{{{{ item }}}}"
                server_side_apply:
                  field_manager: kubernetes-core-bench
              loop: "{{{{ objects }}}}"
              loop_control:
                label: "{{{{ item.kind }}}}/{{{{ item.metadata.name }}}}\""""
    path.write_text(textwrap.dedent(f"""\
        - hosts: localhost
          connection: local
          gather_facts: false
          vars:
            objects: "{{{{ lookup('ansible.builtin.file', '{objects_file}') | from_json }}}}"
          tasks:
        """) + textwrap.indent(textwrap.dedent(task), "    ") + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ansible-venv", type=pathlib.Path,
                        help="venv with the 'ansible' package (kubernetes.core) and this collection's requirements")
    parser.add_argument("--scale", action="store_true", help="at scale (see above)")
    parser.add_argument("--count", type=int, default=10_000, help="ConfigMaps in --scale mode (default 10,000)")
    parser.add_argument("--child", type=pathlib.Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        return child_apply(options.child)
    if options.scale:
        with tempfile.TemporaryDirectory() as scratch:
            plane = ControlPlane(pathlib.Path(scratch) / "control-plane", build()).start()
            try:
                plane.install_crds()
                scale(plane, pathlib.Path(scratch), options.count)
            finally:
                plane.stop()
        return 0
    if options.ansible_venv is None:
        parser.error("--ansible-venv is required without --scale")
    python = options.ansible_venv / "bin" / "python"
    env = ansible_env()
    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch)
        plane = ControlPlane(work / "control-plane", build()).start()
        try:
            plane.install_crds()
            # A live cluster's operators watch their CRs, so the API server's watch caches are warm; a fresh test
            # server fills them on the first list of each kind (about 1 s each), which is not what users meet.
            plane.kubectl_run("get", "--all-namespaces", "kubevirts,cdis,networkaddonsconfigs,ssps,aaqs,migcontrollers,"
                              "filerestoreoperators,priorityclasses,deployments,configmaps,namespaces")
            rows: list[dict[str, t.Any]] = []
            core: dict[str, t.Any] = {"tool": "k8s_apply (core, in-process)"}
            objects = object_set("core")
            core["objects"], core["kinds"] = len(objects), len({(o["apiVersion"], o["kind"]) for o in objects})
            for phase in ("from empty", "no-op"):
                mark = plane.audit_offset()
                connection = Connection(kubeconfig=str(plane.kubeconfig))
                start = time.perf_counter()
                Applier(connection, Options(apply_set="core")).run(objects)
                core[phase] = (time.perf_counter() - start, len(plane.audit_events(mark, "admin")))
            for tool in ("k8s_apply", "kubectl", "kubernetes.core.k8s"):
                objects = object_set({"k8s_apply": "ours", "kubectl": "kubectl", "kubernetes.core.k8s": "kcore"}[tool])
                objects_file = work / f"{tool}.json"
                objects_file.write_text(json.dumps(objects))
                if tool == "kubectl":
                    (work / "kubectl.yaml").write_text("\n---\n".join(json.dumps(o) for o in objects))
                    command = [str(plane.kubectl), f"--kubeconfig={plane.kubeconfig}", "apply", "--server-side",
                               "--field-manager=kubectl-bench", "-f", str(work / "kubectl.yaml")]
                else:
                    book = work / f"{tool}.yml"
                    playbook(book, objects_file, plane.kubeconfig, tool)
                    command = [str(options.ansible_venv / "bin" / "ansible-playbook"), "-i", "localhost,",
                               "-e", f"ansible_python_interpreter={python}", str(book)]
                row: dict[str, t.Any] = {"tool": tool, "objects": len(objects),
                                         "kinds": len({(o["apiVersion"], o["kind"]) for o in objects})}
                for phase in ("from empty", "no-op"):
                    mark = plane.audit_offset()
                    seconds = timed(command, env)
                    row[phase] = (seconds, len(plane.audit_events(mark, "admin")))
                rows.append(row)
            rows.append(core)
        finally:
            plane.stop()
    print(f"{'tool':<30}{'objects':>8}{'kinds':>6}  {'from empty: s / requests':>26}  {'no-op: s / requests':>22}")
    for row in rows:
        empty, noop = row["from empty"], row["no-op"]
        print(f"{row['tool']:<30}{row['objects']:>8}{row['kinds']:>6}  {empty[0]:>17.2f} / {empty[1]:<6}"
              f"  {noop[0]:>13.2f} / {noop[1]:<6}")
    ours, kubectl, kcore, ours_core = rows
    print(f"\nno-op requests: {ours['no-op'][1]} (target <= kinds + 3 = {ours['kinds'] + 3})")
    for label, row in (("ansible-playbook", ours), ("core", ours_core)):
        print(f"wall time vs kubectl ({label}): from empty {row['from empty'][0] / kubectl['from empty'][0]:.2f}x, "
              f"no-op {row['no-op'][0] / kubectl['no-op'][0]:.2f}x (target <= 1.0x)")
    print(f"speed-up vs kubernetes.core loop: from empty {kcore['from empty'][0] / ours['from empty'][0]:.1f}x, "
          f"no-op {kcore['no-op'][0] / ours['no-op'][0]:.1f}x (target >= 5x)")
    print("wall times include process start-up: ansible-playbook (~1-2 s) for the two Ansible rows, none for kubectl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
