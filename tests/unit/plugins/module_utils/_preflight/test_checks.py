# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Preflight facts read from a fake host root (files written by the test) and judged against the profiles."""

from __future__ import annotations

import os

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._preflight import checks


def host(tmp_path, *, flags="fpu vmx sse", memtotal_kb=67108864, cgroup_v2=True, swaps=(), kubelet="",
         iommu_groups=0, sockets=()):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "cpuinfo").write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
    (tmp_path / "proc" / "meminfo").write_text(f"MemTotal:       {memtotal_kb} kB\nMemFree: 1 kB\n")
    (tmp_path / "proc" / "cmdline").write_text("root=/dev/sda1 quiet\n")
    (tmp_path / "proc" / "swaps").write_text("Filename Type Size Used Priority\n" +
                                             "".join(f"{s} file 1024 0 -2\n" for s in swaps))
    (tmp_path / "sys" / "fs" / "cgroup").mkdir(parents=True)
    if cgroup_v2:
        (tmp_path / "sys" / "fs" / "cgroup" / "cgroup.controllers").write_text("cpu memory\n")
    groups = tmp_path / "sys" / "kernel" / "iommu_groups"
    groups.mkdir(parents=True)
    for index in range(iommu_groups):
        (groups / str(index)).mkdir()
    (tmp_path / "var").mkdir()
    if kubelet:
        (tmp_path / "var" / "lib" / "kubelet").mkdir(parents=True)
        (tmp_path / "var" / "lib" / "kubelet" / "config.yaml").write_text(kubelet)
    for socket in sockets:
        path = tmp_path / socket.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    return str(tmp_path)


def test_gather_reads_the_host(tmp_path):
    root = host(tmp_path, swaps=["/swapfile"], kubelet="kind: KubeletConfiguration\nfailSwapOn: false\n",
                iommu_groups=3, sockets=["/run/crio/crio.sock"])
    facts = checks.gather(root)
    assert facts["cpu_virtualization"] == "vmx"
    assert facts["memory_bytes"] == 67108864 * 1024
    assert facts["cgroup_v2"] is True and facts["iommu_groups"] == 3
    assert facts["swap_active"] == ["/swapfile"] and facts["kubelet_fail_swap_on"] is False
    assert facts["runtimes"] == ["cri-o"] and facts["kvm_device"] is False
    assert facts["cpus"] == os.cpu_count()


def test_judge_reports_every_unmet_requirement(tmp_path):
    facts = checks.gather(host(tmp_path, flags="fpu sse", memtotal_kb=16 * 1024 * 1024, cgroup_v2=False,
                               kubelet="failSwapOn: true\n"))
    facts.update(cpus=4, disk_free_bytes=50 * 1000 ** 3)
    rows = {r["check"]: r for r in checks.judge(facts, "production", need_iommu=True, want_swap=True)}
    unmet = {name for name, row in rows.items() if not row["ok"]}
    assert unmet == {"hardware virtualization (vmx/svm)", "/dev/kvm", "cgroup v2", "CPU cores", "memory",
                     "free disk at /var", "container runtime", "IOMMU (SR-IOV / host devices)", "swap",
                     "kubelet failSwapOn"}
    assert rows["CPU cores"]["required"] == ">= 16" and rows["memory"]["required"] == ">= 64 GB"


def test_memory_tolerance_accepts_a_64_gb_machine(tmp_path):
    facts = checks.gather(host(tmp_path, memtotal_kb=int(64 * 1000 ** 3 * 0.96 / 1024)))
    facts.update(cpus=16, kvm_device=True, disk_free_bytes=600 * 1000 ** 3, runtimes=["containerd"])
    assert all(r["ok"] for r in checks.judge(facts, "production"))


def test_table_lines():
    lines = checks.table("node1", [{"check": "cgroup v2", "required": "unified hierarchy", "found": "no",
                                    "ok": False}])
    assert lines[0] == "node1:" and lines[2].rstrip().endswith("UNMET")
