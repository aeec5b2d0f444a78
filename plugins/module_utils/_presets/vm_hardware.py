# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check a VirtualMachine / VirtualMachineInstance spec against the cluster's KubeVirt settings and KubeVirt's rules.

The cluster settings come from the KubeVirt CR (as the engine renders it or as read from the cluster): emulated
machines per architecture, obsolete CPU models, the default CPU model.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import fnmatch
import re
import typing as t
import uuid
import zoneinfo

from .._common.golang import quantity_value

CPU_FEATURE_POLICIES = ("force", "require", "optional", "disable", "forbid")
PAGE_SIZES = {"amd64": ("2Mi", "1Gi"), "arm64": ("2Mi", "1Gi", "64Ki", "32Mi"), "s390x": ("1Mi",)}
SERIAL = re.compile(r"^[A-Za-z0-9_.+-]+\Z")
INPUT_BUSES = ("virtio", "usb", "")


def _domain(vm: t.Mapping[str, t.Any]) -> tuple[dict[str, t.Any], str]:
    """The domain spec and its path, for a VirtualMachine (template) or a VirtualMachineInstance."""
    spec = vm.get("spec") or {}
    if vm.get("kind") == "VirtualMachine" or "template" in spec:
        return ((spec.get("template") or {}).get("spec") or {}).get("domain") or {}, "spec.template.spec.domain"
    return spec.get("domain") or {}, "spec.domain"


def validate(vm: t.Mapping[str, t.Any], kubevirt: t.Mapping[str, t.Any],
             architecture: str | None = None) -> list[tuple[str, str]]:
    """Every problem as (path, message)."""
    problems: list[tuple[str, str]] = []
    domain, base = _domain(vm)
    configuration = (kubevirt.get("spec") or {}).get("configuration") or {}
    arch_config = configuration.get("architectureConfiguration") or {}
    arch = architecture or ((vm.get("spec") or {}).get("template", {}).get("spec", {}).get("architecture")
                            if vm.get("kind") == "VirtualMachine" else (vm.get("spec") or {}).get("architecture"))
    arch = arch or arch_config.get("defaultArchitecture") or "amd64"
    _machine(problems, domain, base, arch_config.get(arch) or {}, arch)
    _cpu(problems, domain, base, configuration)
    _memory(problems, domain, base, arch)
    _firmware(problems, domain, base)
    _clock(problems, domain, base)
    _inputs(problems, domain, base)
    return problems


def _machine(problems: list[tuple[str, str]], domain: t.Mapping[str, t.Any], base: str,
             arch_config: t.Mapping[str, t.Any], arch: str) -> None:
    machine = (domain.get("machine") or {}).get("type")
    allowed = arch_config.get("emulatedMachines") or []
    if machine and allowed and not any(fnmatch.fnmatchcase(machine, pattern) for pattern in allowed):
        problems.append((f"{base}.machine.type", (f"machine type {machine!r} is not allowed on {arch}; the cluster "
                                                  f"allows {', '.join(allowed)}")))


def _cpu(problems: list[tuple[str, str]], domain: t.Mapping[str, t.Any], base: str,
         configuration: t.Mapping[str, t.Any]) -> None:
    cpu = domain.get("cpu") or {}
    model = cpu.get("model") or configuration.get("cpuModel")
    obsolete = {name for name, flag in (configuration.get("obsoleteCPUModels") or {}).items() if flag}
    if model and model in obsolete:
        problems.append((f"{base}.cpu.model", (f"CPU model {model} is obsolete on this cluster (the node labeller "
                                               "never offers it, so the VM would not schedule)")))
    seen: set[str] = set()
    for index, feature in enumerate(cpu.get("features") or []):
        where = f"{base}.cpu.features[{index}]"
        name = feature.get("name")
        if not name:
            problems.append((f"{where}.name", "required"))
        elif name in seen:
            problems.append((f"{where}.name", f"feature {name} is listed twice"))
        seen.add(str(name))
        policy = feature.get("policy", "require")
        if policy not in CPU_FEATURE_POLICIES:
            problems.append((f"{where}.policy", f"must be one of {', '.join(CPU_FEATURE_POLICIES)}"))
    for field in ("sockets", "cores", "threads"):
        value = cpu.get(field)
        if value is not None and (not isinstance(value, int) or value < 1):
            problems.append((f"{base}.cpu.{field}", "must be an integer of at least 1"))


