# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read a host's virtualization facts and judge them against a requirement profile (standard library only).

Figures from the KubeVirt cloud-provider requirements: 8 cores / 32 GB / 100 GB for testing, 16 / 64 / 500 for
production, which also needs at least 3 bare-metal nodes.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import os
import stat
import typing as t

PROFILES: dict[str, dict[str, int]] = {
    "testing": {"cpus": 8, "memory_gb": 32, "disk_gb": 100, "nodes": 1},
    "production": {"cpus": 16, "memory_gb": 64, "disk_gb": 500, "nodes": 3},
}
# MemTotal is below the installed RAM (firmware and kernel reservations): accept 95 % of the figure.
MEMORY_TOLERANCE = 0.95
RUNTIME_SOCKETS = {"cri-o": "/run/crio/crio.sock", "containerd": "/run/containerd/containerd.sock"}


def _read(path: str, root: str) -> str:
    try:
        with open(root + path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def gather(root: str = "", disk_path: str = "/var", kubelet_config: str = "/var/lib/kubelet/config.yaml"
           ) -> dict[str, t.Any]:
    """Facts of the host mounted at ``root`` (empty for this host)."""
    flags: set[str] = set()
    for line in _read("/proc/cpuinfo", root).splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[1].split())
    meminfo = {}
    for line in _read("/proc/meminfo", root).splitlines():
        key, _sep, value = line.partition(":")
        if value.strip().split():
            meminfo[key] = int(value.strip().split()[0]) * 1024
    try:
        kvm = stat.S_ISCHR(os.stat(root + "/dev/kvm").st_mode)
    except OSError:
        kvm = False
    try:
        iommu_groups = len(os.listdir(root + "/sys/kernel/iommu_groups"))
    except OSError:
        iommu_groups = 0
    cmdline = _read("/proc/cmdline", root).split()
    try:
        vfs = os.statvfs(root + disk_path)
        disk_free = vfs.f_bavail * vfs.f_frsize
    except OSError:
        disk_free = 0
    swaps = [line.split()[0] for line in _read("/proc/swaps", root).splitlines()[1:] if line.strip()]
    kubelet = _read(kubelet_config, root)
    fail_swap_on: bool | None = None
    for line in kubelet.splitlines():
        if line.strip().startswith("failSwapOn:"):
            fail_swap_on = line.split(":", 1)[1].strip().lower() == "true"
    return {
        "cpus": os.cpu_count() or 0,
        "cpu_virtualization": "vmx" if "vmx" in flags else ("svm" if "svm" in flags else ""),
        "kvm_device": kvm,
        "iommu_groups": iommu_groups,
        "iommu_cmdline": any(a in ("intel_iommu=on", "amd_iommu=on", "iommu=pt") for a in cmdline),
        "cgroup_v2": os.path.exists(root + "/sys/fs/cgroup/cgroup.controllers"),
        "runtimes": [name for name, sock in RUNTIME_SOCKETS.items() if os.path.exists(root + sock)],
        "memory_bytes": meminfo.get("MemTotal", 0),
        "disk_path": disk_path,
        "disk_free_bytes": disk_free,
        "swap_active": swaps,
        "kubelet_config_present": bool(kubelet),
        "kubelet_fail_swap_on": fail_swap_on,
    }


def judge(facts: t.Mapping[str, t.Any], profile: str = "testing", need_iommu: bool = False,
          need_runtime: bool = True, want_swap: bool = False) -> list[dict[str, t.Any]]:
    """One row per requirement: {check, required, found, ok}."""
    limits = PROFILES[profile]
    gib = 1000 ** 3
    rows = [
        ("hardware virtualization (vmx/svm)", "present", facts["cpu_virtualization"] or "missing",
         bool(facts["cpu_virtualization"])),
        ("/dev/kvm", "character device", "present" if facts["kvm_device"] else "missing", facts["kvm_device"]),
        ("cgroup v2", "unified hierarchy", "yes" if facts["cgroup_v2"] else "no", facts["cgroup_v2"]),
        ("CPU cores", f">= {limits['cpus']}", str(facts["cpus"]), facts["cpus"] >= limits["cpus"]),
        ("memory", f">= {limits['memory_gb']} GB", f"{facts['memory_bytes'] / gib:.1f} GB",
         facts["memory_bytes"] >= limits["memory_gb"] * gib * MEMORY_TOLERANCE),
        (f"free disk at {facts['disk_path']}", f">= {limits['disk_gb']} GB", f"{facts['disk_free_bytes'] / gib:.1f} GB",
         facts["disk_free_bytes"] >= limits["disk_gb"] * gib),
    ]
    if need_runtime:
        rows.append(("container runtime", "cri-o or containerd", ", ".join(facts["runtimes"]) or "none",
                     bool(facts["runtimes"])))
    if need_iommu:
        enabled = facts["iommu_groups"] > 0
        rows.append(("IOMMU (SR-IOV / host devices)", "enabled", "enabled" if enabled else
                     ("on the kernel command line only" if facts["iommu_cmdline"] else "disabled"), enabled))
    if want_swap:
        rows.append(("swap", "active", ", ".join(facts["swap_active"]) or "none", bool(facts["swap_active"])))
        if facts["kubelet_config_present"]:
            rows.append(("kubelet failSwapOn", "false", str(facts["kubelet_fail_swap_on"]).lower(),
                         facts["kubelet_fail_swap_on"] is False))
    return [{"check": c, "required": r, "found": f, "ok": bool(ok)} for c, r, f, ok in rows]


def table(host: str, rows: t.Sequence[t.Mapping[str, t.Any]]) -> list[str]:
    """Fixed-width text lines, readable in AWX job output."""
    width = max([len(r["check"]) for r in rows] + [5])
    lines = [f"{host}:", f"  {'check':<{width}}  {'required':<22}  {'found':<24}  result"]
    for row in rows:
        lines.append(f"  {row['check']:<{width}}  {row['required']:<22}  {row['found']!s:<24}  "
                     f"{'ok' if row['ok'] else 'UNMET'}")
    return lines
