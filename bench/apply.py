# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Apply benchmark on one real kube-apiserver: k8s_apply vs kubectl apply --server-side vs a kubernetes.core.k8s loop.

Objects: the full operand set of the fully populated HyperConverged of bench/render.py (OpenShift profile), rendered
for three HyperConverged namespaces so the set has at least 30 objects (cluster-scoped names carry the namespace).
Each tool gets its own copy (own namespaces and names) on the same server, applied from empty and then again
(no-op). Wall time is measured around the whole command; requests are counted from the server's audit log.

    ./scripts/bench-apply            # sets up the venvs (kubernetes.core comes from the PyPI 'ansible' package)
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
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
    parser.add_argument("--ansible-venv", type=pathlib.Path, required=True,
                        help="venv with the 'ansible' package (kubernetes.core) and this collection's requirements")
    options = parser.parse_args()
    python = options.ansible_venv / "bin" / "python"
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False",
               ANSIBLE_COLLECTIONS_PATH=f"{ROOT / '.cache' / 'collections'}")
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
