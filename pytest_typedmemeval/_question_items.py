"""The test function every corpus question is parametrized over.

Owned by the plugin and collected through :class:`pytest_typedmemeval.plugin.QuestionModule`, so
each question is an ordinary ``pytest.Function``: fixtures (the adapter), ``-k``, junitxml,
xdist and syrupy all work without special cases.
"""

from __future__ import annotations

import pytest

from ._session import evaluate_question


def question(tme_case: object, typedmemeval_agent: object, request: pytest.FixtureRequest) -> None:
    evaluate_question(request, tme_case, typedmemeval_agent)
