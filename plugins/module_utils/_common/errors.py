# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection's exceptions' roots, and the field errors shared by the engine, the prerequisites and the presets.

Every exception raised under plugins/ derives from CollectionError: Refused when the collection refuses its input
(the user's words name what is wrong), ClusterFailed when the cluster, the network or a file it reads fails it.
A caller catches either, or both as CollectionError, in one place. PRIVATE."""

from __future__ import annotations

import dataclasses
import typing as t


class CollectionError(Exception):
    """Anything this collection raises."""


class Refused(CollectionError):
    """The collection refused its input."""


class ClusterFailed(CollectionError):
    """The cluster (or the way to it, or a file read for it) failed the collection."""


@dataclasses.dataclass(frozen=True)
class FieldError:
    """One problem with the input, at a dotted field path (``spec.certConfig.ca.duration``)."""

    path: str
    message: str
    stage: str = "schema"

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message, "stage": self.stage}

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class RenderError(Refused):
    """The input is refused; ``errors`` lists every problem found, each with its path."""

    def __init__(self, errors: t.Sequence[FieldError], warnings: t.Sequence[str] = ()) -> None:
        self.errors = list(errors)
        self.warnings = list(warnings)
        summary = "; ".join(str(e) for e in self.errors[:5])
        more = f" (and {len(self.errors) - 5} more)" if len(self.errors) > 5 else ""
        super().__init__(f"HyperConverged refused with {len(self.errors)} error(s): {summary}{more}")

    @property
    def listed(self) -> str:
        """Every error, one after the other."""
        return "; ".join(str(e) for e in self.errors)


class BuildError(Refused):
    """An operand builder failed the way HCO's builder would (jsonpatch, tuning policy, IP, ...)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message

    def as_field_error(self) -> FieldError:
        return FieldError(self.path, self.message, "validating-webhook")


def join_path(base: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key
