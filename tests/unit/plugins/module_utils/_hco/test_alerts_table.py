# Copyright (c) virtinfra.hyperconverged contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The alerts guide's table is the alert data, row for row: each alert, the profiles whose HCO has it, whether the
site predicts it, and how (or why not)."""

from __future__ import annotations

import pathlib
import re

from ansible_collections.virtinfra.hyperconverged.plugins.module_utils._hco import alerts

GUIDE = pathlib.Path(__file__).resolve().parents[5] / "docs" / "docsite" / "rst" / "guide_alerts.rst"


def test_the_guides_table_is_the_alert_data():
    text = GUIDE.read_text(encoding="utf-8").split("The alerts of each release profile", 1)[1]
    rows = re.findall(r"   \* - ``(\w+)``\n     - ([\d. to]+)\n     - (.+)\n     - (.+)\n", text)
    assert rows == [
        (alert.name, alert.releases[0] + (f" to {alert.releases[-1]}" if len(alert.releases) > 1 else ""),
         "predicted" if alert.predicted else "not predictable here", alert.how) for alert in alerts.ALERTS]
