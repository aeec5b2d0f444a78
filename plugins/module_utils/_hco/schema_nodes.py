# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node types of a structural schema: each applies defaults, prunes unknown fields and checks its value as the
API server does for a CRD's OpenAPI v3 schema. PRIVATE."""

from __future__ import annotations

import copy
import dataclasses
import typing as t

from .._common.errors import FieldError, join_path
from .._common.golang import QUANTITY_PATTERN, go_regexp

MISSING: t.Any = object()
# t.Optional, not X | None: ansible-test sanity's pylint reads | in a module-level alias as an unsupported operation.
Rule = t.Callable[[t.Any], t.Optional[str]]  # noqa: UP045


@dataclasses.dataclass(frozen=True, kw_only=True)
class Node:
    default: t.Any = MISSING
    rules: tuple[Rule, ...] = ()

    type_name: t.ClassVar[str] = "any"

    def accepts(self, value: t.Any) -> bool:
        return True

    def check(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if not self.accepts(value):
            errors.append(FieldError(path, f"Invalid value: {shown(value)}: must be of type {self.type_name}"))
            return
        self.check_value(value, path, errors)
        for rule in self.rules:
            message = rule(value)
            if message:
                errors.append(FieldError(path, f"Invalid value: {self.type_name}: {message}"))

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        """Checks beyond the type; overridden per kind."""

    def apply_defaults(self, value: t.Any) -> t.Any:
        return value

    def prune(self, value: t.Any, path: str, pruned: list[str]) -> t.Any:
        return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class AnyValue(Node):
    """Kept as given (Kubernetes core types we pass through unchanged)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Str(Node):
    enum: tuple[str, ...] = ()
    pattern: str | None = None
    min_length: int | None = None
    type_name: t.ClassVar[str] = "string"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, str)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if self.enum and value not in self.enum:
            allowed = ", ".join(f'"{e}"' for e in self.enum)
            errors.append(FieldError(path, f'Unsupported value: "{value}": supported values: {allowed}'))
        if self.pattern is not None and not go_regexp(self.pattern).search(value):
            errors.append(FieldError(path, f'Invalid value: "{value}": should match \'{self.pattern}\''))
        if self.min_length is not None and len(value) < self.min_length:
            errors.append(FieldError(path, f'Invalid value: "{value}": should be at least {self.min_length} chars long'))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Int(Node):
    minimum: int | None = None
    type_name: t.ClassVar[str] = "integer"

    def accepts(self, value: t.Any) -> bool:
        return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if self.minimum is not None and value < self.minimum:
            errors.append(FieldError(path, f"Invalid value: {shown(value)}: should be greater than or equal to {self.minimum}"))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Bool(Node):
    type_name: t.ClassVar[str] = "boolean"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, bool)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Quantity(Node):
    """``x-kubernetes-int-or-string`` with the Kubernetes quantity pattern."""

    type_name: t.ClassVar[str] = "string"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if isinstance(value, str) and not QUANTITY_PATTERN.match(value):
            errors.append(FieldError(path, f'Invalid value: "{value}": should match \'{QUANTITY_PATTERN.pattern}\''))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Arr(Node):
    items: Node = AnyValue()
    max_items: int | None = None
    type_name: t.ClassVar[str] = "array"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, list)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        if self.max_items is not None and len(value) > self.max_items:
            errors.append(FieldError(path, f"Too many: {len(value)}: must have at most {self.max_items} items"))
        for index, item in enumerate(value):
            self.items.check(item, join_path(path, index), errors)

    def apply_defaults(self, value: t.Any) -> t.Any:
        if isinstance(value, list):
            return [self.items.apply_defaults(v) for v in value]
        return value

    def prune(self, value: t.Any, path: str, pruned: list[str]) -> t.Any:
        if isinstance(value, list):
            return [self.items.prune(v, join_path(path, i), pruned) for i, v in enumerate(value)]
        return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class MapOf(Node):
    values: Node = AnyValue()
    type_name: t.ClassVar[str] = "object"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, dict)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        for key, item in value.items():
            self.values.check(item, join_path(path, key), errors)

    def apply_defaults(self, value: t.Any) -> t.Any:
        if isinstance(value, dict):
            return {k: self.values.apply_defaults(v) for k, v in value.items()}
        return value

    def prune(self, value: t.Any, path: str, pruned: list[str]) -> t.Any:
        if isinstance(value, dict):
            return {k: self.values.prune(v, join_path(path, k), pruned) for k, v in value.items()}
        return value


@dataclasses.dataclass(frozen=True, kw_only=True)
class Obj(Node):
    fields: t.Mapping[str, Node] = dataclasses.field(default_factory=dict)
    required: tuple[str, ...] = ()
    type_name: t.ClassVar[str] = "object"

    def accepts(self, value: t.Any) -> bool:
        return isinstance(value, dict)

    def check_value(self, value: t.Any, path: str, errors: list[FieldError]) -> None:
        for name in self.required:
            if name not in value:
                errors.append(FieldError(join_path(path, name), "Required value"))
        for key, item in value.items():
            node = self.fields.get(key)
            if node is not None and item is not None:
                node.check(item, join_path(path, key), errors)

    def apply_defaults(self, value: t.Any) -> t.Any:
        if not isinstance(value, dict):
            return value
        result = dict(value)
        for name, node in self.fields.items():
            if name not in result and node.default is not MISSING:
                result[name] = copy.deepcopy(node.default)
            if name in result:
                result[name] = node.apply_defaults(result[name])
        return result

    def prune(self, value: t.Any, path: str, pruned: list[str]) -> t.Any:
        if not isinstance(value, dict):
            return value
        result = {}
        for key, item in value.items():
            node = self.fields.get(key)
            if node is None:
                pruned.append(join_path(path, key))
                continue
            # A null on a non-nullable field is dropped by the API server, like an unknown one.
            if item is None:
                continue
            result[key] = node.prune(item, join_path(path, key), pruned)
        return result


def shown(value: t.Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)
