# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import importlib
import inspect
import pathlib

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import (
    ClusterFailed,
    CollectionError,
    Refused,
)

PLUGINS = pathlib.Path(__file__).resolve().parents[2] / "plugins"
PACKAGE = "ansible_collections.virtinfra.hyperconverged.plugins"
MODULES = sorted(f"{PACKAGE}.{'.'.join(p.relative_to(PLUGINS).with_suffix('').parts)}"
                 for p in PLUGINS.rglob("*.py") if p.name != "__init__.py" and "modules" not in p.parts)


def defined_exceptions() -> list[type]:
    found = []
    for name in MODULES:
        module = importlib.import_module(name)
        found += [c for _n, c in inspect.getmembers(module, inspect.isclass)
                  if issubclass(c, BaseException) and c.__module__ == name]
    return found


def test_every_exception_of_the_collection_has_one_root_and_is_refused_or_cluster_failed():
    exceptions = defined_exceptions()
    assert len(exceptions) >= 20   # the walk found the collection's exceptions
    outside = [c.__qualname__ for c in exceptions if not issubclass(c, CollectionError)]
    assert outside == []
    both_or_neither = [c.__qualname__ for c in exceptions if c not in (CollectionError, Refused, ClusterFailed)
                       and issubclass(c, Refused) == issubclass(c, ClusterFailed)]
    assert both_or_neither == []
