# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NetworkAttachmentDefinitions from raw CNI configs (any plugin, single or conflist), checked as OpenShift's NAD
admission and libcni load them, with the bridge plugin's own rules, and a preview of the addresses whereabouts
hands out.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import ipaddress
import json
import re
import typing as t

from .._common.names import DNS1123_LABEL
from .common import Problems, check_keys, path

NAD_KEYS = frozenset(("name", "namespace", "state", "config", "resource_name"))
RESOURCE_NAME_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName"
AT_ATTACH = ": the bridge plugin would refuse it when a pod attaches"
WHEREABOUTS_RANGE = re.compile(r"^([^-/\s]+)-([^-/\s]+)/(\d+)\Z")
WHEREABOUTS_KEYS = frozenset(("type", "range", "range_start", "range_end", "exclude", "ipRanges", "gateway",
                              "routes", "dns", "kubernetes", "datastore", "etcd_host", "etcd_endpoints", "log_file",
                              "log_level", "configuration_path", "enable_overlapping_ranges",
                              "network_name", "node_slice_size", "sleep_for_race", "leader_lease_duration",
                              "leader_renew_deadline", "leader_retry_period", "reconciler_cron_expression",
                              "kubeconfig"))


def check_input(problems: Problems, nads: t.Any) -> None:
    for index, nad in enumerate(nads if isinstance(nads, list) else []):
        check_keys(problems, path("nads", index), nad, NAD_KEYS)


Objects = list[dict[str, t.Any]]


def plan(problems: Problems, nads: t.Any) -> tuple[Objects, Objects, Objects]:
    """(NADs to apply, NADs to delete, address previews)."""
    objects: list[dict[str, t.Any]] = []
    removed: list[dict[str, t.Any]] = []
    previews: list[dict[str, t.Any]] = []
    if nads is None:
        return objects, removed, previews
    if not isinstance(nads, list):
        problems.error("nads", "must be a list")
        return objects, removed, previews
    for index, nad in enumerate(nads):
        where = path("nads", index)
        if not isinstance(nad, dict):
            problems.error(where, "must be a mapping")
            continue
        name, namespace = check_nad_name(problems, path(where, "name"), nad.get("name")), nad.get("namespace")
        if not isinstance(namespace, str) or not DNS1123_LABEL.match(namespace):
            problems.error(path(where, "namespace"), "a namespace is required")
        state = nad.get("state", "present")
        if state not in ("present", "absent"):
            problems.error(path(where, "state"), "must be present or absent")
        reference = {"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
                     "metadata": {"name": name, "namespace": namespace}}
        if state == "absent":
            removed.append(reference)
            continue
        config = load_config(problems, path(where, "config"), nad.get("config"))
        if config is None:
            continue
        for plugin_at, plugin in _plugins(config, path(where, "config")):
            check_plugin(problems, plugin_at, plugin)
            ipam = plugin.get("ipam")
            if isinstance(ipam, dict) and ipam.get("type") == "whereabouts":
                previews += [{"nad": f"{namespace}/{name}", **p}
                             for p in whereabouts_preview(problems, path(plugin_at, "ipam"), ipam)]
        metadata: dict[str, t.Any] = {"name": name, "namespace": namespace}
        if nad.get("resource_name"):
            metadata["annotations"] = {RESOURCE_NAME_ANNOTATION: nad["resource_name"]}
        built = {"apiVersion": reference["apiVersion"], "kind": reference["kind"], "metadata": metadata,
                 "spec": {"config": json.dumps(config, separators=(",", ":"))}}
        objects.append(built)
    return objects, removed, previews


def check_nad_name(problems: Problems, where: str, name: t.Any) -> str:
    if name is None or name == "":
        problems.error(where, "required: the network's name, as VMs refer to it")
    elif not isinstance(name, str) or len(name) > 253 or not DNS1123_LABEL.match(name) or name.startswith("0"):
        problems.error(where, "must be a lower-case DNS label not starting with 0 (multus admission rule)")
    return str(name)


