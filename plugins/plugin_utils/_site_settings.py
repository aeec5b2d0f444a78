# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site playbook's flat ``site_*`` settings: one table gives each setting's type, default, choices and range,
the validation the site runs before anything else, and the AWX survey generated from it (extensions/awx).

Survey answers arrive as strings and an empty answer means "use the default"; YAML's type slips (``1.20`` read as a
number) get a hint. PRIVATE; controller side (PyYAML), no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import difflib
import ipaddress
import re
import typing as t

import yaml

_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")
_VLAN_RANGE = re.compile(r"^(\d+)(?:\s*-\s*(\d+))?$")


@dataclasses.dataclass(frozen=True)
class Setting:
    name: str
    kind: str  # str, int, bool, list, dict, vlans
    default: t.Any
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    required: bool = False
    survey: bool = True  # credentials come from AWX credentials, not the survey
    check: t.Callable[[t.Any], str | None] | None = None


def _dns_label(value: t.Any) -> str | None:
    return None if _LABEL.match(value) and len(value) <= 63 else "must be a DNS label (lower case, digits, '-')"


def _version(value: t.Any) -> str | None:
    return None if _VERSION.match(value) else "must be MAJOR.MINOR, e.g. '1.33' or '4.19' (quote it in YAML)"


def _absolute(value: t.Any) -> str | None:
    return None if value.startswith("/") else "must be an absolute path"


def _cidr(value: t.Any) -> str | None:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return "must be a network in CIDR notation, e.g. 10.200.5.0/24"
    return None


def _address_range(value: t.Any) -> str | None:
    """A whereabouts range: CIDR or START-END/PREFIX (node_prereqs checks the ends)."""
    match = re.match(r"^([^-/\s]+)-[^-/\s]+/(\d+)$", value)
    if match and _cidr(f"{match.group(1)}/{match.group(2)}") is None:
        return None
    return None if _cidr(value) is None else "must be a network in CIDR notation (10.200.5.0/24) or START-END/PREFIX"


def _vendor(value: t.Any) -> str | None:
    return None if re.match(r"^[0-9a-f]{4}$", value) else "must be a 4-digit hexadecimal PCI vendor ID, e.g. '8086'"


def _cidrs(value: t.Any) -> str | None:
    bad = [v for v in value if not isinstance(v, str) or _cidr(v)]
    return f"every entry must be a network in CIDR notation; not: {', '.join(map(str, bad))}" if bad else None


def _labels(value: t.Any) -> str | None:
    bad = [k for k, v in value.items() if not isinstance(v, str)]
    return f"label values must be strings (quote them); not: {', '.join(map(str, bad))}" if bad else None


def _batch(value: t.Any) -> str | None:
    """Ansible's serial: a number of hosts or a percentage of them."""
    match = re.fullmatch(r"(\d+)(%?)", str(value).strip())
    if not match or int(match.group(1)) < 1 or (match.group(2) and int(match.group(1)) > 100):
        return f"must be a number of nodes (at least 1) or a percentage such as 25%, got {value!r}"
    return None


def _dicts(value: t.Any) -> str | None:
    return None if all(isinstance(v, dict) for v in value) else "every entry must be a mapping"


