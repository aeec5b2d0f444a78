# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Properties of ``hco_render`` that need no oracle, on HyperConverged specs generated from the CRD schema.

The specs are drawn from HCO 1.20.0's v1beta1 schema (``../shared/crds``), empty shapes (``{}``, ``[]``, ``null``,
absent) included, on OpenShift and plain Kubernetes with 1 to 6 nodes. For every spec:

- render either succeeds or raises RenderError (never anything else);
- rendering is deterministic;
- every operand with a CRD validates against it (a field the API server would prune counts as a failure);
- the rendered HyperConverged (defaults and mutations applied, as HCO stores it) rendered again, as a CREATE and as
  an UPDATE, gives the same operands.

Seeded (``derandomize``): every run draws the same examples; VIRTINFRA_PROPERTY_EXAMPLES sets how many (default 2,000).
``bench/render_properties.py`` times it.
"""

from __future__ import annotations

import collections
import functools
import os
import typing as t

import schema_check
import vectors
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.errors import RenderError
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco.render import render

EXAMPLES = int(os.environ.get("VIRTINFRA_PROPERTY_EXAMPLES", "2000"))
MAX_DEPTH = 6
# Strings a schema without an enum gets: empty, plain, durations, quantities, cron, URLs, label keys, TLS names.
STRINGS = ("", "a", "x-1", "1h", "10m0s", "1Gi", "100m", "0 1 * * *", "docker://quay.io/example/image:1",
           "kubernetes.io/hostname", "VersionTLS12", "ECDHE-RSA-AES128-GCM-SHA256", "192.0.2.10", "02:00:00:00:00:00")
LABEL_KEYS = ("node-role.kubernetes.io/worker", "kubernetes.io/arch", "zone")
# Where HCO copies an HC value into an operand whose CRD is stricter than the HyperConverged's (HCO's behaviour, kept:
# the operand's API server refuses it): a custom TLS profile's cipher names (CNAO enumerates them), the common
# templates namespace (SSP requires a DNS-1123 label; the HyperConverged takes any string).
PASSED_THROUGH = (("NetworkAddonsConfig", "/spec/tlsSecurityProfile/"), ("SSP", "/spec/commonTemplates/namespace:"))


@functools.cache
def hyperconverged_schema() -> dict[str, t.Any]:
    return schema_check.crd_index(str(vectors.CRD_DIR))[("hco.kubevirt.io/v1beta1", "HyperConverged")]


def from_schema(schema: t.Mapping[str, t.Any], depth: int = 0) -> st.SearchStrategy[t.Any]:
    """Values for one schema node; objects and lists also as their empty shapes."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if schema.get("x-kubernetes-int-or-string"):
        # Invalid quantities too (2e3Mi, a space, a sign alone): refused with a path, never a crash.
        return st.one_of(st.integers(0, 10), st.sampled_from(("1", "50%", "1Gi", "2e3Mi", "10 Gi", "-")))
    kind = schema.get("type")
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(int(schema.get("minimum", -2)), int(schema.get("maximum", 300)))
    if kind == "number":
        return st.floats(0, 10, allow_nan=False)
    if kind == "string":
        return st.sampled_from(STRINGS)
    if kind == "array":
        if depth >= MAX_DEPTH:
            return st.just([])
        return st.lists(from_schema(schema.get("items") or {}, depth + 1), max_size=2)
    if kind == "object" and "properties" in schema:
        if depth >= MAX_DEPTH:
            return st.just({})
        required = set(schema.get("required") or ())
        fields = {name: from_schema(sub, depth + 1) for name, sub in schema["properties"].items()}
        return st.one_of(st.just({}), st.fixed_dictionaries(
            {name: fields[name] for name in required},
            optional={name: st.one_of(st.none(), value) for name, value in fields.items() if name not in required}))
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return st.dictionaries(st.sampled_from(LABEL_KEYS), from_schema(schema["additionalProperties"], depth + 1),
                               max_size=2)
    return st.just({})


def nodes(count: int, layout: str) -> list[dict[str, t.Any]]:
    roles = {"compact": ("control-plane", "worker"), "split": ("worker",), "control-plane only": ("control-plane",)}
    return [{"name": f"node-{index}", "architecture": "amd64",
             "labels": {f"node-role.kubernetes.io/{role}": "" for role in
                        (roles[layout] if layout != "split" or index else ("control-plane",))}}
            for index in range(count)]


@functools.cache
def spec_strategy() -> st.SearchStrategy[t.Any]:
    return from_schema(hyperconverged_schema()["properties"]["spec"], depth=1)


@st.composite
def cases(draw: st.DrawFn) -> dict[str, t.Any]:
    spec = draw(spec_strategy())
    platform = draw(st.sampled_from(("openshift", "kubernetes")))
    cluster = {"platform": platform, "namespace": "kubevirt-hyperconverged",
               "nodes": nodes(draw(st.integers(1, 6)), draw(st.sampled_from(("compact", "split", "control-plane only"))))}
    return {"spec": spec, "cluster": cluster}


def hyperconverged(spec: t.Any) -> dict[str, t.Any]:
    return {"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
            "metadata": {"name": "kubevirt-hyperconverged", "namespace": "kubevirt-hyperconverged"}, "spec": spec}


def crd_problems(operand: dict[str, t.Any]) -> list[str]:
    problems = schema_check.crd_fit(operand, str(vectors.CRD_DIR))
    return [f"{operand['kind']}/{operand['metadata']['name']}: {p}" for p in problems
            if not any(operand["kind"] == kind and p.startswith(prefix) for kind, prefix in PASSED_THROUGH)]


@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases())
def test_render_properties(case):
    arguments = {"release": "1.20", "cluster": case["cluster"]}
    try:
        first = render(hyperconverged=hyperconverged(case["spec"]), **arguments)
    except RenderError as refused:
        assert refused.errors and all(e.path and e.message for e in refused.errors)
        event("refused")
        return
    event("rendered")
    again = render(hyperconverged=hyperconverged(case["spec"]), **arguments)
    assert again.operands == first.operands, "render is not deterministic"

    problems = [p for operand in first.operands for p in crd_problems(operand)]
    assert not problems, "\n".join(problems)

    stored = render(hyperconverged=first.hyperconverged, **arguments)
    assert stored.operands == first.operands, "the rendered HyperConverged, rendered again, gives other operands"
    update = render(hyperconverged=first.hyperconverged, operation="update", **arguments)
    assert update.operands == first.operands, "the stored HyperConverged renders differently on UPDATE"


def test_most_drawn_cases_render():
    """Guard against a property test that checks nothing: were every drawn case refused, the properties above would
    hold over no rendered operand at all."""
    outcomes: collections.Counter[str] = collections.Counter()

    @settings(max_examples=200, derandomize=True, database=None, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(cases())
    def collect(case):
        try:
            render(hyperconverged=hyperconverged(case["spec"]), release="1.20", cluster=case["cluster"])
        except RenderError:
            outcomes["refused"] += 1
            return
        outcomes["rendered"] += 1

    collect()
    assert outcomes["rendered"] >= 60, outcomes


def test_examples_are_drawn():
    """Guard against a strategy that collapses to one shape: the first drawn specs differ in their keys."""
    seen = set()

    @settings(max_examples=50, derandomize=True, database=None, deadline=None)
    @given(cases())
    def collect(case):
        spec = case["spec"]
        seen.add(tuple(sorted(spec)) if isinstance(spec, dict) else ())

    collect()
    assert len(seen) > 10
