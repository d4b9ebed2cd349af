"""The test function every public-dataset question (``--tme-dataset``) is parametrized over.

Owned by the plugin and collected through :class:`pytest_typedmemeval._dataset_plugin.DatasetModule`,
so each dataset question is an ordinary ``pytest.Function`` under ``<rootdir>/dataset/<name>``:
fixtures (the adapter), ``-k``, ``-m``, junitxml and xdist work without special cases.
"""

from __future__ import annotations

import pytest

from ._dataset_plugin import evaluate_dataset_question


def dataset_question(tme_dataset_case: object, request: pytest.FixtureRequest) -> None:
    # The adapter (the ``typedmemeval_agent`` fixture, overridable in conftest.py) is requested
    # inside the call, as for corpus questions: a fixture that raises is then one usage error for
    # the run, not a setup traceback per question.
    evaluate_dataset_question(request, tme_dataset_case)
