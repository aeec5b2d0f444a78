# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import ast
import builtins
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
FILES = sorted(p for p in PLUGINS.rglob("*.py") if p.name != "__init__.py")
MODULES = [f"{PACKAGE}.{'.'.join(p.relative_to(PLUGINS).with_suffix('').parts)}" for p in FILES]
BUILTIN_EXCEPTIONS = {name for name, value in vars(builtins).items()
                      if isinstance(value, type) and issubclass(value, BaseException)}


def defined_exceptions() -> list[type]:
    """Every exception class a plugin module defines at its top level (plugins/modules included)."""
    found = []
    for name in MODULES:
        module = importlib.import_module(name)
        found += [c for _n, c in inspect.getmembers(module, inspect.isclass)
                  if issubclass(c, BaseException) and c.__module__ == name]
    return found


def nested_in(source: str) -> list[tuple[str, list[str]]]:
    """(class, its bases as written) for every class defined inside a function or another class, which no import
    shows: found in the source."""
    found = []
    for outer in ast.walk(ast.parse(source)):
        if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found += [(inner.name, [ast.unparse(base).rsplit(".", 1)[-1] for base in inner.bases])
                      for inner in ast.walk(outer) if isinstance(inner, ast.ClassDef) and inner is not outer]
    return found


def test_every_exception_of_the_collection_has_one_root_and_is_refused_or_cluster_failed():
    assert any(".modules." in name for name in MODULES)   # the modules' own files are walked too
    exceptions = defined_exceptions()
    assert len(exceptions) >= 20   # the walk found the collection's exceptions
    outside = [c.__qualname__ for c in exceptions if not issubclass(c, CollectionError)]
    assert outside == []
    both_or_neither = [c.__qualname__ for c in exceptions if c not in (CollectionError, Refused, ClusterFailed)
                       and issubclass(c, Refused) == issubclass(c, ClusterFailed)]
    assert both_or_neither == []
    # Callers catch the root, Refused or ClusterFailed: none of ours is also a ValueError (or any other builtin
    # exception below Exception) that a caller could catch it as.
    builtin = [(c.__qualname__, b.__name__) for c in exceptions for b in c.__mro__
               if b.__name__ in BUILTIN_EXCEPTIONS and b not in (Exception, BaseException)]
    assert builtin == []


def test_an_exception_defined_inside_a_function_or_class_has_the_same_root():
    # The premise: the walk finds a class defined in a function and one defined in a class.
    sample = "def f():\n    class Lost(ValueError):\n        pass\nclass A:\n    class B(errors.Refused):\n        pass\n"
    assert nested_in(sample) == [("Lost", ["ValueError"]), ("B", ["Refused"])]
    ours = {c.__name__ for c in defined_exceptions()}
    outside = [(str(path.relative_to(PLUGINS)), name, bases) for path in FILES
               for name, bases in nested_in(path.read_text(encoding="utf-8"))
               if set(bases) & BUILTIN_EXCEPTIONS and not set(bases) & ours]
    assert outside == []
