"""What the judge revision tests (``test_judge_revision3`` … ``10``) share: the outcome
shorthands, the shape of a case and the one check every case runs.

Each revision file keeps its own keys and cases — wordings written for that revision's classes, so
a rule that only matched one blind set's phrases fails there — and only the scaffolding lives here,
so how a case is graded and named is written once (importable as ``_judge_cases``: tests/ is on
sys.path).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

C, W, A, M, P, U = (Outcome.CORRECT, Outcome.WRONG, Outcome.ABSTAINED, Outcome.MISSED,
                    Outcome.PREMATURE, Outcome.UNJUDGED)

Case = tuple[str, str, AnswerKey, Outcome]
"""(answer, question, key, expected outcome): the question is what the adapter saw, so the judge
reads the answer with it (J13.5, J20.8)."""

CASE_FIELDS = ("answer", "question", "key", "outcome")


def case_ids(cases: Sequence[tuple[object, ...]]) -> list[str]:
    """A case's test id: the first 48 characters of its answer (what a failing run should show)."""
    return [str(case[0])[:48] for case in cases]


def each_case(cases: Sequence[Case]) -> pytest.MarkDecorator:
    """Parametrize a test over ``cases`` as (answer, question, key, outcome), named by answer."""
    return pytest.mark.parametrize(CASE_FIELDS, cases, ids=case_ids(cases))


def assert_graded(answer: str, question: str, key: AnswerKey, outcome: Outcome) -> None:
    """The mechanical judge grades ``answer`` to ``question`` as ``outcome``; the failure message
    is the judge's own reason, so a regression starts from the rule that fired."""
    verdict = judge_answer(answer, key, question=question)
    assert verdict.outcome is outcome, (answer, verdict.reason)
