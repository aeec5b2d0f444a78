# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What HCO's webhook pod knows of the cluster: no node. PRIVATE.

HCO v1.20.0's webhook (``pkg/webhooks/validator``, ``ValidateCreate``/``ValidateUpdate`` -> ``checkOperands``) builds
each operand as a dry run with the cluster information of its own pod, which watches no Node: no control-plane or
worker count, no architecture. A ``*/jsonpatch`` annotation is applied to those objects, so a patch that tests,
replaces or removes a value only the nodes give (KubeVirt's ``architectureConfiguration.defaultArchitecture``, the
s390x-only values, ``/spec/infra`` where control-plane nodes drop it, the SSP's DICTs of an architecture) fails
there and refuses the request, and one the webhook admits may still fail every reconcile, where the nodes are known.
"""

from __future__ import annotations

import dataclasses

from .cluster import derive_facts
from .view import HCView


def without_nodes(view: HCView) -> HCView:
    """``view`` as the webhook pod builds from it: the same spec and cluster, the node-derived facts of no node."""
    facts = view.facts
    blind = derive_facts((), None, facts.platform, facts.namespace, facts.base_domain, facts.apiserver_tls_profile,
                         facts.monitoring)
    return dataclasses.replace(view, facts=blind)
