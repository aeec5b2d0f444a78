# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The alerts HCO's own rules raise, per release profile, and whether the site can tell before any write that a
configuration will raise one. Data: each row from HCO's alert rules at each profile's tag
(pkg/monitoring/rules/alerts at v1.14.0; pkg/monitoring/hyperconverged/rules/alerts and
pkg/monitoring/observability/rules/alerts from v1.15.2 on), and the rule the alert's metric follows.
PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses

ALL = ("1.14", "1.15", "1.16", "1.17", "1.18", "1.19", "1.20")
FROM_1_15 = ALL[1:]
FROM_1_16 = ALL[2:]


@dataclasses.dataclass(frozen=True)
class Alert:
    name: str
    releases: tuple[str, ...]
    # How the site predicts it, or why it cannot (predicted False).
    predicted: bool
    how: str


ALERTS = (
    Alert("HCOMisconfiguredDescheduler", ALL, True,
          "reads the KubeDescheduler cluster/openshift-kube-descheduler-operator (where its CRD is served) and applies "
          "the release's rule: 1.14 wants profileCustomizations.devEnableEvictionsInBackground, 1.15 and 1.16 the "
          "profile DevKubeVirtRelieveAndMigrate or KubeVirtRelieveAndMigrate, 1.17 on also LongLifecycle "
          "(controllers/descheduler, isDeschedulerMisconfigured)"),
    Alert("DuplicateWaspAgentDSDetected", FROM_1_16, True,
          "lists the DaemonSets named wasp-agent: one in namespace wasp while memory is overcommitted (the rule's "
          "expression); any other beside the one HCO deploys is named too (two agents on a node fight over its "
          "swap)"),
    Alert("KubeVirtCRModified", ALL, True,
          "reads the HyperConverged the cluster holds and each operand HCO built from it, before any write (apply "
          "mode, hco mode), and names each field that differs from what HCO builds from that HyperConverged, with "
          "who set it (controllers/operandhandler, handleUpdatedOperand counts what HCO overwrites)"),
    Alert("UnsupportedHCOModification", ALL, True,
          "counts the jsonpatch operations of the HyperConverged's unsafe annotations, as HCO's metric counts them"),
    Alert("HCOInstallationIncomplete", ALL, True,
          "raised while HCO runs without a HyperConverged: in hco mode the site writes it in the same run"),
    Alert("HCOGoldenImageWithNoSupportedArchitecture", FROM_1_16, True,
          "the HyperConverged's status.dataImportCronTemplates as HCO computes them for the workload nodes' "
          "architectures (multi-arch boot images enabled): an entry whose Deployed condition is False"),
    Alert("HCOGoldenImageWithNoArchitectureAnnotation", FROM_1_16, True,
          "the same status: an entry without originalSupportedArchitectures (its DataImportCronTemplate lacks "
          "ssp.kubevirt.io/dict.architectures) while multi-arch boot images are enabled"),
    Alert("HCOMultiArchGoldenImagesDisabled", FROM_1_16, True,
          "the workload nodes have more than one architecture, golden images are imported and "
          "enableMultiArchBootImageImport is off"),
    Alert("SingleStackIPv6Unsupported", ALL[:2], False,
          "reads the cluster network's address families (OpenShift's Network config), which the site does not "
          "read"),
    Alert("HCOOperatorConditionsUnhealthy", ALL, False,
          "follows the operands' conditions once their operators run: runtime state, not configuration"),
    Alert("HighCPUWorkload", FROM_1_15, False, "node CPU usage over time: runtime state"),
    Alert("HAControlPlaneDown", FROM_1_15, False, "control-plane node readiness: runtime state"),
    Alert("NodeNetworkInterfaceDown", FROM_1_15, False, "node interface state from node-exporter: runtime state"),
    Alert("PersistentVolumeFillingUp", FROM_1_16, False, "volume usage: runtime state"),
    Alert("HighNodeCPUFrequency", FROM_1_16, False, "CPU frequency from node-exporter: runtime state"),
    Alert("DeprecatedMachineType", FROM_1_16, False,
          "reads each VirtualMachine's machine type: the VMs are not the site's"),
    Alert("VMNonRecoverableOSPanic", ALL[5:], False, "a guest's panic: runtime state"),
    Alert("ClusterVMPanicDetected", ALL[5:], False, "guests' panics across the cluster: runtime state"),
)

# The KubeDescheduler HCO reads (controllers/descheduler: deschedulerCRName, deschedulerNamespace).
DESCHEDULER_NAMESPACE = "openshift-kube-descheduler-operator"
DESCHEDULER_NAME = "cluster"
# Per release: the profiles any of which HCO takes for KubeVirt's (None: the 1.14 customization instead), and the
# profile the site sets when asked to configure it (the name the release's descheduler API gives it).
DESCHEDULER_PROFILES: dict[str, tuple[str, ...] | None] = {
    "1.14": None,
    "1.15": ("DevKubeVirtRelieveAndMigrate", "KubeVirtRelieveAndMigrate"),
    "1.16": ("DevKubeVirtRelieveAndMigrate", "KubeVirtRelieveAndMigrate"),
    **dict.fromkeys(ALL[3:], ("KubeVirtRelieveAndMigrate", "DevKubeVirtRelieveAndMigrate", "LongLifecycle")),
}
# The wasp-agent DaemonSet the DuplicateWaspAgentDSDetected rule counts.
WASP_RULE_NAMESPACE = "wasp"
WASP_AGENT = "wasp-agent"


def of_release(release: str) -> tuple[Alert, ...]:
    return tuple(alert for alert in ALERTS if release in alert.releases)
