# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Derive the Go type table of ``_hco/go_types_data.py`` from the CRDs' structural schemas (scripts/generate-go-types).

Each schema node becomes one shape, shared when identical (Kubernetes core types such as Affinity recur hundreds of
times in the operand CRDs):

- ``("o", fields, keep_unknown)``: a struct; ``fields`` is a tuple of ``(json name, shape index, required)``;
  ``required`` marks a field without ``omitempty`` (controller-gen lists exactly those as required);
  ``keep_unknown`` for ``x-kubernetes-preserve-unknown-fields`` structs.
- ``("m", value)``: a map; ``("l", item)``: a slice; ``("s",)``: a scalar (int-or-string included);
  ``("x",)``: free-form JSON (``RawExtension``, ``preserve-unknown-fields`` without properties, no type at all).
"""

from __future__ import annotations

import io
import pprint
import sys
import typing as t

import yaml
from vectors import SHARED

#: (table name, CRD file, version, path of the Go type inside the version's schema)
ROOTS = (
    ("KubeVirt", "kubevirts.kubevirt.io", "v1", ("spec",)),
    ("CDI", "cdis.cdi.kubevirt.io", "v1beta1", ("spec",)),
    ("NetworkAddonsConfig", "networkaddonsconfigs.networkaddonsoperator.network.kubevirt.io", "v1", ("spec",)),
    ("SSP", "ssps.ssp.kubevirt.io", "v1beta3", ("spec",)),
    ("AAQ", "aaqs.aaq.kubevirt.io", "v1alpha1", ("spec",)),
    ("MigController", "migcontrollers.migrations.kubevirt.io", "v1alpha1", ("spec",)),
    ("HyperConverged", "hyperconvergeds.hco.kubevirt.io", "v1beta1", ("spec",)),
    ("HyperConvergedV1", "hyperconvergeds.hco.kubevirt.io", "v1", ("spec",)),
    ("NodePlacement", "hyperconvergeds.hco.kubevirt.io", "v1beta1", ("spec", "infra", "nodePlacement")),
)
SCALAR, FREE_FORM = ("s",), ("x",)


class Table:
    def __init__(self) -> None:
        self.shapes: list[tuple[t.Any, ...]] = [SCALAR, FREE_FORM]
        self.index: dict[tuple[t.Any, ...], int] = {SCALAR: 0, FREE_FORM: 1}

    def add(self, schema: t.Mapping[str, t.Any]) -> int:
        shape = self.shape(schema)
        if shape not in self.index:
            self.index[shape] = len(self.shapes)
            self.shapes.append(shape)
        return self.index[shape]

    def shape(self, schema: t.Mapping[str, t.Any]) -> tuple[t.Any, ...]:
        keep_unknown = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
        if schema.get("x-kubernetes-int-or-string"):
            return SCALAR
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            if "properties" in schema:
                required = set(schema.get("required") or ())
                fields = tuple((name, self.add(sub), name in required)
                               for name, sub in sorted(schema["properties"].items()))
                return ("o", fields, keep_unknown)
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                return ("m", self.add(extra))
            return FREE_FORM if keep_unknown else ("o", (), False)   # a struct without fields (CNAO's LinuxBridge)
        if kind == "array":
            return ("l", self.add(schema.get("items") or {}))
        if kind in ("string", "integer", "number", "boolean"):
            return SCALAR
        return FREE_FORM


def crd_version(name: str, version: str) -> tuple[str, t.Mapping[str, t.Any]]:
    crd = yaml.load((SHARED / "crds" / f"{name}.yaml").read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    for entry in crd["spec"]["versions"]:
        if entry["name"] == version:
            return crd["spec"]["group"], entry["schema"]["openAPIV3Schema"]
    raise SystemExit(f"{name}: no version {version}")


def source() -> str:
    """The text of ``go_types_data.py``."""
    table = Table()
    roots: dict[str, int] = {}
    sources: list[str] = []
    for root, name, version, path in ROOTS:
        group, schema = crd_version(name, version)
        for key in path:
            schema = schema["properties"][key]
        roots[root] = table.add(schema)
        sources.append(f"#   {root}: {group}/{version} {'.'.join(path)}")
    out = io.StringIO()
    out.write("# Copyright (c) virtinfra.hyperconverged contributors\n"
              "# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or "
              "https://www.gnu.org/licenses/gpl-3.0.txt)\n"
              "# SPDX-License-Identifier: GPL-3.0-or-later\n"
              "# Generated from the structural schemas of HCO 1.20.0's CRDs (deploy/crds at 03da3cf); do not edit. "
              "Shapes: see\n# gotypes.py.\n"
              + "\n".join(sources) + "\n"
              '"""Field names and shapes of the Go types HCO decodes into. PRIVATE."""\n\n'
              "from __future__ import annotations\n\nimport typing as t\n\n")
    out.write("ROOTS: dict[str, int] = {\n" + "".join(f"    {k!r}: {v},\n" for k, v in sorted(roots.items())) + "}\n\n")
    out.write("# fmt: off\nSHAPES: tuple[tuple[t.Any, ...], ...] = (\n")
    for shape in table.shapes:
        text = pprint.pformat(shape, width=110, compact=True)
        out.write("    " + text.replace("\n", "\n    ") + ",\n")
    out.write(")\n")
    return out.getvalue()


if __name__ == "__main__":
    sys.stdout.write(source())
