# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Objects read from manifest files and directories (k8s_apply's ``src``), the way ``kubectl apply -f`` reads them.

Every file is read and parsed before anything else happens, and every problem is returned with its file and
document, so a typo in the last file stops the run before the first write. PRIVATE.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re
import typing as t

from .._common.errors import Refused
from .depth import LIBYAML_DEPTH, MAX_DEPTH, deep_documents, depth_of, flow_depth
from .yaml_go import NoJSON, NotJSON, json_value

try:
    import yaml

    from .yaml_go import BARE_TAG, GoLoader, GoPythonLoader
except ImportError:  # the module reports the kubernetes library (which needs PyYAML) as missing
    yaml = None  # type: ignore[assignment]

SUFFIXES = (".yaml", ".yml", ".json")
# kubectl apply -f reads a kustomization file as an object; -k builds it. Neither is what a user meant here.
KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml")
KUSTOMIZATION = ("is a kustomization, which k8s_apply does not build: pass the built objects as objects (for "
                 "example from the kubernetes.core.kustomize lookup), or apply the kustomization with kubectl -k")
VAULT_HEADER = "$ANSIBLE_VAULT;"
VAULTED = ("is encrypted with Ansible Vault, which k8s_apply does not decrypt: pass it as objects through the file "
           "lookup, which does (objects: \"{{ lookup('ansible.builtin.file', path) | from_yaml_all }}\")")
TOO_DEEP = (f"is nested more than {MAX_DEPTH:,} levels deep, more than an apply carries under this Python (kubectl "
            "reads up to 10,000): flatten it")
RELATIVE = ("is a relative path that was not found: on a local connection k8s_apply looks it up in the role's files/, "
            "then the playbook's files/ and directory; on a remote host give an absolute path")


@dataclasses.dataclass
class Manifests:
    objects: list[t.Any] = dataclasses.field(default_factory=list)
    # Where each object came from ("src[0] /path/app.yaml, document 2"), for error messages.
    origins: list[str] = dataclasses.field(default_factory=list)
    errors: list[dict[str, t.Any]] = dataclasses.field(default_factory=list)


def load(paths: t.Sequence[str]) -> Manifests:
    """Every object in ``paths`` (absolute): files, or directories whose ``*.yaml``, ``*.yml`` and ``*.json`` files are
    read in name order (not recursively; names starting with a dot are skipped). A document may be one object, a list of
    objects, or a ``List`` kind with ``items``; empty documents are skipped."""
    found = Manifests()
    for position, path in enumerate(paths):
        option = f"src[{position}]"
        if not isinstance(path, str) or not path.strip():
            found.errors.append(_error(option, "", "must be the path of a file or directory, got an empty value"))
            continue
        if "://" in path:
            found.errors.append(_error(option, path, "is a URL: k8s_apply reads files only (fetch it first, for example "
                                                     "with ansible.builtin.get_url)"))
            continue
        if not os.path.isabs(path):
            # Relative to the module's working directory, which is not the playbook's: never guessed.
            found.errors.append(_error(option, path, RELATIVE))
            continue
        if os.path.isdir(path):
            _load_directory(found, option, path)
        elif os.path.exists(path):
            _load_file(found, option, path)
        else:
            found.errors.append(_error(option, path, _unreadable(path) or "no such file or directory on the host "
                                                                          "that runs the module"))
    return found


def _load_directory(found: Manifests, option: str, path: str) -> None:
    """Every manifest of the directory; an entry that looks like one but cannot be read (a dangling symbolic link,
    a loop, no permission) is an error, never skipped: under prune, a file skipped would delete its objects."""
    try:
        names = sorted(os.listdir(path))
    except OSError as exc:
        found.errors.append(_error(option, path, f"the directory cannot be listed: {exc.strerror or exc}"))
        return
    files = []
    broken = 0
    for name in names:
        if name.startswith(".") or not name.endswith(SUFFIXES):
            continue
        entry = os.path.join(path, name)
        problem = _unreadable(entry)
        if not problem and not os.path.isfile(entry) and not os.path.isdir(entry):
            problem = "is not a regular file"   # a subdirectory is not read (not recursive), as kubectl apply -f
        if problem:
            broken += 1
            found.errors.append(_error(option, entry, problem))
        elif os.path.isfile(entry):
            files.append(entry)
    if not files and not broken:
        found.errors.append(_error(option, path, f"the directory has no {', '.join(SUFFIXES)} files"))
    for file in files:
        _load_file(found, option, file)


