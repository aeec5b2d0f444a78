# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""OLM Subscriptions with operator-pod placement.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import copy
import typing as t

from .common import Problems, check_keys, check_label_map, path

KEYS = frozenset(("subscriptions",))
SUBSCRIPTION_KEYS = frozenset(("name", "namespace", "source", "source_namespace", "channel", "starting_csv",
                               "install_plan_approval", "config", "operator_group", "subscription_name",
                               "target_namespaces"))

# Subscription config moves the operator Deployment only; where each operator's operands are placed instead.
OPERAND_PLACEMENT = {
    "kubevirt-hyperconverged": "the HyperConverged spec.infra and spec.workloads nodePlacement",
    "community-kubevirt-hyperconverged": "the HyperConverged spec.infra and spec.workloads nodePlacement",
    "kubernetes-nmstate-operator": "the NMState nodeSelector/tolerations/affinity (and infra* for its webhook)",
    "sriov-network-operator": "the SriovOperatorConfig configDaemonNodeSelector",
    "cluster-kube-descheduler-operator": "the KubeDescheduler",
}


def check_input(problems: Problems, spec: t.Mapping[str, t.Any]) -> None:
    for index, sub in enumerate(spec.get("subscriptions") or []):
        check_keys(problems, path("subscriptions", index), sub, SUBSCRIPTION_KEYS)


def plan(spec: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    problems = Problems("olm")
    objects: list[dict[str, t.Any]] = []
    groups: set[str] = set()
    approvals: dict[str, set[str]] = {}
    for index, sub in enumerate(spec.get("subscriptions") or []):
        where = path("subscriptions", index)
        for field in ("name", "source", "source_namespace", "namespace"):
            if not sub.get(field):
                problems.error(path(where, field), "required")
        approval = sub.get("install_plan_approval", "Automatic")
        if approval not in ("Automatic", "Manual"):
            problems.error(path(where, "install_plan_approval"), f"{approval!r} must be exactly Automatic or Manual "
                                                                 "(OLM treats anything but Manual as Automatic)")
        namespace = sub.get("namespace")
        approvals.setdefault(str(namespace), set()).add(approval)
        config = _config(problems, path(where, "config"), sub.get("config") or {})
        body: dict[str, t.Any] = {"name": sub.get("name"), "source": sub.get("source"),
                                  "sourceNamespace": sub.get("source_namespace"), "installPlanApproval": approval}
        if sub.get("channel"):
            body["channel"] = sub["channel"]
        if sub.get("starting_csv"):
            body["startingCSV"] = sub["starting_csv"]
        if config:
            body["config"] = config
        if sub.get("name") in OPERAND_PLACEMENT and any(k in config for k in ("nodeSelector", "tolerations",
                                                                              "affinity")):
            problems.warn(f"{where}: config places only the {sub.get('name')} operator pods; its operands follow "
                          f"{OPERAND_PLACEMENT[sub.get('name')]}")
        if namespace and namespace not in groups and sub.get("operator_group", True):
            groups.add(namespace)
            objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
            group: dict[str, t.Any] = {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
                                       "metadata": {"name": f"{namespace}-group", "namespace": namespace},
                                       "spec": {}}
            if sub.get("target_namespaces"):
                group["spec"]["targetNamespaces"] = list(sub["target_namespaces"])
            objects.append(group)
        objects.append({"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
                        "metadata": {"name": sub.get("subscription_name", sub.get("name")), "namespace": namespace},
                        "spec": body})
    for namespace, values in approvals.items():
        if values == {"Automatic", "Manual"}:
            problems.warn(f"namespace {namespace} mixes Manual and Automatic subscriptions: OLM makes every "
                          "InstallPlan there Manual")
    problems.raise_if_any()
    return {"objects": objects, "warnings": problems.warnings}


def _config(problems: Problems, where: str, config: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    result: dict[str, t.Any] = {}
    if "node_selector" in config:
        result["nodeSelector"] = check_label_map(problems, path(where, "node_selector"), config["node_selector"])
    if config.get("tolerations"):
        result["tolerations"] = copy.deepcopy(config["tolerations"])
    affinity = config.get("affinity")
    if affinity is not None:
        if affinity.get("podAntiAffinity") == {}:
            problems.error(path(where, "affinity", "podAntiAffinity"), "an empty podAntiAffinity makes OLM drop the "
                                                                       "operator pod's whole affinity (OLM quirk); "
                                                                       "omit the key instead")
        result["affinity"] = copy.deepcopy(affinity)
    for key, target in (("resources", "resources"), ("env", "env")):
        if config.get(key):
            result[target] = copy.deepcopy(config[key])
    return result
