# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Records what the real test API server answers to k8s_apply's requests in a few scenarios, for the orchestrator's
unit tests (tests/unit/plugins/module_utils/_k8s/test_apply.py replays them with k8s_fakes.Replay).

Run it again when the requests a scenario makes change (the unit test says which were not recorded):
    scripts/_env.sh's venv:  python tests/record_k8s_answers.py
It starts a kube-apiserver and etcd of its own (tests/harness), and stops them at the end.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import sys
import tempfile
import typing as t

TESTS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS.parent / ".cache" / "collections"))

from harness.control_plane import ControlPlane, build  # noqa: E402

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.apply import (  # noqa: E402
    Applier,
    ApplyFailed,
    Options,
)
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.client import (  # noqa: E402
    Connection,
    KubeError,
)

OUT = TESTS / "unit" / "plugins" / "module_utils" / "_k8s" / "recorded"
# Discovery is trimmed to the groups the scenarios use: the rest of the API surface is noise in a recording.
GROUPS = {"", "coordination.k8s.io", "apiextensions.k8s.io", "authorization.k8s.io"}


class Recording(Connection):
    def __init__(self, **options: t.Any) -> None:
        super().__init__(**options)
        self.entries: list[dict[str, t.Any]] = []

    def exchange(self, method: str, path: str, **options: t.Any) -> tuple[int, t.Any]:
        query = {k: v for k, v in (options.get("query") or {}).items() if k in ("dryRun", "force") and v}
        entry: dict[str, t.Any] = {"method": method, "path": path, "query": query}
        try:
            status, answer = super().exchange(method, path, **options)
        except KubeError as exc:
            entry["error"] = {"status": exc.status, "body": exc.body, "message": str(exc)}
            self.entries.append(entry)
            raise
        if path in ("/api", "/apis") and isinstance(answer, dict):
            answer = {**answer, "items": [g for g in answer.get("items") or []
                                          if (g.get("metadata") or {}).get("name", "") in GROUPS]}
        entry.update(status=status, answer=answer)
        self.entries.append(entry)
        return status, answer


def config_map(name: str, value: str = "v") -> dict[str, t.Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "rec"},
            "data": {"k": value}}


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "rec"}}
SET = {"apply_set": "rec", "apply_set_namespace": "rec"}
SCENARIOS: list[tuple[str, list[dict[str, t.Any]], dict[str, t.Any]]] = [
    ("from_empty", [NAMESPACE, config_map("a"), config_map("b"), config_map("c")], SET),
    ("noop", [NAMESPACE, config_map("a"), config_map("b"), config_map("c")], SET),
    ("prune", [NAMESPACE, config_map("a"), config_map("b", "changed")], {**SET, "prune": True}),
    ("refused", [NAMESPACE, config_map("a"), config_map("b", "changed"), config_map("theirs"),
                 {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g", "namespace": "rec"}}],
     SET),
    ("absent", [config_map("a"), config_map("theirs")], {**SET, "state": "absent"}),
]


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as workdir:
        plane = ControlPlane(pathlib.Path(workdir), build())
        try:
            plane.start()
            for name, objects, options in SCENARIOS:
                if name == "refused":
                    plane.kubectl_run("create", "configmap", "theirs", "--from-literal=k=mine", "-n", "rec")
                connection = Recording(kubeconfig=str(plane.kubeconfig), context="admin")
                # A scenario may end in a failure: what the server answered is what is recorded.
                with contextlib.suppress(ApplyFailed):
                    Applier(connection, Options(**options, workers=1)).run(objects)
                document = {"scenario": name, "objects": objects, "options": options, "requests": connection.entries}
                (OUT / f"{name}.json").write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
                print(f"{name}: {len(connection.entries)} requests")
        finally:
            plane.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