def _unreadable(path: str) -> str | None:
    """Why ``path`` cannot be read, for an entry that exists at least as a name; None when it can be."""
    try:
        os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return f"is a symbolic link to {os.readlink(path)}, which does not exist"
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link loop"
        return f"cannot be read: {exc.strerror or exc}"
    if not os.access(path, os.R_OK):
        return "cannot be read: permission denied"
    return None


def _load_file(found: Manifests, option: str, path: str) -> None:
    if os.path.basename(path) in KUSTOMIZATIONS:
        found.errors.append(_error(option, path, KUSTOMIZATION))
        return
    try:
        with open(path, encoding="utf-8-sig") as stream:   # a byte-order mark, as kubectl, is read past
            text = stream.read()
    except (OSError, UnicodeDecodeError) as exc:
        found.errors.append(_error(option, path, f"cannot be read: {exc}"))
        return
    if text.startswith(VAULT_HEADER):
        found.errors.append(_error(option, path, VAULTED))
        return
    try:
        documents = _documents(path, text)
    except ManifestError as exc:
        found.errors.append(_error(option, path, str(exc)))
        return
    for number, document in enumerate(documents, start=1):
        where = f"{option} {path}, document {number}"
        for item in _items(document):
            found.objects.append(item)
            found.origins.append(where)


def objects_of(name: str, text: str) -> list[t.Any]:
    """The objects in one file's text (a document may hold a List); ManifestError names what is wrong and where."""
    return [item for document in _documents(name, text) for item in _items(document)]


def _documents(path: str, text: str) -> list[t.Any]:
    """The documents of one file, read as kubectl reads them (k8s.io/apimachinery util/yaml/decoder.go,
    ``YAMLOrJSONDecoder``): a stream whose first character past a byte-order mark and white space is ``{`` is JSON,
    one object after another, whatever the file's name, unless its first object is not JSON (``{a: 1}``), when it
    is YAML; anything else is YAML with go-yaml's scalars (yaml_go.py). A stream starting with ``[`` is read as JSON
    too (kubectl refuses a list; here it is a list of objects, and JSON reads it faster and as YAML would)."""
    text = text[1:] if text.startswith("\ufeff") else text
    brackets = text.count("[") + text.count("{")
    flow = flow_depth(text) if brackets > LIBYAML_DEPTH else brackets   # measured only where it could be deep
    if flow > MAX_DEPTH:
        raise ManifestError(TOO_DEEP)
    # Block nesting takes a column a level: only a long line, or deep flow collections, can make a deep document.
    longest = max(map(len, text.splitlines()), default=0)
    with deep_documents():
        documents = _parsed(path, text, deep=flow > LIBYAML_DEPTH or longest > LIBYAML_DEPTH)
    if flow + longest > MAX_DEPTH and any(depth_of(document) > MAX_DEPTH for document in documents):
        raise ManifestError(TOO_DEEP)
    return documents


def _parsed(path: str, text: str, deep: bool) -> list[t.Any]:
    if text.lstrip()[:1] in ("{", "["):
        try:
            return _json_documents(text, deep)
        except _NotJSONAtAll as exc:
            if path.endswith(".json"):
                raise ManifestError(str(exc)) from None
    return _yaml_documents(text, deep)


