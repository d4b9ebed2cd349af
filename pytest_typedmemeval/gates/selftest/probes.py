"""The probe gate's self-test fixtures: questions, probe records per arm and the corpora that carry
them in a sidecar.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ...corpus.loading import Corpus
from ...corpus.models import (
    AnswerKey,
    Candidate,
    CorpusTurn,
    ExtensionBlock,
    ProbeRecord,
    ProbeVerdict,
    QuestionRecord,
    Sidecar,
    format_corpus_date,
)


_START = datetime(2026, 4, 6, 8, 0)
_PROVENANCE: dict[str, Any] = {"model": "reference-model", "date": "2026-04-30", "seed": 7,
                               "temperature": 0.0}


def _question(number: int, shape: str, *, gold: bool = True, candidates: int = 0,
              pair: tuple[str, str] | None = None) -> QuestionRecord:
    ids = tuple(f"{shape}-{number}-{index}" for index in range(3))
    sessions = tuple(
        (CorpusTurn(role="user", content=f"Note {index} about the {shape} errand.",
                    has_answer=gold and index == 1),
         CorpusTurn(role="assistant", content="Noted."))
        for index in range(3)
    )
    block: dict[str, Any] = {"vertical": "selftest", "shape": shape,
                             "answer_key": AnswerKey(accepted=("the blue folder",)) if gold
                             else AnswerKey(expected_negative="abstain")}
    if candidates:
        block["candidates"] = tuple(Candidate(session_index=i % 3, matches=i == 1)
                                    for i in range(candidates))
    if pair is not None:
        block["pair_id"], block["arm"] = pair
    return QuestionRecord(
        question_id=f"tme-epi-{number:03d}" + ("" if gold else "_abs"), question_type=shape,
        question=f"What did I say about the {shape} errand?",
        answer="the blue folder" if gold else "You never mentioned it.",
        question_date=format_corpus_date(_START + timedelta(days=10)),
        haystack_session_ids=ids,
        haystack_dates=tuple(format_corpus_date(_START + timedelta(days=i)) for i in range(3)),
        haystack_sessions=sessions, answer_session_ids=(ids[1],) if gold else (),
        typedmemeval=ExtensionBlock.model_validate(block),
    )


def _arm(arm: str, shape: str, ids: Sequence[str], correct: int, *, samples: int = 1,
         good: str = "correct", bad: str = "wrong") -> ProbeRecord:
    """A measured record where the first ``correct`` questions get ``good`` on every sample."""
    verdicts = tuple(ProbeVerdict(question_id=qid, sample=s, outcome=good if i < correct else bad)
                     for i, qid in enumerate(ids) for s in range(samples))
    return ProbeRecord(arm=arm, shape=shape, status="measured", verdicts=verdicts, **_PROVENANCE)


def _gold_arms(shape: str, ids: Sequence[str], v1: int, v8: int, v9: int) -> list[ProbeRecord]:
    return [_arm("V1", shape, ids, v1), _arm("V8", shape, ids, v8), _arm("V9", shape, ids, v9)]


def _corpus(name: str, questions: Sequence[QuestionRecord], records: Sequence[ProbeRecord] | None,
            extra: dict[str, Any] | None = None) -> Corpus:
    sidecar = None if records is None else Sidecar(
        corpus_id=f"self-test-probes-{name}", revision=1, vertical="selftest", sha256="0" * 64,
        probe_records=tuple(records), extra=extra or {})
    return Corpus(corpus_id=f"self-test-probes-{name}", path=Path(f"<self-test:{name}>"),
                  sha256="0" * 64, records=tuple(questions), sidecar=sidecar, vertical="selftest")
