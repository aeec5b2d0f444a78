# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The records the apply stages pass on: Desired, Target and Step for each input object, problems, prune
candidates, ledger entries, and the closed sets of actions.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

from .._common.errors import FieldError
from .._common.names import COLLECTION
from .discovery import Resource
from .waits import WaitSpec

FIELD_MANAGER = COLLECTION

# What happened (or would) to one input object.
Action = t.Literal["created", "updated", "unchanged", "adopted", "deleted", "kept", "missing", "drifted"]
# What a confirmed write did to the cluster (the ledger's record).
# "unknown": the request reached the server, its answer was lost and the object could not tell (lost_answers.py).
WriteAction = t.Literal["created", "updated", "adopted", "deleted", "pruned", "unknown"]
WRITES: frozenset[str] = frozenset({"created", "updated", "adopted"})


@dataclasses.dataclass(frozen=True)
class Problem(FieldError):
    """The collection's one problem record (a FieldError: a field path and the message) named by what the user wrote
    to k8s_apply: the object (``objects[3]``, ``src[0] /x.yaml, document 2``, or ``v1 ConfigMap ns/name``) and its
    input index (None for options and the cluster)."""

    object: str = ""
    index: int | None = None
    stage: str = "apply"

    def __str__(self) -> str:
        where = f"{self.object}: {self.path}" if self.path else self.object
        return f"{where}: {self.message}"

    @property
    def sort_key(self) -> tuple[int, int, str, str, str]:
        # Input order first; problems of options, of the apply-set parent (index -1) and of the cluster after them.
        of_input = self.index is not None and self.index >= 0
        return (0 if of_input else 1, self.index if of_input and self.index is not None else 0, self.object,
                self.path, self.message)

    def as_dict(self) -> dict[str, t.Any]:
        return {"object": self.object, "index": self.index, "path": self.path, "message": self.message}

    @classmethod
    def of(cls, value: Problem | t.Mapping[str, t.Any]) -> Problem:
        if isinstance(value, Problem):
            return value
        return cls(object=str(value.get("object") or ""), index=value.get("index"), path=str(value.get("path") or ""),
                   message=str(value.get("message") or ""))


def ordered(problems: t.Iterable[Problem | t.Mapping[str, t.Any]]) -> list[Problem]:
    """Problems in a stable order (input index, then path), whatever order the workers found them in."""
    return sorted({Problem.of(p) for p in problems}, key=lambda p: p.sort_key)


def summary(what: str, problems: t.Sequence[Problem]) -> str:
    lines = [f"{what} ({len(problems)} problem{'s' if len(problems) != 1 else ''}):"]
    lines += [f"  {problem}" for problem in problems]
    return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class PruneCandidate:
    """A member of the apply set that left the input, as listed (uid kept for the delete's precondition), and what
    deleting it takes along (a Namespace's or CRD's contents, all of them members)."""

    resource: Resource
    namespace: str | None
    name: str
    uid: str | None
    contents: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.resource.kind} {self.namespace}/{self.name}" if self.namespace else \
            f"{self.resource.kind} {self.name}"


@dataclasses.dataclass(frozen=True)
class LedgerEntry:
    """One write the API server confirmed."""

    api_version: str
    kind: str
    namespace: str | None
    name: str
    action: WriteAction
    resource_version: str | None
    index: int | None = None          # the input object's index; None for the parent, the lock's Namespace, prunes
    contents: tuple[str, ...] = ()   # what a pruned Namespace or CRD took with it
    parent: bool = False             # the apply-set parent

    def as_dict(self) -> dict[str, t.Any]:
        entry: dict[str, t.Any] = {"apiVersion": self.api_version, "kind": self.kind, "namespace": self.namespace,
                                   "name": self.name, "action": self.action}
        if self.contents:
            entry["contents"] = list(self.contents)
        return entry


# k8s_apply's defaults, once: its argument spec and every Options made without them (the operators stage's applies).
WAIT_TIMEOUT = 300   # seconds for the waits of one call
LOCK_TIMEOUT = 120   # seconds a run waits for another run's lock on the same apply set
WORKERS = 16         # requests of one step in flight (the module's documentation of concurrency says why)


