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
      - Also write C(kustomization.yaml), a Kustomization whose C(resources) are the object files and the folders
        (each with a C(kustomization.yaml) of its own listing its files), so that C(kubectl kustomize DIR) (and a
        GitOps controller given the directory) yields exactly O(objects), and C(kubectl kustomize DIR/FOLDER) the
        objects of that folder. Like the object files, it replaces only a C(kustomization.yaml) this module wrote.
    type: bool
    default: false
  folders:
    description:
      - One per object, in the order of O(objects) - the folder of O(dest) its file goes to (one folder name, no
        path); an empty string or no list puts files in O(dest) itself. A folder that is a symbolic link or a file
        is refused. A folder emptied by pruning is removed only when nothing else is left in it.
    type: list
    elements: str
    default: []
  kustomized:
    description:
      - With O(kustomization), folders that get a C(kustomization.yaml) even when no object goes there (a stage
        with nothing to write keeps a folder a GitOps controller can point at).
    type: list
    elements: str
    default: []
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
  description: Every file of the desired objects (and the kustomizations), by its path in O(dest)
    (C(FOLDER/NAME) in a folder).
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
