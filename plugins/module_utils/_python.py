# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The oldest Python the collection's modules run on, checked wherever they run. PRIVATE.

Every private package's ``__init__`` imports this first, so a module on an older interpreter (a RHEL 9 host's
platform Python is 3.9) fails with this message rather than a TypeError from the first ``X | None`` it meets. Written
for any Python 3, so that the old interpreter gets as far as saying so.
"""

import platform
import sys

MINIMUM = (3, 11)

if tuple(sys.version_info[:2]) < MINIMUM:
    # %-formatting, not an f-string: the interpreter refused here may be older than f-strings.
    raise ImportError("virtinfra.hyperconverged needs Python %d.%d or later where its modules run; "  # noqa: UP031
                      "%s is Python %s: set ansible_python_interpreter to a newer one"
                      % (MINIMUM[0], MINIMUM[1], sys.executable, platform.python_version()))
