"""The test function every corpus question is parametrized over.

Owned by the plugin and collected through :class:`pytest_typedmemeval.plugin.QuestionModule`, so
each question is an ordinary ``pytest.Function``: fixtures (the adapter), ``-k``, junitxml,
xdist and syrupy all work without special cases.
"""

from __future__ import annotations

import pytest

from ._session import evaluate_question


def question(tme_case: object, request: pytest.FixtureRequest) -> None:
    # The adapter (the ``typedmemeval_agent`` fixture) is requested inside the call, not as an
    # argument: a fixture that raises is then one usage error for the run, not a setup traceback
    # per question.
    evaluate_question(request, tme_case)