SETTINGS: tuple[Setting, ...] = (
    Setting("site_action", "str", "auto", "auto applies when a credential is set (site_kubeconfig, K8S_AUTH_KUBECONFIG, "
            "or K8S_AUTH_HOST with K8S_AUTH_API_KEY) and renders otherwise; render writes the manifests and applies "
            "nothing; apply refuses to run without a credential.", choices=("auto", "render", "apply")),
    Setting("site_kubeconfig", "str", "", "Path of the kubeconfig the cluster side uses (an AWX Kubernetes credential "
            "sets K8S_AUTH_* instead).", survey=False),
    Setting("site_context", "str", "", "Context in that kubeconfig (default: its current context).", survey=False),
    Setting("site_render_dir", "str", "", "Render mode's output directory (default: ./rendered where "
            "ansible-playbook runs)."),
    Setting("site_platform", "str", "kubernetes", "Cluster platform.", choices=("kubernetes", "openshift")),
    Setting("site_platform_version", "str", None, "Kubernetes MAJOR.MINOR, or the OpenShift version on openshift.",
            required=True, check=_version),
    Setting("site_release", "str", "1.20", "HCO release whose defaults are computed.", choices=("1.20", "1.14")),
    Setting("site_mode", "str", "auto", "hco writes the HyperConverged for HCO; standalone writes the operands; auto "
            "picks hco where HCO runs (render mode treats auto as standalone).",
            choices=("auto", "hco", "standalone")),
    Setting("site_hco_namespace", "str", "kubevirt-hyperconverged", "Namespace of the HyperConverged and its "
            "operands.", check=_dns_label),
    Setting("site_preset", "str", "", "Preset applied to the HyperConverged (empty: none).", choices=("", "kkp")),
    Setting("site_adopt", "bool", False, "Take objects that already exist under the names the site writes (a "
            "KubeVirt installed by hand, objects another tool made) into the site's apply sets: they are then "
            "updated, and pruned when they leave the configuration. False: such an object stops the run before "
            "anything is written, named with who manages it."),
    Setting("site_strict", "bool", True, "Refuse a field of the HyperConverged that the release's CRD does not "
            "define (a typo); false drops it with a warning, as the API server would."),
    Setting("site_hyperconverged_spec", "dict", {}, "HyperConverged spec the flat settings merge into; a flat "
            "setting that contradicts it is an error.", survey=False),
    Setting("site_infra_node_selector", "dict", {}, "Node labels of the infrastructure nodes (spec.infra "
            "nodePlacement; empty: anywhere).", check=_labels),
    Setting("site_workload_node_selector", "dict", {"node-role.kubernetes.io/worker": ""}, "Node labels of the nodes "
            "that run VMs (spec.workloads nodePlacement, swap, bridges, SR-IOV).", check=_labels),
    Setting("site_overcommit_percent", "int", 100, "Memory overcommit in percent (HyperConverged "
            "higherWorkloadDensity.memoryOvercommitPercentage); above 100 swap is sized per node.",
            minimum=10, maximum=1000),
    Setting("site_swap_file", "str", "/var/lib/virtinfra/kubevirt.swapfile", "Swap file on each VM node "
            "(Kubernetes).", check=_absolute),
    Setting("site_swap_activate", "bool", True, "Turn the swap file on now, not only at the next boot."),
    Setting("site_swap_encrypt", "bool", False, "Plain dm-crypt over the swap file with a random key per boot "
            "(Kubernetes only)."),
    Setting("site_swap_pool", "str", "", "OpenShift: a custom MachineConfigPool that gives swap to the VM workers "
            "only, when node_selector leaves other workers out (each must carry node-role.kubernetes.io/<pool>); "
            "empty: the worker pool (and master for control-plane VM nodes).",
            check=lambda value: None if value == "" else _dns_label(value)),
    Setting("site_vm_bridge", "str", "br1", "Linux bridge for the VM network.", check=_dns_label),
    Setting("site_vm_bridge_nic", "str", "", "NIC enslaved to the VM bridge (empty: no VM bridge)."),
    Setting("site_vm_vlans", "vlans", [], "VLANs trunked to the VMs: a list of IDs or {min, max} ranges, or text "
            "such as '100-200, 300'."),
    Setting("site_vm_networks", "list", [], "NetworkAttachmentDefinitions on the VM bridge: {name, namespace, "
            "vlan}.", check=_dicts),
    Setting("site_migration_nic", "str", "", "NIC of a dedicated live-migration network (empty: migrations use the "
            "pod network)."),
    Setting("site_migration_range", "str", "", "Address range of the migration network, CIDR or "
            "START-END/PREFIX (required with site_migration_nic).", check=_address_range),
    Setting("site_node_networks", "list", [], "Networks the nodes already use, which the migration range must not "
            "overlap.", check=_cidrs),
    Setting("site_sriov_nic", "str", "", "Physical function whose virtual functions are passed to VMs (empty: no "
            "SR-IOV)."),
    Setting("site_sriov_vendor", "str", "", "PCI vendor ID of that NIC, e.g. '8086' (empty: any).", check=_vendor),
    Setting("site_sriov_num_vfs", "int", 8, "Virtual functions per node.", minimum=1, maximum=256),
    Setting("site_sriov_resource", "str", "vm_sriov", "Resource name of the virtual functions."),
    Setting("site_sriov_network_namespace", "str", "default", "Namespace of the SR-IOV network's "
            "NetworkAttachmentDefinition.", check=_dns_label),
    Setting("site_hpp_pools", "list", [], "Hostpath-provisioner pools: {name, path, storage_class}.", check=_dicts),
    Setting("site_preflight_profile", "str", "production", "Preflight thresholds.",
            choices=("production", "testing")),
    Setting("site_preflight_enforce", "bool", False, "Fail on preflight problems instead of warning."),
    Setting("site_node_batch", "str", "100%", "Nodes prepared at once (the host play's serial): a number or a "
            "percentage; smaller batches roll swap and kubelet restarts through the cluster.", check=_batch),
    Setting("site_node_max_fail_percentage", "int", 0, "Stop the rollout when more than this percentage of a batch "
            "fails (0: stop at the first failed node).", minimum=0, maximum=100),
    Setting("site_admin_kubeconfig", "str", "", "Admin kubeconfig for playbooks/automation_account.yml.",
            survey=False),
    Setting("site_admin_context", "str", "", "Context in the admin kubeconfig.", survey=False),
)
BY_NAME = {s.name: s for s in SETTINGS}

