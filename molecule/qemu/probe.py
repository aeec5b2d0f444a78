"""Everything the QEMU scenario checks about swap on the guest, read in one round trip (under TCG every Ansible task
costs seconds). Prints JSON: active swaps, /etc/crypttab, the virtinfra_swap mapping, loop devices and, for each path
given, whether it exists with its size, mode, blkid result and (for small files) its text."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

MAPPING = "virtinfra_swap"


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def active_swaps() -> dict[str, int]:
    # /proc/swaps names a dm-crypt mapping by its dm node: show it as /dev/mapper/<name>.
    mapped = os.path.realpath(f"/dev/mapper/{MAPPING}")
    swaps = {}
    for line in run("swapon", "--show=NAME,SIZE", "--bytes", "--noheadings").stdout.splitlines():
        name, size = line.split()
        swaps[f"/dev/mapper/{MAPPING}" if name == mapped else name] = int(size)
    return swaps


def mapping() -> dict[str, str] | None:
    if not os.path.exists(f"/dev/mapper/{MAPPING}"):
        return None
    return {"table": run("dmsetup", "table", MAPPING).stdout.strip(),
            "table_with_key": run("dmsetup", "table", "--showkeys", MAPPING).stdout.strip(),
            "blkid": run("blkid", "-p", "-o", "export", f"/dev/mapper/{MAPPING}").stdout,
            "unit_before": run("systemctl", "show", "-p", "Before", "--value",
                               f"dev-mapper-{MAPPING}.swap").stdout.split()}


def file_facts(path: str) -> dict[str, object] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    facts: dict[str, object] = {"size": st.st_size, "mode": f"{stat.S_IMODE(st.st_mode):04o}"}
    if stat.S_ISREG(st.st_mode) and st.st_size > 65536:
        facts["blkid_rc"] = run("blkid", "-p", "-o", "export", path).returncode
    elif stat.S_ISREG(st.st_mode):
        with open(path, encoding="utf-8") as text:
            facts["text"] = text.read()
    return facts


def crypttab() -> list[str]:
    try:
        with open("/etc/crypttab", encoding="utf-8") as table:
            return [line.strip() for line in table if line.strip() and not line.lstrip().startswith("#")]
    except FileNotFoundError:
        return []


print(json.dumps({"swaps": active_swaps(), "crypttab": crypttab(), "mapping": mapping(),
                  "loops": run("losetup", "--noheadings", "--list").stdout.split(),
                  "files": {path: file_facts(path) for path in sys.argv[1:]}}))
