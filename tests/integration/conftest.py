# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A real kube-apiserver + etcd for the whole session (built from Go modules on first use, stopped by PID), and a
cluster that behaves: the same with kube-controller-manager, kube-scheduler and kwok's simulated nodes."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import typing as t

import pytest
from harness.children import adopt_orphans
from harness.control_plane import ControlPlane, build, fake_node
from harness.etcd_seed import start_with_crds
from harness.node_pools import pools

# What a test's processes leave behind (Ansible's detached task workers, when their ansible-playbook dies without
# passing a signal on) comes to this process and ends with it, not with init (harness/children.py).
adopt_orphans()


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI=true and the test API server is unavailable: {reason}")
    message = f"\n\n*** SKIPPING API-SERVER TESTS: {reason} ***\n"
    sys.stderr.write(message)
    pytest.skip(message.strip())


@contextlib.contextmanager
def _running_control_plane(tmp_path_factory: pytest.TempPathFactory, controllers: bool = False,
                           nodes: t.Sequence[dict[str, t.Any]] = (),
                           admission_policies: bool = False) -> t.Iterator[ControlPlane]:
    """A started control plane with the CRDs (with ``controllers``, its controllers, kwok and ``nodes``; with
    ``admission_policies``, MutatingAdmissionPolicy served), stopped when the block ends."""
    if shutil.which("go") is None and not os.environ.get("VIRTINFRA_HARNESS_CACHE"):
        _unavailable("Go is not installed, so kube-apiserver and etcd cannot be built")
    try:
        bindir = build()
    except subprocess.CalledProcessError as exc:
        _unavailable(f"building the control plane failed ({exc})")
    plane = ControlPlane(tmp_path_factory.mktemp("control-plane"), bindir, controllers=controllers,
                         admission_policies=admission_policies)
    try:
        # The CRDs come with a copy of a seed etcd (harness/etcd_seed.py) instead of being installed again.
        start_with_crds(plane)
        if nodes:
            plane.add_nodes([dict(node) for node in nodes], timeout=300)
        yield plane
    finally:
        plane.stop()


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[ControlPlane]:
    with _running_control_plane(tmp_path_factory) as plane:
        yield plane


@pytest.fixture(scope="module")
def empty_control_plane(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[ControlPlane]:
    """A second API server with nothing but the CRDs, for tests that must start from an empty cluster."""
    with _running_control_plane(tmp_path_factory) as plane:
        yield plane


# The example inventory's machines as a cluster reports them (examples/inventory/hosts.yml): three control-plane nodes
# that carry the infrastructure and three workers, with the memory the inventory gives each.
EXAMPLE_NODES = (
    *(fake_node(f"infra{i}", labels={"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/infra": ""},
                memory="64Gi", address=f"192.0.2.1{i}") for i in (1, 2, 3)),
    *(fake_node(f"worker{i}", labels={"node-role.kubernetes.io/worker": ""}, memory=memory, address=f"192.0.2.2{i}")
      for i, memory in ((1, "256Gi"), (2, "256Gi"), (3, "128Gi"))),
)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[ControlPlane]:
    """The API server with its controllers and the example inventory's six nodes (kwok keeps them Ready and runs
    their Pods). Tests add nodes of their own names, never change these."""
    with _running_control_plane(tmp_path_factory, controllers=True, nodes=EXAMPLE_NODES) as plane:
        yield plane


@pytest.fixture(scope="module")
def empty_cluster(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[ControlPlane]:
    """A cluster of this module's own (the controllers and the example inventory's six nodes) with nothing else
    written yet, for tests that must start from an empty cluster."""
    with _running_control_plane(tmp_path_factory, controllers=True, nodes=EXAMPLE_NODES) as plane:
        yield plane


@pytest.fixture(scope="module")
def second_empty_cluster(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[ControlPlane]:
    """Another cluster like empty_cluster, for tests that compare two clusters made two ways."""
    with _running_control_plane(tmp_path_factory, controllers=True, nodes=EXAMPLE_NODES) as plane:
        yield plane


LARGE = 520


@pytest.fixture(scope="module")
def large_cluster(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[ControlPlane]:
    """A cluster of 520 kwok nodes in two pools (harness/node_pools.py), for the scale tests: more than kubectl's page
    of 500 (nodes.CHUNK_SIZE), so a LIST of them is paged by the real server."""
    with _running_control_plane(tmp_path_factory, controllers=True, nodes=pools(LARGE)) as plane:
        yield plane