# Facts and variables the playbooks set themselves: never taken for a user's typo.
INTERNAL = frozenset({
    "site_config", "site_nodes", "site_hyperconverged", "site_prereqs_spec", "site_prereqs", "site_output",
    "site_manifests", "site_written", "site_rendered_count", "site_plan", "site_workload", "site_changed_prereqs",
    "site_changed_kubevirt", "site_swap_nodes", "site_drift", "site_warnings", "site_expanded", "site_render",
    "site_account_written", "site_account_read", "site_settings", "site_cluster", "site_run_mode", "site_missing",
})

_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}


@dataclasses.dataclass
class Settings:
    values: dict[str, t.Any]  # every setting, by name without the site_ prefix
    given: set[str]  # names (with the prefix) the user set to a non-blank value
    errors: list[str]


def _blank(value: t.Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _type_name(value: t.Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "text", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def _parse_text(setting: Setting, text: str) -> t.Any:
    """A survey textarea holds YAML (or JSON): the list or mapping it describes."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise ValueError(f"is text that is not valid YAML{where}; give a {setting.kind} in YAML or JSON") from None


def _vlans(value: t.Any) -> list[dict[str, int]]:
    items: list[t.Any]
    if isinstance(value, str) and value.strip().startswith(("[", "{", "-")) and not _VLAN_RANGE.match(value.strip()):
        value = _parse_text(BY_NAME["site_vm_vlans"], value)  # a list in YAML or JSON, as a survey textarea holds
        if isinstance(value, str):
            raise ValueError(f"must be a list of VLAN IDs or {{min, max}} ranges, got {value!r}")
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, int) and not isinstance(value, bool):
        items = [value]
    elif isinstance(value, list):
        items = value
    else:
        raise ValueError(f"must be a list of VLAN IDs or {{min, max}} ranges, or text such as '100-200, 300'; "
                         f"got {_type_name(value)}")
    ranges = []
    for item in items:
        if isinstance(item, dict) and set(item) == {"min", "max"}:
            low, high = item["min"], item["max"]
        elif isinstance(item, int) and not isinstance(item, bool):
            low = high = item
        elif isinstance(item, str) and (match := _VLAN_RANGE.match(item)):
            low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        else:
            raise ValueError(f"entry {item!r} is not a VLAN ID (1-4094), a range 'LOW-HIGH' or {{min, max}}")
        if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 4094 for v in (low, high)) \
                or low > high:
            raise ValueError(f"entry {item!r} is not a VLAN range within 1-4094 (min <= max)")
        ranges.append({"min": low, "max": high})
    return ranges


def _coerce(setting: Setting, value: t.Any) -> t.Any:
    """The value in the setting's type, or ValueError saying what is wrong (without the name)."""
    if setting.kind == "vlans":
        return _vlans(value)
    if setting.kind == "str":
        if isinstance(value, (bool, dict, list)):
            raise ValueError(f"must be text, got {_type_name(value)}")
        if isinstance(value, float):
            raise ValueError(f"must be text; YAML read {value!r} as a number: quote it (e.g. '{value:.2f}')")
        text = str(value).strip()
        if setting.choices and text.lower() in setting.choices:
            text = text.lower()  # OpenShift, Apply: what a person types
        if setting.choices and text not in setting.choices:
            raise ValueError(f"must be one of {', '.join(repr(c) for c in setting.choices if c) or repr('')}"
                             f"{' or empty' if '' in setting.choices else ''}, got {text!r}")
        return text
    if setting.kind == "int":
        if isinstance(value, str) and re.match(r"^\s*[-+]?\d+\s*$", value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be a whole number, got {_type_name(value)} {value!r}")
        if (setting.minimum is not None and value < setting.minimum) or \
                (setting.maximum is not None and value > setting.maximum):
            raise ValueError(f"must be between {setting.minimum} and {setting.maximum}, got {value}")
        return value
    if setting.kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, (str, int)) and str(value).strip().lower() in _TRUE | _FALSE:
            return str(value).strip().lower() in _TRUE
        raise ValueError(f"must be true or false, got {_type_name(value)} {value!r}")
    expected = {"list": list, "dict": dict}[setting.kind]
    if isinstance(value, str):
        value = _parse_text(setting, value)
        if value is None:
            return setting.default
    if not isinstance(value, expected):
        raise ValueError(f"must be a {'list' if expected is list else 'mapping'}, got {_type_name(value)}")
    return value


def _unknown(name: str) -> str:
    close = difflib.get_close_matches(name, list(BY_NAME), n=1, cutoff=0.75)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{name}: not a site setting{hint}; the collection's docs/docsite/rst/guide_site_settings.rst lists them"


def normalize(provided: t.Mapping[str, t.Any]) -> Settings:
    """Every ``site_*`` value from ``provided`` (the play's variables) checked and typed; defaults for the rest.
    Unknown ``site_*`` names are errors, with a suggestion."""
    values: dict[str, t.Any] = {}
    given: set[str] = set()
    errors = [_unknown(name) for name in sorted(provided)
              if name.startswith("site_") and name not in BY_NAME and name not in INTERNAL]
    for setting in SETTINGS:
        raw = provided.get(setting.name)
        short = setting.name[len("site_"):]
        if _blank(raw) or (setting.kind in ("list", "dict", "vlans") and raw in ([], {})):
            values[short] = setting.default
            if setting.required:
                errors.append(f"{setting.name}: required ({setting.description})")
            continue
        try:
            value = _coerce(setting, raw)
            problem = setting.check(value) if setting.check and value not in ("", [], {}) else None
            if problem:
                raise ValueError(f"{problem}, got {value!r}")
        except ValueError as exc:
            errors.append(f"{setting.name}: {exc}")
            values[short] = setting.default
            continue
        values[short] = value
        given.add(setting.name)
    return Settings(values, given, errors + _consistency(values, given))


# Flat settings that are shortcuts for a field of the HyperConverged spec.
SPEC_PATHS: dict[str, tuple[str, ...]] = {
    "overcommit_percent": ("higherWorkloadDensity", "memoryOvercommitPercentage"),
    "infra_node_selector": ("infra", "nodePlacement", "nodeSelector"),
    "workload_node_selector": ("workloads", "nodePlacement", "nodeSelector"),
}


def _consistency(values: dict[str, t.Any], given: set[str]) -> list[str]:
    errors = []
    if values["migration_nic"] and not values["migration_range"]:
        errors.append("site_migration_range: required with site_migration_nic "
                      f"({values['migration_nic']!r}): the migration network's address range")
    if values["migration_range"] and not values["migration_nic"]:
        errors.append("site_migration_range: set without site_migration_nic; give both, or neither for no "
                      "dedicated migration network")
    if values["vm_networks"] and not values["vm_bridge_nic"]:
        errors.append("site_vm_networks: set without site_vm_bridge_nic, the NIC of the bridge they attach to")
    spec = values["hyperconverged_spec"]
    # The migration NIC makes the prerequisites set liveMigrationConfig.network to their own NAD.
    for short, path in (*SPEC_PATHS.items(), ("migration_nic", ("liveMigrationConfig", "network"))):
        name, found = f"site_{short}", _from_spec(spec, *path)
        flat = values[short] if short in SPEC_PATHS else None
        if name in given and found is not None and found != flat:
            errors.append(f"{name}: contradicts site_hyperconverged_spec.{'.'.join(path)} ({found!r}); set one of "
                          "the two")
    return errors


def _from_spec(spec: dict[str, t.Any], *path: str) -> t.Any:
    found: t.Any = spec
    for key in path:
        found = found.get(key) if isinstance(found, dict) else None
    return found


def effective(settings: Settings) -> dict[str, t.Any]:
    """The values the site uses: where the HyperConverged spec gives what an unset flat setting would, the spec's
    value (the two never contradict: normalize refuses that)."""
    values = dict(settings.values)
    spec = values["hyperconverged_spec"]
    for name, path in SPEC_PATHS.items():
        found = _from_spec(spec, *path)
        if f"site_{name}" not in settings.given and found is not None:
            values[name] = found
    return values


def _merge(base: dict[str, t.Any], over: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    merged = dict(base)
    for key, value in over.items():
        merged[key] = _merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) \
            else value
    return merged


def compose(settings: Settings, nodes: list[dict[str, t.Any]]) -> tuple[dict[str, t.Any], dict[str, t.Any]]:
    """The HyperConverged (spec from site_hyperconverged_spec, placement from the flat settings that were given) and
    the node-prerequisites spec; a section whose settings are empty (no bridge NIC, no SR-IOV NIC, no pools) is left
    out rather than planned with blanks."""
    values = effective(settings)
    placement: dict[str, t.Any] = {}
    if "site_infra_node_selector" in settings.given:
        placement["infra"] = {"nodePlacement": {"nodeSelector": values["infra_node_selector"]}}
    if "site_workload_node_selector" in settings.given:
        placement["workloads"] = {"nodePlacement": {"nodeSelector": values["workload_node_selector"]}}
    hyperconverged = {
        "apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
        "metadata": {"name": "kubevirt-hyperconverged", "namespace": values["hco_namespace"]},
        "spec": _merge(placement, values["hyperconverged_spec"]),
    }
    vm_nodes = values["workload_node_selector"]
    spec: dict[str, t.Any] = {
        "platform": values["platform"], "version": values["platform_version"],
        "hco_namespace": values["hco_namespace"], "nodes": nodes, "hyperconverged": hyperconverged,
        # hco_version: whether HCO deploys wasp-agent itself follows the release whose operands are computed.
        "swap": {"overcommit_percent": values["overcommit_percent"], "node_selector": vm_nodes,
                 "encrypt": values["swap_encrypt"], "hco_version": values["release"]},
    }
    if values["swap_pool"]:
        spec["swap"]["pool"] = values["swap_pool"]
    networking: dict[str, t.Any] = {}
    if values["vm_bridge_nic"]:
        networking["bridges"] = [{"name": values["vm_bridge"], "ports": [values["vm_bridge_nic"]],
                                  "vlans": values["vm_vlans"], "node_selector": vm_nodes,
                                  "networks": values["vm_networks"]}]
    if values["migration_nic"]:
        networking["migration_network"] = {"nic": values["migration_nic"], "range": values["migration_range"]}
    if networking:
        spec["networking"] = {"node_networks": values["node_networks"], **networking}
    if values["sriov_nic"]:
        nic_selector: dict[str, t.Any] = {"pfNames": [values["sriov_nic"]]}
        if values["sriov_vendor"]:
            nic_selector = {"vendor": values["sriov_vendor"], **nic_selector}
        spec["sriov"] = {
            "policies": [{"name": "vm-vfs", "resourceName": values["sriov_resource"], "nodeSelector": vm_nodes,
                          "numVfs": values["sriov_num_vfs"], "nicSelector": nic_selector}],
            "networks": [{"name": "sriov-vm", "resourceName": values["sriov_resource"],
                          "networkNamespace": values["sriov_network_namespace"]}]}
    if values["hpp_pools"]:
        spec["storage"] = {"hyperconverged": hyperconverged, "provisioner": {"storage_pools": values["hpp_pools"]}}
    return hyperconverged, spec


def survey(name: str = "virtinfra.hyperconverged site") -> dict[str, t.Any]:
    """An AWX/AAP job template survey (the /api/v2/job_templates/N/survey_spec/ body) for the survey settings."""
    questions = []
    for setting in SETTINGS:
        if not setting.survey:
            continue
        question: dict[str, t.Any] = {
            "variable": setting.name, "question_name": setting.name,
            "question_description": setting.description, "required": setting.required, "new_question": True,
        }
        default = setting.default
        if setting.kind == "int":
            question.update(type="integer", min=setting.minimum, max=setting.maximum, default=default)
        elif setting.kind == "bool":
            question.update(type="multiplechoice", choices=["true", "false"], default=str(default).lower())
        elif setting.choices:
            question.update(type="multiplechoice", choices=[c for c in setting.choices if c],
                            default=default, required=setting.required and "" not in setting.choices)
        elif setting.kind in ("list", "dict", "vlans"):
            text = yaml.safe_dump(default, default_flow_style=True, width=1000).strip() if default else ""
            question.update(type="textarea", min=0, max=4096, default=text)
        else:
            question.update(type="text", min=0, max=1024, default=default or "")
        questions.append(question)
    return {"name": name, "description": "Generated from the site settings table "
                                         "(plugins/plugin_utils/_site_settings.py); do not edit.",
            "spec": questions}


def _rst_default(setting: Setting) -> str:
    if setting.required:
        return "(required)"
    if setting.default in ("", [], {}):
        return "(empty)"
    text = yaml.safe_dump(setting.default, default_flow_style=True, width=1000).strip()
    return f"``{text.removesuffix(chr(10) + '...').strip()}``"


def settings_rst() -> str:
    """The settings guide (docs/docsite/rst/guide_site_settings.rst), generated from the same table."""
    rows = []
    for setting in SETTINGS:
        kind = {"vlans": "VLANs", "dict": "mapping"}.get(setting.kind, setting.kind)
        allowed = ", ".join(f"``{c}``" for c in setting.choices if c)
        if setting.minimum is not None:
            allowed = f"{setting.minimum} to {setting.maximum}"
        text = setting.description + (f" One of: {allowed}." if setting.choices else
                                      f" From {allowed}." if allowed else "")
        if not setting.survey:
            text += " Not in the survey."
        rows.append(f"   * - ``{setting.name}``\n     - {kind}\n     - {_rst_default(setting)}\n     - {text}")
    return f"""\
.. Generated from plugins/plugin_utils/_site_settings.py by scripts/generate-site-settings; do not edit.

.. _ansible_collections.virtinfra.hyperconverged.docsite.guide_site_settings:

Site settings
=============

The site playbook (``virtinfra.hyperconverged.site``) is configured by flat ``site_*`` variables, from the
inventory, ``group_vars``, extra vars or an AWX survey. Its first task, ``virtinfra.hyperconverged.site_settings``,
checks all of them before anything is contacted or written and reports every problem at once, each with the
variable's name:

- an unknown ``site_*`` name is refused, with a suggestion (``site_overcomit_percent``: did you mean
  ``site_overcommit_percent``?);
- a value of the wrong type, outside its choices or its range is refused; YAML's slips get a hint
  (``site_release: 1.20`` is read as the number 1.2: quote it);
- survey answers arrive as text and are converted: ``"150"`` to 150, ``"true"`` to true, YAML or JSON text to a list
  or mapping, ``"100-200, 300"`` to VLAN ranges; an empty answer means the default;
- ``site_hyperconverged_spec`` is the HyperConverged spec; the flat settings merge into it and a flat setting that
  contradicts it is an error naming both;
- a section whose NIC is empty is left out: no VM bridge without ``site_vm_bridge_nic``, no dedicated migration
  network without ``site_migration_nic``, no SR-IOV without ``site_sriov_nic``.

The AWX survey ``extensions/awx/site_survey.json`` in the collection is generated from the same table (credentials
come from AWX credentials, not the survey).

.. list-table::
   :header-rows: 1
   :widths: 25 10 20 45

   * - Variable
     - Type
     - Default
     - Meaning
{chr(10).join(rows)}
"""
