#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: site_fleet
short_description: The fleet's summary after the site playbook, and its GitOps files in render mode
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Runs on the controller, as the site playbook's last task in a fleet (the hosts of C(kubevirt_clusters), see the
    P(virtinfra.hyperconverged.fleet#inventory) inventory). Takes no options; it reads what each cluster's run
    registered (C(site_settings), C(site_summary), C(site_failed)) from C(hostvars).
  - Says, for every cluster of the fleet, whether it was configured or rendered (with its summary's first line and
    release profile), refused before any write (with every problem), failed (with where it stopped and how to
    resume), or not in this run (a sliced AWX job, C(--limit)); and which nodes were not prepared because their
    cluster was not in the run.
  - When the run rendered every cluster of the fleet, writes below the fleet's render root an Argo CD
    C(ApplicationSet) (C(argocd/); a list generator with an element per cluster, when the repository's URL is known)
    and for each cluster in the stages layout a chain of Flux Kustomizations (C(flux/NAME/)), as
    M(virtinfra.hyperconverged.write_manifests) writes files (only files it wrote are replaced or removed). A run that
    holds part of the fleet writes none of them, since they list the whole fleet.
attributes:
  check_mode:
    support: full
    description: Says what would be written and removed; writes nothing.
  diff_mode:
    support: none
    description: The files are listed, not diffed.
  action:
    support: full
    description: Runs on the controller.
  async:
    support: none
    description: Writes local files.
  platform:
    support: full
    platforms: all
    description: Needs no connection.
  idempotent:
    support: full
    description: A second run with the same fleet writes nothing.
options: {}
seealso:
  - plugin: virtinfra.hyperconverged.fleet
    plugin_type: inventory
"""

EXAMPLES = r"""
# The site playbook's last task, on localhost, after every cluster's plays
- name: Each cluster's outcome, and the fleet's GitOps files
  virtinfra.hyperconverged.site_fleet:
"""

RETURN = r"""
msg:
  description: The fleet's summary, a line per cluster after the totals, then what was written.
  returned: always
  type: list
  elements: str
written:
  description: The GitOps files written (or that would be).
  returned: always
  type: list
  elements: str
removed:
  description: The GitOps files removed (or that would be).
  returned: always
  type: list
  elements: str
"""