def _memory(problems: list[tuple[str, str]], domain: t.Mapping[str, t.Any], base: str, arch: str) -> None:
    memory = domain.get("memory") or {}
    page_size = (memory.get("hugepages") or {}).get("pageSize")
    if not page_size:
        return
    where = f"{base}.memory.hugepages.pageSize"
    if page_size not in PAGE_SIZES.get(arch, ()):
        problems.append((where, (f"{page_size} is not a hugepage size on {arch} "
                                 f"({', '.join(PAGE_SIZES.get(arch, ()))})")))
        return
    amount = memory.get("guest") or ((domain.get("resources") or {}).get("requests") or {}).get("memory")
    if amount is None:
        problems.append((f"{base}.memory.guest", ("hugepages need a memory size (memory.guest or "
                                                  "resources.requests.memory)")))
        return
    size, total = quantity_value(page_size), quantity_value(amount)
    if size > total:
        problems.append((where, f"page size {page_size} is larger than the VM memory {amount}"))
    elif total % size:
        problems.append((where, f"VM memory {amount} is not a multiple of the page size {page_size}"))


def _firmware(problems: list[tuple[str, str]], domain: t.Mapping[str, t.Any], base: str) -> None:
    firmware = domain.get("firmware") or {}
    bootloader = firmware.get("bootloader") or {}
    if "bios" in bootloader and "efi" in bootloader:
        problems.append((f"{base}.firmware.bootloader", "choose one of bios (the default) and efi"))
    efi = bootloader.get("efi")
    smm = (domain.get("features") or {}).get("smm")
    if isinstance(efi, dict) and efi.get("secureBoot", True) and isinstance(smm, dict) and smm.get("enabled") is False:
        problems.append((f"{base}.features.smm.enabled", ("EFI secure boot (the default with efi) needs SMM; enable "
                                                          "it or set efi.secureBoot: false")))
    if firmware.get("uuid") is not None:
        try:
            uuid.UUID(str(firmware["uuid"]))
        except ValueError:
            problems.append((f"{base}.firmware.uuid", "must be a UUID (SMBIOS system UUID)"))
    serial = firmware.get("serial")
    if serial is not None and not SERIAL.match(str(serial)):
        problems.append((f"{base}.firmware.serial", ("SMBIOS serial may only contain letters, digits, '_', '.', '+' "
                                                     "and '-'")))


def _clock(problems: list[tuple[str, str]], domain: t.Mapping[str, t.Any], base: str) -> None:
    clock = domain.get("clock") or {}
    if "utc" in clock and "timezone" in clock:
        problems.append((f"{base}.clock", "choose one of utc and timezone"))
    zone = clock.get("timezone")
    if zone is not None and zone not in zoneinfo.available_timezones():
        problems.append((f"{base}.clock.timezone", f"{zone!r} is not an IANA time zone"))


def _inputs(problems: list[tuple[str, str]], domain: t.Mapping[str, t.Any], base: str) -> None:
    for index, device in enumerate((domain.get("devices") or {}).get("inputs") or []):
        where = f"{base}.devices.inputs[{index}]"
        if device.get("type") != "tablet":
            problems.append((f"{where}.type", "only tablet input devices are supported"))
        if device.get("bus", "") not in INPUT_BUSES:
            problems.append((f"{where}.bus", "must be virtio or usb"))
        if not device.get("name"):
            problems.append((f"{where}.name", "required"))