def load_config(problems: Problems, where: str, raw: t.Any) -> dict[str, t.Any] | None:
    """The config as libcni reads it: JSON (a mapping is taken as given); a conflist needs a name and plugins, each
    with a type; a single plugin needs a type. Its name may differ from the NAD's (Multus uses the NAD's)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.error(where, f"is not valid JSON: {exc}")
            return None
    if not isinstance(raw, dict):
        problems.error(where, "must be a CNI config (a mapping or its JSON text)")
        return None
    if "plugins" in raw:
        if not raw.get("name"):
            problems.error(path(where, "name"), "error parsing configuration list: no name")
        if not isinstance(raw["plugins"], list) or not raw["plugins"]:
            problems.error(path(where, "plugins"), "error parsing configuration list: no plugins in list")
            return None
    for plugin_at, plugin in _plugins(raw, where):
        if not isinstance(plugin, dict) or not isinstance(plugin.get("type"), str) or not plugin["type"]:
            problems.error(path(plugin_at, "type"), "missing 'type'")
            return None
    return raw


def _plugins(config: t.Mapping[str, t.Any], where: str) -> list[tuple[str, t.Any]]:
    if isinstance(config.get("plugins"), list):
        return [(path(where, "plugins", i), p) for i, p in enumerate(config["plugins"])]
    return [(where, config)]


def check_plugin(problems: Problems, where: str, plugin: t.Mapping[str, t.Any]) -> None:
    """What the bridge plugin's loader refuses when a pod attaches (other plugins: their type only), refused now."""
    if plugin.get("type") != "bridge":
        return
    vlan = plugin.get("vlan")
    if vlan is not None and (not isinstance(vlan, int) or isinstance(vlan, bool) or not 0 <= vlan <= 4094):
        problems.error(path(where, "vlan"), f"invalid VLAN ID {vlan} (must be between 0 and 4094){AT_ATTACH}")
    for index, entry in enumerate(plugin.get("vlanTrunk") or []):
        at = path(where, "vlanTrunk", index)
        if not isinstance(entry, dict):
            problems.error(at, "must be {id} or {minID, maxID}")
            continue
        for key in ("id", "minID", "maxID"):
            value = entry.get(key)
            if value is not None and (not isinstance(value, int) or not 1 <= value <= 4094):
                problems.error(path(at, key), f"incorrect trunk id parameter (must be between 1 and 4094){AT_ATTACH}")
        if (entry.get("minID") is None) != (entry.get("maxID") is None):
            problems.error(at, "minID and maxID go together")
        elif entry.get("minID") is not None and entry.get("maxID") is not None and entry["minID"] > entry["maxID"]:
            problems.error(at, f"minID is greater than maxID in trunk parameter{AT_ATTACH}")
    if plugin.get("hairpinMode") and plugin.get("promiscMode"):
        problems.error(where, f"cannot set hairpin mode and promiscuous mode at the same time{AT_ATTACH}")
    if "preserveDefaultVlan" in plugin and not isinstance(plugin["preserveDefaultVlan"], bool):
        problems.error(path(where, "preserveDefaultVlan"), "must be true or false")
    if not plugin.get("bridge"):
        problems.warn(f"{where}: no bridge named: the bridge plugin creates and uses cni0, which no uplink joins")


def _addresses(network: ipaddress.IPv4Network | ipaddress.IPv6Network, start: t.Any, end: t.Any
               ) -> tuple[int, int]:
    """First and last usable address numbers of a range (network and broadcast addresses never handed out)."""
    low, high = int(network.network_address) + 1, int(network.broadcast_address) - 1
    if start is not None:
        low = max(low, int(start))
    if end is not None:
        high = min(high, int(end))
    return low, high


def whereabouts_preview(problems: Problems, where: str, ipam: t.Mapping[str, t.Any]) -> list[dict[str, t.Any]]:
    """Per range (``range``, or each of ``ipRanges``): the first and last address whereabouts can hand out and how
    many, ``exclude`` and ``range_start``/``range_end`` applied; a range with nothing to hand out is a warning."""
    check_keys(problems, where, dict(ipam), WHEREABOUTS_KEYS)
    ranges: list[tuple[str, t.Mapping[str, t.Any]]] = []
    if ipam.get("range"):
        ranges.append((where, ipam))
    for index, entry in enumerate(ipam.get("ipRanges") or []):
        if isinstance(entry, dict) and entry.get("range"):
            ranges.append((path(where, "ipRanges", index), entry))
        else:
            problems.error(path(where, "ipRanges", index), "each entry needs a range")
    if not ranges and not (ipam.get("ipRanges") or []):
        # whereabouts loads it (pkg/config LoadIPAMConfig) and then has no range to allocate from.
        problems.warn(f"{where}: no range or ipRanges: whereabouts hands out no address, so pods attach without one")
    shared = _excluded(problems, path(where, "exclude"), ipam.get("exclude"),
                       "whereabouts refuses the config when a pod attaches")
    previews = []
    for at, entry in ranges:
        own = [] if entry is ipam else _excluded(problems, path(at, "exclude"), entry.get("exclude"),
                                                 "whereabouts cannot allocate from this range")
        preview = None if shared is None or own is None else _preview_range(problems, at, entry, [*shared, *own])
        if preview is not None:
            previews.append(preview)
    gateway = ipam.get("gateway")
    if gateway is not None:
        try:
            ipaddress.ip_address(str(gateway))
        except ValueError:
            problems.error(path(where, "gateway"), f"{gateway!r} is not an IP address")
    return previews


