"""Prints the fault matrix's summary line at the end of a run that included it (a plain, serial
``pytest`` as CI runs it; under xdist each worker holds its own part, so only the per-case results
show, and ``scripts/fault_matrix.py`` prints the line)."""

from __future__ import annotations

import json
from typing import Any

from fault_cases import summary_line


def pytest_terminal_summary(terminalreporter: Any) -> None:
    tallies = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for name, value in getattr(report, "user_properties", ()):
                if name == "fault_matrix":
                    tallies.append(json.loads(value))
    if tallies:
        terminalreporter.write_sep("-", "fault matrix")
        terminalreporter.write_line(summary_line(tallies))
