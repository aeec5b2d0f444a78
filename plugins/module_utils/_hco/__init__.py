# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""HyperConverged -> operand computation, pure Python (no Ansible imports).

PRIVATE: the layout of this package is not part of the collection's public API; use the
``hco_render`` action or the ``hco_operands`` filter.
"""

# The Python floor (_python.py), checked before anything else is imported.
from .. import _python  # noqa: F401
