# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""site_descheduler: the KubeDescheduler configured for KubeVirt as the cluster's release checks it
(module_utils/_hco/alerts.py, DESCHEDULER_PROFILES), writing only the fields that rule needs, through server-side
apply without force and outside any apply set: the site never deletes it, and a field another manager set is never
taken.

HCO's rule and HCO's documentation differ: docs/cluster-configuration.md still shows the 1.14 customization
(profileCustomizations.devEnableEvictionsInBackground) at 03da3cff, while the code checks the profiles from v1.15.2
(controllers/descheduler, isDeschedulerMisconfigured). The site follows the code: the customization for 1.14, a
KubeVirt profile from 1.15. ``spec.profiles`` is a list the API server owns whole (no list type), so a profile can be
added only where the site may own the list: where nobody else set it. PRIVATE; no Ansible imports.
"""

from __future__ import annotations

import dataclasses
import typing as t

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._common.names import COLLECTION
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco import alerts
from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._k8s.alert_inputs import AlertInputs

CUSTOMIZATION = "spec.profileCustomizations.devEnableEvictionsInBackground"
PROFILES = "spec.profiles"
WHERE = f"KubeDescheduler {alerts.DESCHEDULER_NAMESPACE}/{alerts.DESCHEDULER_NAME}"


@dataclasses.dataclass(frozen=True)
class Planned:
    # What the site applies (only its fields), or None where the live object already satisfies the rule.
    object: dict[str, t.Any] | None
    note: str
    problems: tuple[str, ...] = ()


def _object(spec: dict[str, t.Any]) -> dict[str, t.Any]:
    return {"apiVersion": "operator.openshift.io/v1", "kind": "KubeDescheduler",
            "metadata": {"name": alerts.DESCHEDULER_NAME, "namespace": alerts.DESCHEDULER_NAMESPACE}, "spec": spec}


def _others(inputs: AlertInputs | None, path: str) -> list[str]:
    return [manager for manager in (inputs.descheduler_owners.get(path, ()) if inputs else ()) if manager != COLLECTION]


def plan(release: str, inputs: AlertInputs | None) -> Planned:
    """What site_descheduler writes for ``release``: ``inputs`` is what apply mode read (None in render mode, where
    the tree holds the object as the site would create it)."""
    if inputs is not None and not inputs.descheduler_served:
        problem = ("site_descheduler: the cluster does not serve KubeDescheduler (operator.openshift.io/v1): install "
                   "the Kube Descheduler Operator first, or set site_descheduler: false")
        return Planned(None, "", (problem,))
    live = inputs.descheduler if inputs else None
    wanted = alerts.DESCHEDULER_PROFILES[release]
    if wanted is None:
        if live is not None and (live.get("profileCustomizations") or {}).get("devEnableEvictionsInBackground") is True:
            return Planned(None, f"{WHERE} already sets devEnableEvictionsInBackground (HCO {release}'s rule)")
        others = _others(inputs, CUSTOMIZATION)
        if live is not None and others:
            problem = (f"site_descheduler: {WHERE} {CUSTOMIZATION} is set to another value by {', '.join(others)}; "
                       "the site never takes another manager's field: set it to true there")
            return Planned(None, "", (problem,))
        return Planned(_object({"profileCustomizations": {"devEnableEvictionsInBackground": True}}),
                       f"{WHERE}: {CUSTOMIZATION}: true (HCO {release}'s rule)")
    profiles = list((live or {}).get("profiles") or [])
    if any(profile in wanted for profile in profiles):
        return Planned(None, f"{WHERE} already has {', '.join(p for p in profiles if p in wanted)} (HCO {release}'s "
                             "rule)")
    others = _others(inputs, PROFILES)
    if profiles and others:
        problem = (f"site_descheduler: {WHERE} {PROFILES} ({', '.join(profiles)}) is set by {', '.join(others)}, and "
                   f"a list is owned whole: the site would take it. Add {wanted[0]} to it there (HCO {release} takes "
                   f"any of {', '.join(wanted)})")
        return Planned(None, "", (problem,))
    return Planned(_object({"profiles": [*profiles, wanted[0]]}),
                   f"{WHERE}: {PROFILES} gains {wanted[0]} (HCO {release}'s rule)")


def wanted(values: t.Mapping[str, t.Any], inputs: AlertInputs | None) -> Planned | None:
    """plan() where site_descheduler asks for it (a configuration, not a removal: the site never deletes it)."""
    if not values["descheduler"] or values["state"] != "present":
        return None
    return plan(values["release"], inputs)
