#!/usr/bin/python
# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: write_manifests
short_description: Write Kubernetes objects to a directory, one YAML file each, in one step
version_added: 0.1.0
author:
  - virtinfra.hyperconverged contributors (@virtinfra)
description:
  - Runs on the controller. Writes each object to C(KIND-NAMESPACE-NAME.yaml) (C(cluster) for cluster-scoped
    objects) with sorted keys, so the bytes depend only on the object, and records the files it wrote in an index
    file, C(.virtinfra-rendered.json), in the same directory.
  - Only files named in that index are ever replaced or removed. A file someone else put in the directory is left
    alone; when a desired file's name is taken by such a file (with different content), or two objects would share a
    file, the task fails listing every conflict and writes nothing.
  - Used by the site playbook in render mode.
attributes:
  check_mode:
    support: full
    description: Reports what would be written and removed; writes nothing.
  diff_mode:
    support: full
    description: Each written or removed file's before and after (a Secret's content is never shown).
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
    description: A second run with the same objects writes nothing.
options:
  dest:
    description:
      - Directory to write to, created when missing. A relative path is relative to the directory
        C(ansible-playbook) runs in.
    type: str
    default: rendered
  objects:
    description: The objects, each with C(apiVersion), C(kind) and C(metadata.name).
    type: list
    elements: dict
    required: true
  prune:
    description: Remove the files this module wrote earlier for objects that are no longer in O(objects).
    type: bool
    default: true
  kustomization:
    description:
      - Also write C(kustomization.yaml), a Kustomization whose C(resources) are the object files, so that
        C(kubectl kustomize DIR) (and a GitOps controller given the directory) yields exactly O(objects). Like the
        object files, it replaces only a C(kustomization.yaml) this module wrote.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Write the operands rendered for a HyperConverged
  virtinfra.hyperconverged.write_manifests:
    dest: rendered
    objects: "{{ rendered.operands }}"
"""

RETURN = r"""
dest:
  description: The directory, as an absolute path.
  returned: always
  type: str
files:
  description: Every file of the desired objects.
  returned: always
  type: list
  elements: str
written:
  description: Files written (new or changed content).
  returned: always
  type: list
  elements: str
unchanged:
  description: Files whose content was already right.
  returned: always
  type: list
  elements: str
removed:
  description: Files this module wrote earlier for objects no longer desired, now removed.
  returned: always
  type: list
  elements: str
errors:
  description: Every reason nothing was written.
  returned: failure
  type: list
  elements: str
"""
