# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The operators stage's input, typed once (the action plugin builds it from its options).

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import types
import typing as t

from . import catalog

Source = t.Literal["olm", "manifests"]
# The stage's options as its problems name them: the operators role's variables, unless the caller gives its own
# words (the site's site_* settings), so a problem names what the user wrote.
OPTIONS = ("source", "state", "platform", "release", "operators", "namespace", "versions", "manifests_dir",
           "manifests_url", "checksums", "approval", "csvs", "catalog_source", "catalog_namespace", "channel",
           "placement")
ROLE_NAMES: t.Mapping[str, str] = types.MappingProxyType(
    {option: "operators_names" if option == "operators" else f"operators_{option}" for option in OPTIONS})


@dataclasses.dataclass(frozen=True)
class Settings:
    source: Source
    platform: catalog.Platform
    release: str
    operators: tuple[str, ...]                  # keys, in any order; catalog order is used
    namespace: str                              # the operands' namespace (colocated operators, OLM on Kubernetes)
    state: t.Literal["present", "absent"] = "present"
    versions: t.Mapping[str, str] = dataclasses.field(default_factory=dict)
    manifests_dir: str = ""
    manifests_url: str = ""
    checksums: t.Mapping[str, str] = dataclasses.field(default_factory=dict)
    skip: frozenset[tuple[str, str, str]] = frozenset()   # (kind, namespace, name) the operands' apply set writes
    # The site's own objects of an operator's instance kind (catalog.Instance): the instance is written as given.
    instances: tuple[t.Mapping[str, t.Any], ...] = ()
    approval: t.Literal["Automatic", "Manual"] = "Automatic"
    csvs: t.Mapping[str, str] = dataclasses.field(default_factory=dict)
    catalog_source: str = ""
    catalog_namespace: str = ""
    channel: str = "stable"
    placement: t.Mapping[str, t.Any] = dataclasses.field(default_factory=dict)   # Subscription spec.config
    adopt: bool = False
    check_mode: bool = False
    wait_timeout: float = 900.0
    # option -> the name the user gave it (a factory: Python 3.11 refuses an unhashable default such as a mapping)
    names: t.Mapping[str, str] = dataclasses.field(default_factory=lambda: ROLE_NAMES)

    def named(self, option: str) -> str:
        """What the user calls ``option`` (``versions`` -> ``operators_versions``, or the site's setting)."""
        return self.names.get(option, option)

    @staticmethod
    def from_objects(objects: t.Sequence[t.Mapping[str, t.Any]]) -> dict[str, t.Any]:
        """What the objects the site writes decide: the operators serving their kinds (catalog order), the objects
        left to the site's own apply sets (``skip``), and the site's own instances of an operator's instance kind."""
        return {
            "operators": tuple(op.key for op in catalog.needed(str(o.get("apiVersion", "")) for o in objects)),
            "skip": frozenset((str(o.get("kind")), str((o.get("metadata") or {}).get("namespace") or ""),
                               str((o.get("metadata") or {}).get("name"))) for o in objects),
            "instances": tuple(o for o in objects if o.get("kind") in catalog.INSTANCE_KINDS),
        }

    def chosen(self) -> list[catalog.Operator]:
        return [op for op in catalog.OPERATORS if op.key in self.operators]

    def home(self, op: catalog.Operator) -> str:
        """The namespace this site installs ``op`` in."""
        return self.namespace if op.colocated else op.namespace

    def problems(self) -> list[str]:
        found = [f"{self.named('operators')}[{i}]: {key!r} is not an operator this collection installs (one of "
                 f"{', '.join(op.key for op in catalog.OPERATORS)})"
                 for i, key in enumerate(self.operators) if key not in catalog.BY_KEY]
        if self.source == "manifests" and self.manifests_dir and self.manifests_url:
            found.append(f"{self.named('manifests_dir')} and {self.named('manifests_url')}: give one (the directory is "
                         "for air-gapped sites)")
        if self.release not in catalog.PINS:
            found.append(f"{self.named('release')}: {self.release!r} is not a release profile "
                         f"({', '.join(catalog.PINS)})")
        return found
