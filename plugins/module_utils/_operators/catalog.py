# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The operators the site can install, in install order, and the versions each release profile pins.

One row per operator: which API groups it serves (the site needs it when its plan writes one of them), its release
files and where upstream publishes them, its Deployment, its operand CR and the status field that reports the
operand's version, and its OLM package. KubeVirt comes before CDI, as the KubeVirt upgrade guides require.

PRIVATE: the interface may change without notice.
"""

from __future__ import annotations

import dataclasses
import typing as t

Platform = t.Literal["kubernetes", "openshift"]

GITHUB = "https://github.com/{repo}/releases/download/{{version}}/{{file}}"


@dataclasses.dataclass(frozen=True)
class Operand:
    api_version: str
    kind: str
    version_field: str | None     # status field with the version the operator has rolled out


@dataclasses.dataclass(frozen=True)
class Instance:
    """The object an operator needs before it serves the kinds the site writes, and those kinds."""

    api_version: str
    kind: str
    name: str
    serves: tuple[tuple[str, str], ...]   # (apiVersion, kind) served once the instance runs


@dataclasses.dataclass(frozen=True)
class Operator:
    key: str
    title: str
    groups: frozenset[str]
    deployment: str | None        # the operator's Deployment in its release files
    files: tuple[str, ...]        # release files, applied in this order
    url: str                      # {version} and {file}; "" where upstream publishes no plain manifests
    namespace: str                # where its release files put it
    colocated: bool               # moved into the operands' namespace: it watches only its own (namespaced CR)
    operand: Operand | None
    packages: t.Mapping[str, tuple[str, str]]   # platform -> (OLM package, namespace)
    needs: tuple[tuple[str, str], ...] = ()     # (apiVersion/kind, what provides it) served before it can run
    instance: Instance | None = None


OPERATORS: tuple[Operator, ...] = (
    Operator("kubevirt", "KubeVirt (virt-operator)", frozenset({"kubevirt.io"}), "virt-operator",
             ("kubevirt-operator.yaml",), GITHUB.format(repo="kubevirt/kubevirt"), "kubevirt", True,
             Operand("kubevirt.io/v1", "KubeVirt", "observedKubeVirtVersion"), {}),
    Operator("cdi", "CDI (cdi-operator)", frozenset({"cdi.kubevirt.io"}), "cdi-operator",
             ("cdi-operator.yaml",), GITHUB.format(repo="kubevirt/containerized-data-importer"), "cdi", False,
             Operand("cdi.kubevirt.io/v1beta1", "CDI", "observedVersion"), {}),
    Operator("cnao", "cluster-network-addons-operator", frozenset({"networkaddonsoperator.network.kubevirt.io"}),
             "cluster-network-addons-operator", ("namespace.yaml", "network-addons-config.crd.yaml", "operator.yaml"),
             GITHUB.format(repo="kubevirt/cluster-network-addons-operator"), "cluster-network-addons", False,
             Operand("networkaddonsoperator.network.kubevirt.io/v1", "NetworkAddonsConfig", "observedVersion"), {}),
    Operator("ssp", "SSP operator", frozenset({"ssp.kubevirt.io"}), "ssp-operator", ("ssp-operator.yaml",),
             GITHUB.format(repo="kubevirt/ssp-operator"), "kubevirt", True,
             Operand("ssp.kubevirt.io/v1beta3", "SSP", "observedVersion"), {}),
    Operator("aaq", "application-aware-quota operator", frozenset({"aaq.kubevirt.io"}), "aaq-operator",
             ("aaq-operator.yaml",), GITHUB.format(repo="kubevirt/application-aware-quota"), "aaq", False,
             Operand("aaq.kubevirt.io/v1alpha1", "AAQ", "observedVersion"), {}),
    # Published inside HCO's bundle only: no release manifests upstream; give the files (operators_manifests_dir).
    Operator("migration", "kubevirt-migration-operator", frozenset({"migrations.kubevirt.io"}), None, (), "",
             "kubevirt", True, Operand("migrations.kubevirt.io/v1alpha1", "MigController", "observedVersion"), {}),
    Operator("filerestore", "file-restore operator", frozenset({"filerestore.kubevirt.io"}), None, (), "",
             "kubevirt", True, Operand("filerestore.kubevirt.io/v1alpha1", "FileRestoreOperator", "observedVersion"),
             {}),
    # The operator's validating webhook takes its certificate from cert-manager (hostpath-provisioner-operator
    # README, "How to deploy"); its files are in the repository's deploy/ folder, not release assets.
    Operator("hpp", "hostpath-provisioner-operator", frozenset({"hostpathprovisioner.kubevirt.io"}),
             "hostpath-provisioner-operator", ("namespace.yaml", "webhook.yaml", "operator.yaml"),
             "https://raw.githubusercontent.com/kubevirt/hostpath-provisioner-operator/{version}/deploy/{file}",
             "hostpath-provisioner", False,
             Operand("hostpathprovisioner.kubevirt.io/v1beta1", "HostPathProvisioner", "observedVersion"), {},
             needs=(("cert-manager.io/v1/Issuer", "cert-manager"),)),
    Operator("nmstate", "kubernetes-nmstate", frozenset({"nmstate.io"}), "nmstate-operator",
             ("nmstate.io_nmstates.yaml", "namespace.yaml", "service_account.yaml", "role.yaml", "role_binding.yaml",
              "operator.yaml"), GITHUB.format(repo="nmstate/kubernetes-nmstate"), "nmstate", False,
             Operand("nmstate.io/v1", "NMState", None),
             {"openshift": ("kubernetes-nmstate-operator", "openshift-nmstate")},
             # The operator deploys its handler and the policy kinds only once an NMState named nmstate exists, and
             # reports it Available then (kubernetes-nmstate's install steps: operator, NMState nmstate, wait for
             # condition=Available).
             instance=Instance("nmstate.io/v1", "NMState", "nmstate",
                               (("nmstate.io/v1", "NodeNetworkConfigurationPolicy"),))),
    # Helm chart or OLM only upstream.
    Operator("sriov", "sriov-network-operator", frozenset({"sriovnetwork.openshift.io"}), "sriov-network-operator",
             (), "", "sriov-network-operator", False, None,
             {"openshift": ("sriov-network-operator", "openshift-sriov-network-operator")}),
)

BY_KEY: dict[str, Operator] = {op.key: op for op in OPERATORS}
INSTANCE_KINDS = frozenset(op.instance.kind for op in OPERATORS if op.instance is not None)
# Through OLM, HCO's package installs the KubeVirt family and takes their place; its CSV also runs the
# hostpath-provisioner-operator (HCO pins it in hack/config as HPPO_VERSION; OpenShift Virtualization ships HPP in
# openshift-cnv), whose HostPathProvisioner stays the site's to write.
HCO_FAMILY = frozenset({"kubevirt", "cdi", "cnao", "ssp", "aaq", "migration", "filerestore", "hpp"})
HCO_PACKAGES: dict[str, tuple[str, str]] = {
    "openshift": ("kubevirt-hyperconverged", "openshift-cnv"),
    "kubernetes": ("community-kubevirt-hyperconverged", "kubevirt-hyperconverged"),
}

# What each release profile pins. The KubeVirt family from HCO's own pins (hack/config at the profile's tag, as
# the profile's summary lists them); nmstate and the hostpath-provisioner-operator are not pinned by HCO: the
# newest releases known to publish the files above. operators_versions overrides any of them.
PINS: dict[str, dict[str, str]] = {
    "1.20": {"kubevirt": "v1.9.0", "cdi": "v1.66.0", "cnao": "v0.102.0", "ssp": "v0.27.0", "aaq": "v1.8.0",
             "hpp": "v0.19.0", "nmstate": "v0.82.0"},
    "1.19": {"kubevirt": "v1.9.0", "cdi": "v1.66.0", "cnao": "v0.102.0", "ssp": "v0.26.0", "aaq": "v1.8.0",
             "hpp": "v0.19.0", "nmstate": "v0.82.0"},
    "1.18": {"kubevirt": "v1.8.4", "cdi": "v1.65.0", "cnao": "v0.102.0", "ssp": "v0.25.0", "aaq": "v1.8.0",
             "hpp": "v0.19.0", "nmstate": "v0.82.0"},
    "1.17": {"kubevirt": "v1.7.4", "cdi": "v1.64.0", "cnao": "v0.101.2", "ssp": "v0.24.1", "aaq": "v1.6.0",
             "hpp": "v0.19.0", "nmstate": "v0.82.0"},
    "1.16": {"kubevirt": "v1.6.2", "cdi": "v1.63.1", "cnao": "v0.100.2", "ssp": "v0.24.1", "aaq": "v1.6.0",
             "hpp": "v0.19.0", "nmstate": "v0.82.0"},
    "1.15": {"kubevirt": "v1.5.2", "cdi": "v1.62.0", "cnao": "v0.98.2", "ssp": "v0.23.1", "aaq": "v1.4.0",
             "hpp": "v0.19.0", "nmstate": "v0.82.0"},
    "1.14": {"kubevirt": "v1.4.0", "cdi": "v1.61.1", "cnao": "v0.97.3", "ssp": "v0.22.2", "aaq": "v1.3.0",
             "hpp": "v0.19.0", "nmstate": "v0.82.0"},
}


def needed(api_versions: t.Iterable[str]) -> list[Operator]:
    """The operators serving the API groups of ``api_versions``, in install order."""
    groups = {v.rsplit("/", 1)[0] for v in api_versions if "/" in v}
    return [op for op in OPERATORS if op.groups & groups]