def _yaml_documents(text: str, deep: bool) -> list[t.Any]:
    """``deep``: the text may nest past libyaml's cap (depth.LIBYAML_DEPTH), so PyYAML's Python parser reads it."""
    if yaml is None:
        raise ManifestError("cannot be parsed: PyYAML is not installed")
    # libyaml's parser where PyYAML has it (faster); aliases are measured before they are expanded.
    # Rare: a bare "!" tag, or a deep document, needs PyYAML's Python parser (it sees the tag, and has no cap).
    python_parser = deep or BARE_TAG.search(text)
    loaders = (_BoundedPythonLoader, GoPythonLoader) if python_parser else (_BoundedLoader, GoLoader)
    loader = loaders[0] if "&" in text and "*" in text else loaders[1]
    try:
        return [d for d in yaml.load_all(text, Loader=loader) if d is not None]
    except (AliasBomb, NotJSON) as exc:
        raise ManifestError(str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ManifestError(f"is not valid YAML: {problem}{where}") from None


class ManifestError(Refused):
    """A manifest file kubectl would refuse too, in words that name what is wrong and where."""


class _NotJSONAtAll(ManifestError):
    """The first document is not JSON: the stream is read as YAML, as kubectl falls back to it."""


def _json_documents(text: str, deep: bool) -> list[t.Any]:
    """JSON values one after another, by Go's encoding/json rules: no NaN or Infinity, no number past float64; an
    integral number reaches the server as Go writes it back (1.0 as 1, yaml_go.json_value). Past the first, what is
    not JSON is read as YAML to the end, as kubectl reads a stream of JSON objects between ``---`` lines."""
    documents: list[t.Any] = []
    position = 0
    surrogates = "\\ud" in text.lower()   # once: a stream may hold thousands of documents
    try:
        while True:
            position = _SPACE.match(text, position).end()   # type: ignore[union-attr]  # it matches the empty string
            if position >= len(text):
                return documents
            document, position = _JSON.raw_decode(text, position)
            documents.append(_valid_unicode(document) if surrogates else document)
    except json.JSONDecodeError as exc:
        if not documents:
            raise _NotJSONAtAll(f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except _NonFinite as exc:
        line, column = _position(text, str(exc))
        raise ManifestError(f"is not valid JSON: {exc} is not a number JSON can carry, and kubectl refuses it too "
                            f"(line {line}, column {column})") from None
    # The rest as YAML, its lines numbered as in the file.
    return documents + _yaml_documents("\n" * text.count("\n", 0, position) + text[position:], deep)


def _valid_unicode(value: t.Any) -> t.Any:
    """Lone surrogates (``"\\ud800"`` without its pair) replaced by U+FFFD, as Go's encoding/json decodes them for
    kubectl (decode.go, unquote); Python keeps them, and no UTF-8 body can carry them."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_valid_unicode(item) for item in value]
    if isinstance(value, dict):
        return {_valid_unicode(key): _valid_unicode(item) for key, item in value.items()}
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACE = re.compile(r"\s*")


class _NonFinite(Refused):
    pass


def _json_float(text: str) -> t.Any:
    try:
        return json_value(float(text))
    except NoJSON:
        raise _NonFinite(text) from None


def _not_json(constant: str) -> t.NoReturn:
    """Python's json reads NaN and Infinity; Go's encoding/json, and so kubectl, does not."""
    raise _NonFinite(constant)


_JSON = json.JSONDecoder(parse_constant=_not_json, parse_float=_json_float)


def _position(text: str, constant: str) -> tuple[int, int]:
    """Line and column of the first ``constant`` outside a JSON string (the error path only)."""
    quoted = escaped = False
    for index, char in enumerate(text):
        if quoted:
            quoted, escaped = (escaped or char != '"'), (not escaped and char == "\\")
        elif char == '"':
            quoted = True
        elif text.startswith(constant, index):
            line = text.count("\n", 0, index) + 1
            return line, index - (text.rfind("\n", 0, index) + 1) + 1
    return 1, 1


# The most nodes a document may expand to through YAML aliases (anchors used again with *name). The largest object
# an API server stores is 1.5 MiB of JSON (etcd's default request limit), far fewer nodes than this; a "billion
# laughs" document expands to 10^9 from a few hundred bytes.
MAX_EXPANDED_NODES = 1_000_000


class AliasBomb(Refused):
    pass


def expanded_size(node: t.Any, limit: int = MAX_EXPANDED_NODES) -> int:
    """The number of nodes ``node`` (a composed YAML node) has once every alias is expanded, counted without
    expanding: each node's size is computed once. Raises AliasBomb past ``limit``, or for an alias inside itself."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(current: t.Any) -> int:
        key = id(current)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise AliasBomb("holds a YAML alias that contains itself (a recursive anchor), which no API object can")
        active.add(key)
        total = 1
        if isinstance(current, yaml.SequenceNode):
            total += sum(size(child) for child in current.value)
        elif isinstance(current, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in current.value)
        active.discard(key)
        if total > limit:
            raise AliasBomb(f"expands through YAML aliases to more than {limit:,} nodes, which is refused before "
                            "expanding it (a document of this size is not a Kubernetes object)")
        sizes[key] = total
        return total

    try:
        return size(node)
    except RecursionError:
        raise AliasBomb("is nested too deeply to be a Kubernetes object") from None


if yaml is not None:
    class _Bounded:
        """A loader that measures a document before constructing (expanding) it."""

        def construct_document(self, node: t.Any) -> t.Any:
            expanded_size(node)
            return super().construct_document(node)  # type: ignore[misc]

    class _BoundedLoader(_Bounded, GoLoader):
        pass

    class _BoundedPythonLoader(_Bounded, GoPythonLoader):
        pass


def _items(document: t.Any) -> list[t.Any]:
    if isinstance(document, list):
        return document
    if (isinstance(document, dict) and isinstance(document.get("kind"), str) and document["kind"].endswith("List")
            and isinstance(document.get("items"), list)):
        return document["items"]
    return [document]


def _error(option: str, path: str, message: str) -> dict[str, t.Any]:
    return {"object": f"{option} {path}".rstrip(), "index": None, "path": "", "message": message}