def _excluded(problems: Problems, where: str, entries: t.Any, failure: str) -> list[t.Any] | None:
    """An ``exclude`` list as whereabouts reads it: CIDRs only (Go's net.ParseCIDR needs the prefix); None when one
    is not, with whereabouts' own message."""
    if entries is None:
        return []
    if not isinstance(entries, list):
        problems.error(where, "must be a list of CIDRs")
        return None
    networks = []
    for index, entry in enumerate(entries):
        try:
            if not isinstance(entry, str) or "/" not in entry:
                raise ValueError
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            problems.error(path(where, index), f"invalid CIDR in exclude list {entry}: invalid CIDR address: {entry} "
                                               f"({failure})")
    return networks if len(networks) == len(entries) else None


def parse_range(problems: Problems, where: str, text: t.Any) -> tuple[t.Any, t.Any, t.Any] | None:
    """(network, start, end or None) of a whereabouts range: a CIDR, whose address is where handing out starts, or
    START-END/PREFIX (both ends inside START/PREFIX)."""
    match = WHEREABOUTS_RANGE.match(text) if isinstance(text, str) else None
    if not match:
        try:
            address = str(text).split("/", maxsplit=1)[0]
            return ipaddress.ip_network(str(text), strict=False), ipaddress.ip_address(address), None
        except ValueError:
            problems.error(where, f"{text!r} is not a CIDR")
            return None
    try:
        start, end = ipaddress.ip_address(match.group(1)), ipaddress.ip_address(match.group(2))
        network = ipaddress.ip_network(f"{start}/{match.group(3)}", strict=False)
    except ValueError:
        problems.error(where, f"{text!r} is not a CIDR or a START-END/PREFIX range")
        return None
    if end not in network or int(end) < int(start):  # not in the network: another family, or beyond it
        problems.error(where, f"{text!r}: {end} must follow {start} inside {network}")
        return None
    return network, start, end


def _preview_range(problems: Problems, where: str, entry: t.Mapping[str, t.Any],
                   excluded: t.Sequence[t.Any]) -> dict[str, t.Any] | None:
    text = str(entry.get("range"))
    parsed = parse_range(problems, where, text)
    if parsed is None:
        return None
    network, start, end = parsed
    try:
        if entry.get("range_start"):
            start = max(start, ipaddress.ip_address(str(entry["range_start"]))) if start else \
                ipaddress.ip_address(str(entry["range_start"]))
        if entry.get("range_end"):
            end = min(end, ipaddress.ip_address(str(entry["range_end"]))) if end else \
                ipaddress.ip_address(str(entry["range_end"]))
    except (ValueError, TypeError) as exc:
        problems.error(where, f"{text!r}: {exc}")
        return None
    for bound in (start, end):
        if bound is not None and (bound.version != network.version or bound not in network):
            problems.error(where, f"{bound} lies outside {network}")
            return None
    low, high = _addresses(network, start, end)
    first = last = None
    count = 0
    if high >= low:
        spans = sorted((max(low, int(e.network_address)), min(high, int(e.broadcast_address)))
                       for e in excluded if e.version == network.version)
        count = high - low + 1
        covered: list[tuple[int, int]] = []
        for span_low, span_high in spans:  # merge the excluded spans inside the range, then subtract them
            if span_low > span_high:
                continue
            if covered and span_low <= covered[-1][1] + 1:
                covered[-1] = (covered[-1][0], max(covered[-1][1], span_high))
            else:
                covered.append((span_low, span_high))
        count -= sum(h - lo + 1 for lo, h in covered)
        first = _first_free(low, high, covered)
        last = _first_free(-high, -low, [(-h, -lo) for lo, h in reversed(covered)])
        last = -last if last is not None else None
    address = type(network.network_address)
    result = {"range": text, "network": str(network), "count": count,
              "first": str(address(first)) if first is not None else None,
              "last": str(address(last)) if last is not None else None}
    if count == 0:
        why = ("a /31 or /32 (/127 or /128) has no address besides the network and broadcast ones"
               if network.num_addresses <= 2 else "every address is excluded or outside range_start-range_end")
        problems.warn(f"{where}: whereabouts can hand out no address from {text}: {why}")
    return result


def _first_free(low: int, high: int, covered: t.Sequence[tuple[int, int]]) -> int | None:
    candidate = low
    for span_low, span_high in covered:
        if candidate < span_low:
            break
        candidate = max(candidate, span_high + 1)
    return candidate if candidate <= high else None
