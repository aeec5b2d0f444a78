# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The site includes its roles without checking their argument specs in every run (rolespec_validate: false), so
what it gives them is checked here, against the roles' meta/argument_specs.yml: every name it passes is an option
of the role, and every required option is passed."""

from __future__ import annotations

import pathlib
import typing as t

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[3]
ROLES = ("operators", "prerequisites", "hyperconverged")


def options(role: str, entry_point: str = "main") -> dict[str, dict[str, t.Any]]:
    spec = yaml.safe_load((ROOT / "roles" / role / "meta" / "argument_specs.yml").read_text())
    return spec["argument_specs"][entry_point]["options"]


def includes(tasks: list[dict[str, t.Any]], inherited: dict[str, t.Any]) -> t.Iterator[tuple[str, str, dict]]:
    """(task name, role, the vars it is given: its own over its blocks') for every role it includes or imports;
    the role is ROLE or ROLE:ENTRY_POINT where the call names one (tasks_from)."""
    for task in tasks:
        given = {**inherited, **task.get("vars", {})}
        for section in ("block", "rescue", "always"):
            yield from includes(task.get(section, []), given)
        include = task.get("ansible.builtin.include_role") or task.get("ansible.builtin.import_role")
        if include:
            role = include["name"].rpartition(".")[2]
            yield task["name"], role + (f":{include['tasks_from']}" if "tasks_from" in include else ""), given


def site_includes() -> list[tuple[str, str, dict]]:
    """Every role call of the cluster side, with the play's vars (what the site gives every stage) under its own."""
    play = next(play for play in yaml.safe_load((ROOT / "playbooks" / "site.yml").read_text())
                if play["name"].startswith("Configure the cluster"))
    return [call for name in ("cluster_present.yml", "cluster_absent.yml")
            for call in includes(yaml.safe_load((ROOT / "playbooks" / "tasks" / name).read_text()), play["vars"])]


def test_every_role_of_the_cluster_side_is_found():
    found = [role.partition(":")[0] for _name, role, _given in site_includes()]
    assert sorted(set(found)) == sorted(ROLES)
    assert len(found) == 6   # each role twice: to configure and to remove


def test_every_entry_point_the_site_names_exists():
    for name, role, _given in site_includes():
        role, _sep, entry_point = role.partition(":")
        if entry_point:
            assert (ROOT / "roles" / role / "tasks" / f"{entry_point}.yml").is_file(), name
            assert options(role, entry_point), name


def test_each_call_says_its_state():
    # The play's vars hold what every call shares; the state is each call's own.
    for name, role, given in site_includes():
        role = role.partition(":")[0]
        if role != "operators":
            assert given.get(f"{role}_state") in ("present", "absent"), name


@pytest.mark.parametrize("name, role, given", site_includes(), ids=lambda value: value if isinstance(value, str) else "")
def test_the_site_gives_a_role_only_its_options_and_every_required_one(name, role, given):
    role, _sep, entry_point = role.partition(":")
    spec = options(role, entry_point or "main")
    passed = {key for key in given if key.startswith(role + "_")}
    assert passed - spec.keys() == set(), f"{name}: not options of the {role} role"
    required = {key for key, option in spec.items() if option.get("required")}
    assert required - passed == set(), f"{name}: required options of the {role} role not given"


@pytest.mark.parametrize("name, role, given", site_includes(), ids=lambda value: value if isinstance(value, str) else "")
def test_the_site_gives_literal_choices_the_role_accepts(name, role, given):
    # Templated values are checked by the integration tests that run the site; literal ones can be checked here.
    role, _sep, entry_point = role.partition(":")
    spec = options(role, entry_point or "main")
    for key, value in given.items():
        choices = spec.get(key, {}).get("choices")
        if choices and isinstance(value, str) and "{{" not in value:
            assert value in choices, f"{name}: {key}={value!r} is not one of {choices}"