@dataclasses.dataclass(frozen=True)
class Options:
    apply_set: str | None = None  # no default: prune needs a set named on purpose
    apply_set_namespace: str | None = None  # of the parent; else namespace, else "default"
    field_manager: str = FIELD_MANAGER
    state: t.Literal["present", "absent", "observed"] = "present"
    drift: t.Literal["revert", "report"] = "revert"
    prune: bool = False
    prune_kinds: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    prune_namespaces: bool = False  # Namespaces and CRDs hold other objects: pruned only on request, and empty
    adopt: bool = False  # take existing objects that are not members into the apply set (ownership.py)
    namespace: str | None = None
    check_mode: bool = False
    namespaces_created_earlier: frozenset[str] = frozenset()   # by an earlier task of the run (check mode: not yet)
    wait: bool = True
    wait_for: list[WaitSpec] = dataclasses.field(default_factory=list)
    wait_timeout: float = WAIT_TIMEOUT
    workers: int = WORKERS
    lock_timeout: float = LOCK_TIMEOUT  # how long a run waits for another run's lock on the same apply set


# Dependency order; anything not listed is a custom resource and goes last.
KIND_RANK = {
    "CustomResourceDefinition": 0, "Namespace": 1,
    "PriorityClass": 2, "StorageClass": 2, "ServiceAccount": 2, "ClusterRole": 2, "Role": 2,
    "SecurityContextConstraints": 2, "ClusterRoleBinding": 3, "RoleBinding": 3,
    "ConfigMap": 4, "Secret": 4, "Service": 5, "NetworkAttachmentDefinition": 5,
    "DaemonSet": 6, "Deployment": 6, "StatefulSet": 6, "Job": 6,
    "OperatorGroup": 7, "Subscription": 8,
}
CUSTOM_RANK = 9
# The apply-set parent is written right after the Namespaces (its own may be one of them), before any member.
PARENT_RANK = KIND_RANK["Namespace"] + 0.5
# Kinds whose deletion takes other objects with it.
CONTAINER_KINDS = frozenset({"Namespace", "CustomResourceDefinition"})


Owner = t.Literal["unchecked", "member", "shared", "adopting"]
_R = t.TypeVar("_R", bound="Desired")


_FIELD_NAMES: dict[type, frozenset[str]] = {}
_SHARED_FIELDS: dict[tuple[type, type], tuple[str, ...]] = {}
_DEFAULTS: dict[type, dict[str, t.Any]] = {}
_REQUIRED: dict[tuple[type, type], frozenset[str]] = {}


def _field_names(record: type) -> frozenset[str]:
    found = _FIELD_NAMES.get(record)
    if found is None:
        found = _FIELD_NAMES[record] = frozenset(f.name for f in dataclasses.fields(record))
    return found


def _defaults(record: type) -> dict[str, t.Any]:
    """A record type's field defaults (worked out once per type; none of these records has a default_factory or a
    __post_init__)."""
    found = _DEFAULTS.get(record)
    if found is None:
        found = _DEFAULTS[record] = {f.name: f.default for f in dataclasses.fields(record)
                                     if f.default is not dataclasses.MISSING}
    return found


def _required_after(made: type, earlier: type) -> frozenset[str]:
    """The fields of ``made`` that have no default and that ``earlier`` lacks: what of() must be given."""
    found = _REQUIRED.get((made, earlier))
    if found is None:
        found = _REQUIRED[(made, earlier)] = frozenset(
            _field_names(made) - _field_names(earlier) - _defaults(made).keys())
    return found


def _shared_fields(made: type, earlier: type) -> tuple[str, ...]:
    """The fields two record types have in common (worked out once per pair: thousands of records are converted)."""
    found = _SHARED_FIELDS.get((made, earlier))
    if found is None:
        theirs = _field_names(earlier)
        found = _SHARED_FIELDS[(made, earlier)] = tuple(f.name for f in dataclasses.fields(made) if f.name in theirs)
    return found


