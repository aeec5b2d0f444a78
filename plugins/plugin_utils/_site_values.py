# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``site_*`` values as the site uses them: each one typed and checked against the settings table, taken from a
survey answer, the play's variables (inventory, group vars, extra vars) or the default, with where it came from.

Survey answers arrive as strings and an empty answer means "not answered"; YAML's type slips (``1.20`` read as a
number) get a hint. PRIVATE; controller side (PyYAML), no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import typing as t

import yaml

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import Refused
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._operators.catalog import HCO_PACKAGES
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._prereqs.common import type_name
from ansible_collections.virtinfra.hyperconverged.plugins.plugin_utils._site_settings import BY_NAME, INTERNAL, SETTINGS, Setting

_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}
_VLAN_RANGE = re.compile(r"^(\d+)(?:\s*-\s*(\d+))?\Z")


# AWX sends the default of every survey question as an extra var, and extra vars hide the inventory's value of the
# same name. So the survey asks under names of its own (site_survey_<setting>) and has no defaults: an unanswered
# question leaves the inventory's value in force.
SURVEY_PREFIX = "site_survey_"


def survey_variable(setting: Setting) -> str:
    """The variable the survey's question for ``setting`` sets."""
    return SURVEY_PREFIX + setting.name[len("site_"):]


SURVEYED = {survey_variable(s): s for s in SETTINGS if s.survey}


@dataclasses.dataclass(frozen=True)
class Settings:
    values: dict[str, t.Any]  # every setting, by name without the site_ prefix
    given: frozenset[str]  # settings (site_ names) the user set to a non-blank value, in any of the places
    errors: tuple[str, ...]
    sources: dict[str, str]  # setting name -> where its value came from, in words


