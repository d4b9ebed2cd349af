"""The test function every scenario item is parametrized over (``--tme-scenarios``).

Owned by the plugin and collected through :class:`pytest_typedmemeval._scenario_plugin.ScenarioModule`,
so each probe, each scenario's formation, the baseline check and the live arm are ordinary
``pytest.Function`` items: ``-m``, ``-k``, junitxml, xdist and syrupy work without special cases.
"""

from __future__ import annotations

import pytest


def scenario(tme_scenario_case: object, request: pytest.FixtureRequest) -> None:
    # The memory (the ``typedmemeval_scenario_memory`` fixture or --tme-scenario-memory) is
    # resolved inside the call, so a broken factory is one failure for the run, not a setup
    # traceback per probe.
    from ._scenario_plugin import evaluate

    evaluate(request, tme_scenario_case)