@dataclasses.dataclass(frozen=True, eq=False)
class Desired:
    """parse: one input object as the user wrote it (resolve gives it its namespace and our labels, as a new
    record). The three records grow one from the other, each stage adding what it learned: Desired -> Target (where
    it lives, what is there) -> Step (what it needs, and after the write what the server answered)."""

    index: int
    desired: dict[str, t.Any]
    api_version: str
    kind: str
    name: str
    namespace: str | None = None
    rank_override: float | None = None

    @classmethod
    def of(cls: type[_R], earlier: Desired, **learned: t.Any) -> _R:
        """This record made from another stage's (what both hold), with what this stage learned. Filled in as but()
        fills a copy: the frozen dataclass __init__ sets each of a Step's 19 fields through object.__setattr__,
        a tenth of the applier's CPU from empty."""
        if isinstance(earlier, cls) or not issubclass(cls, type(earlier)):
            return cls._of_other(earlier, learned)
        # The pipeline's case: a later stage's record from an earlier one, whose fields are all its own.
        names = _field_names(cls)
        if not learned.keys() <= names or not _required_after(cls, type(earlier)) <= learned.keys():
            return cls._of_other(earlier, learned)   # an unknown or a missing field: the dataclass's TypeError
        made = object.__new__(cls)
        fields = made.__dict__
        fields.update(_defaults(cls))
        fields.update(earlier.__dict__)
        fields.update(learned)
        return made

    @classmethod
    def _of_other(cls: type[_R], earlier: Desired, learned: dict[str, t.Any]) -> _R:
        values = {**_defaults(cls), **{name: earlier.__dict__[name] for name in _shared_fields(cls, type(earlier))},
                  **learned}
        if values.keys() != _field_names(cls):
            return cls(**values)   # an unknown or a missing field: the dataclass's own TypeError
        made = object.__new__(cls)
        made.__dict__.update(values)
        return made

    def but(self: _R, **changes: t.Any) -> _R:
        """A copy with ``changes``, as dataclasses.replace makes it (these records have no __post_init__) without
        its per-call look at the fields: three copies of each object cost a tenth of a no-op over thousands."""
        if not changes.keys() <= _field_names(type(self)):
            unknown = changes.keys() - _field_names(type(self))
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        made = object.__new__(type(self))
        fields = made.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return made

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.api_version, self.kind, self.namespace or "", self.name)

    @property
    def rank(self) -> float:
        return self.rank_override if self.rank_override is not None else KIND_RANK.get(self.kind, CUSTOM_RANK)

    @property
    def is_parent(self) -> bool:
        return self.rank_override == PARENT_RANK

    @property
    def label(self) -> str:
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"

    def error(self, path: str, message: str) -> Problem:
        return Problem(object=f"{self.api_version} {self.label}", index=self.index, path=path, message=message)


@dataclasses.dataclass(frozen=True, eq=False)
class Target(Desired):
    """resolve, read and ownership: the object's resource, its live state and who owns it."""

    resource: Resource | None = None
    live: dict[str, t.Any] | None = None      # read (or the dry run, for an object that was not listed)
    deferred: str = ""                        # waits for a Namespace or CRD of this run (resolve, read, plan)
    live_unknown: bool = False                # not listed and not read: the dry run tells whether it exists
    owner: Owner = "unchecked"                # ownership.py's verdict on the live object
    owner_set: str = ""                       # shared, and another apply set of ours made it: used as it is

    @property
    def shared(self) -> bool:
        """An existing Namespace or CRD used, never made a member."""
        return self.owner == "shared"

    @property
    def adopting(self) -> bool:
        """An existing non-member this run makes a member (adopt: true)."""
        return self.owner == "adopting"


@dataclasses.dataclass(frozen=True, eq=False)
class Step(Target):
    """plan: what the object needs; the write stage makes a new Step from the server's answer."""

    action: Action = "unchanged"
    body: dict[str, t.Any] | None = None      # what the write sends (None: nothing)
    result: dict[str, t.Any] | None = None    # the dry run's answer, then the write's
    changes: tuple[dict[str, t.Any], ...] = ()
    drift: tuple[dict[str, t.Any], ...] = ()
    validated_by: str = ""


def where(namespace: str | None, name: str | None) -> str:
    return f"{namespace}/{name}" if namespace else str(name)