def _blank(value: t.Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _parse_text(setting: Setting, text: str) -> t.Any:
    """A survey textarea holds YAML (or JSON): the list or mapping it describes."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise Refused(f"is text that is not valid YAML{where}; give a {setting.kind} in YAML or JSON") from None


def _vlans(value: t.Any) -> list[dict[str, int]]:
    items: list[t.Any]
    if isinstance(value, str) and value.strip().startswith(("[", "{", "-")) and not _VLAN_RANGE.match(value.strip()):
        value = _parse_text(BY_NAME["site_vm_vlans"], value)  # a list in YAML or JSON, as a survey textarea holds
        if isinstance(value, str):
            raise Refused(f"must be a list of VLAN IDs or {{min, max}} ranges, got {value!r}")
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, int) and not isinstance(value, bool):
        items = [value]
    elif isinstance(value, list):
        items = value
    else:
        raise Refused(f"must be a list of VLAN IDs or {{min, max}} ranges, or text such as '100-200, 300'; "
                      f"got {type_name(value)}")
    ranges = []
    for item in items:
        if isinstance(item, dict) and set(item) == {"min", "max"}:
            low, high = item["min"], item["max"]
        elif isinstance(item, int) and not isinstance(item, bool):
            low = high = item
        elif isinstance(item, str) and (match := _VLAN_RANGE.match(item)):
            low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        else:
            raise Refused(f"entry {item!r} is not a VLAN ID (1-4094), a range 'LOW-HIGH' or {{min, max}}")
        if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 4094 for v in (low, high)) \
                or low > high:
            raise Refused(f"entry {item!r} is not a VLAN range within 1-4094 (min <= max)")
        ranges.append({"min": low, "max": high})
    return ranges


def _coerce(setting: Setting, value: t.Any) -> t.Any:
    """The value in the setting's type, or Refused saying what is wrong (without the name)."""
    if setting.kind == "vlans":
        return _vlans(value)
    if setting.kind == "str":
        if isinstance(value, (bool, dict, list)):
            raise Refused(f"must be text, got {type_name(value)}")
        if isinstance(value, float):
            raise Refused(f"must be text; YAML read {value!r} as a number: quote it (e.g. '{value:.2f}')")
        text = str(value).strip()
        if setting.choices and text.lower() in setting.choices:
            text = text.lower()  # OpenShift, Apply: what a person types
        if setting.choices and text not in setting.choices:
            raise Refused(f"must be one of {', '.join(repr(c) for c in setting.choices if c) or repr('')}"
                          f"{' or empty' if '' in setting.choices else ''}, got {text!r}")
        return text
    if setting.kind == "int":
        if isinstance(value, str) and re.match(r"^\s*[-+]?\d+\s*\Z", value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise Refused(f"must be a whole number, got {type_name(value)} {value!r}")
        if (setting.minimum is not None and value < setting.minimum) or \
                (setting.maximum is not None and value > setting.maximum):
            raise Refused(f"must be between {setting.minimum} and {setting.maximum}, got {value}")
        return value
    if setting.kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, (str, int)) and str(value).strip().lower() in _TRUE | _FALSE:
            return str(value).strip().lower() in _TRUE
        raise Refused(f"must be true or false, got {type_name(value)} {value!r}")
    expected = {"list": list, "dict": dict}[setting.kind]
    if isinstance(value, str):
        value = _parse_text(setting, value)
        if value is None:
            return setting.default
    if not isinstance(value, expected):
        raise Refused(f"must be a {'list' if expected is list else 'mapping'}, got {type_name(value)}")
    return value


def _unknown(name: str) -> str:
    known = list(SURVEYED) if name.startswith(SURVEY_PREFIX) else list(BY_NAME)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
    hint = f" (did you mean {close[0]}?)" if close else ""
    what = "a survey question's variable" if name.startswith(SURVEY_PREFIX) else "a site setting"
    return f"{name}: not {what}{hint}; the collection's docs/docsite/rst/guide_site_settings.rst lists them"


def _is_unknown(name: str) -> bool:
    return name.startswith("site_") and name not in BY_NAME and name not in INTERNAL and name not in SURVEYED


def _unset(setting: Setting, raw: t.Any) -> bool:
    return _blank(raw) or (setting.kind in ("list", "dict", "vlans") and raw in ([], {}))


def _pick(setting: Setting, provided: t.Mapping[str, t.Any], extra_vars: t.Collection[str]) -> tuple[str, t.Any, str]:
    """(the variable the value is read from, the raw value, where it came from): an answered survey question, else
    the setting as the play's variables hold it, else nothing."""
    answer = survey_variable(setting)
    if setting.survey and not _unset(setting, provided.get(answer)):
        return answer, provided[answer], f"survey answer ({answer})"
    if not _unset(setting, provided.get(setting.name)):
        where = "extra vars" if setting.name in extra_vars else "inventory or play vars"
        return setting.name, provided[setting.name], where
    return setting.name, None, "default"


def normalize(provided: t.Mapping[str, t.Any], extra_vars: t.Collection[str] = ()) -> Settings:
    """Every ``site_*`` value from ``provided`` (the play's variables) checked and typed; defaults for the rest.
    Unknown ``site_*`` names are errors, with a suggestion; ``extra_vars`` names the variables given as extra vars
    (only to say where a value came from)."""
    values: dict[str, t.Any] = {}
    given: set[str] = set()
    sources: dict[str, str] = {}
    errors = [_unknown(name) for name in sorted(provided) if _is_unknown(name)]
    for setting in SETTINGS:
        short = setting.name[len("site_"):]
        name, raw, sources[setting.name] = _pick(setting, provided, extra_vars)
        values[short] = setting.default
        if raw is None:
            if setting.required:
                errors.append(f"{setting.name}: required ({setting.description}); set it in the inventory "
                              f"(group_vars) or answer the survey's question")
            continue
        try:
            value = _coerce(setting, raw)
            problem = setting.check(value) if setting.check and value not in ("", [], {}) else None
            if problem:
                raise Refused(f"{problem}, got {value!r}")
        except Refused as exc:
            errors.append(f"{name}: {exc}")
            continue
        values[short] = value
        given.add(setting.name)
    return Settings(values, frozenset(given), tuple(errors + _consistency(values, given)), sources)


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
    hco_package = HCO_PACKAGES["openshift"]
    if (values["operators_source"] == "olm" and values["platform"] == "openshift"
            and values["hco_namespace"] != hco_package[1]):
        errors.append(f"site_hco_namespace: {values['hco_namespace']!r}, but through OLM on OpenShift HCO "
                      f"({hco_package[0]}) runs in {hco_package[1]} and reconciles a HyperConverged there only; set "
                      f"site_hco_namespace: {hco_package[1]}")
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


def effective_sources(settings: Settings) -> dict[str, str]:
    """Where each effective value came from (see effective), by setting name."""
    sources = dict(settings.sources)
    spec = settings.values["hyperconverged_spec"]
    for name, path in SPEC_PATHS.items():
        if f"site_{name}" not in settings.given and _from_spec(spec, *path) is not None:
            sources[f"site_{name}"] = f"site_hyperconverged_spec.{'.'.join(path)}"
    return sources
