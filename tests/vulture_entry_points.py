# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What vulture (scripts/lint) cannot see used in plugins/: names Ansible or a library reads, each with why.
Anything else it reports is dead code, to delete. (vulture counts an attribute read as a use of the name.)"""

import types

_ = types.SimpleNamespace()
# Ansible loads plugins by these names and reads their documentation from these variables.
_.ActionModule, _.FilterModule, _.InventoryModule, _.ModuleDocFragment
_.DOCUMENTATION, _.EXAMPLES, _.RETURN, _.NAME
_.filters, _.verify_file, _.parse
_.trusted_by_default   # ansible-core 2.19+ reads it: the fleet inventory's templates are the user's own
_.TRANSFERS_FILES   # ansible.plugins.action.ActionBase reads it
_.CALL              # a doc fragment's section: virtinfra.hyperconverged.k8s_auth.call
# decimal.Context's precision, set in a local context.
_.prec
# PyYAML's constructor keeps its state in these; the bounded loader resets them per document (yaml_go.py).
_.constructed_objects, _.recursive_objects, _.deep_construct
# PyYAML's composer calls it by name: the bare-tag loader's override (yaml_go.py).
_.compose_scalar_node
# PyYAML's emitter passes it by keyword to the override in _manifest_files.py.
_.indentless
