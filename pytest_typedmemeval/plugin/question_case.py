"""The parameter of a question item and how to find it on an item: apart from
:mod:`.question_items` so that the modules that schedule or select question items
(:mod:`.questions_in_flight`, :mod:`.shard_selection`) need not import the items' module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from .collectors import parametrized_case

if TYPE_CHECKING:
    from ..corpus.index import CorpusIndex, QuestionHead

CASE_ARGUMENT = "tme_case"


@dataclass(frozen=True)
class QuestionCase:
    """The parameter of one question item: the corpus it belongs to and its question's head (the
    record itself is read back when the question runs, :meth:`CorpusIndex.record`)."""

    corpus: CorpusIndex
    head: QuestionHead

    def __repr__(self) -> str:  # shown by --setup-show and in failure text
        return f"{self.corpus.corpus_id}/{self.head.question_id}"


def question_case(item: pytest.Item) -> QuestionCase | None:
    """The question ``item`` asks, or ``None`` (a gate, dataset or user item)."""
    case: QuestionCase | None = parametrized_case(item, CASE_ARGUMENT, QuestionCase)
    return case
