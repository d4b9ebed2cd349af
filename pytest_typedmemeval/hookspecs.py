"""Hooks that other plugins and ``conftest.py`` files may implement.

Register an implementation as you would any pytest hook (a function of this name in a conftest or
plugin). None of these hooks is required.

The markers are pluggy's for the project ``"pytest"``, which is what ``pytest.hookspec`` is: the
specs are the same, and this module (which the entry point adds with ``pytest_addhooks``) needs
pytest only for the annotations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

    from .judge.protocol import Judge
    from .results import QuestionResult

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_typedmemeval_make_judge(config: pytest.Config) -> Judge | None:
    """Return the judge that grades every answer, or ``None`` to keep the judge ``--tme-judge``
    names (mechanical by default).

    :param config: the pytest config.

    Runs once per process (the controller and every xdist worker), at the first question. A
    non-``None`` result wins over ``--tme-judge``. The judge must be deterministic across processes
    if you want ``-n 0`` and ``-n 4`` to agree; its ``fingerprint`` is recorded on every result so
    runs graded by different rules never pool.

    Use in conftest plugins: return an object with ``name``, ``fingerprint`` and
    ``judge(answer, key, surfaced_items=None, *, question=None) -> Verdict`` (``question`` is the
    question text). Optional: ``model`` (named in the report's ``judge`` block) and ``close()``
    (called once when the session ends). The report names such a judge's mode ``hook``.
    """


def pytest_typedmemeval_result(result: QuestionResult, item: pytest.Item) -> None:
    """Called after one question has been run and judged, in the process that ran it.

    :param result: the plain-data result (it will also reach the controller's report).
    :param item: the pytest item of the question.

    Under xdist this fires on the worker. Use it to log answers or stream them somewhere; do not
    mutate the result (it is frozen).
    """


def pytest_typedmemeval_report(report: dict[str, Any], config: pytest.Config) -> None:
    """Called on the controller (or the only process) with the JSON report before it is written.

    :param report: the report dict; add keys to extend it (existing keys are the stable schema).
    :param config: the pytest config.

    Fires whenever the run selected questions (or produced results), whether or not ``--tme-report``
    is set, so a conftest can forward the report elsewhere, and also on a partial run: check
    ``report["complete"]`` (``False`` when any selected question has no result; ``not_run`` names
    each with its cause) and ``report["interrupted"]`` before treating the figures as final.
    """
