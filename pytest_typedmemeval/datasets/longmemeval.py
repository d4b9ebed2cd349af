"""LongMemEval (``xiaowu0162/LongMemEval``; data on Hugging Face) into the internal form.

Upstream layout (README "Dataset Format", read at commit 9e0b455): ``longmemeval_s.json``,
``longmemeval_m.json``, ``longmemeval_oracle.json`` (and the 2025-09 ``*_cleaned.json``) are one
JSON list of questions ``{question_id, question_type, question, answer, question_date,
haystack_session_ids, haystack_dates, haystack_sessions, answer_session_ids}``; a session is a
list of ``{role: user|assistant, content, has_answer?}``; dates read ``"2023/05/20 (Sat) 02:21"``.
A question is an abstention question when ``"_abs"`` is in its id (the test upstream's
``evaluate_qa.py`` and ``print_qa_metrics.py`` apply).

Evidence: ``answer_session_ids`` resolved to the opaque ids of those sessions, with the turns
marked ``has_answer`` where the file marks any (the session-level provenance figure). Upstream's
own retrieval labels are kept beside them (:attr:`DatasetQuestion.upstream_evidence`), as
``src/retrieval/run_retrieval.py`` ``process_item_flat_index`` sets them at session granularity: a
haystack session is relevant when its id contains ``answer`` and one of its *user* turns has
``has_answer`` (so a single-session-assistant question has none); abstention questions have none. The ``answer_``-prefixed upstream ids never reach
the adapter. Sessions are ingested in date order (``longmemeval_oracle.json`` is not sorted).

Known defects tolerated (each counted): numeric answers, duplicated haystack sessions
(LongMemEval#54), parallel lists of different lengths (truncated to the shortest), evidence ids not
in the haystack, sessions dated after the question, weekdays that disagree with their dates,
unreadable dates, turns with an unknown role or non-text content.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from ..adapter.protocol import Session, Turn
from .dates import parse_longmemeval_time
from .fields import Where, expect, require
from .models import DatasetQuestion, DatasetSpec, DefectLog, EvidenceRef, LoadedDataset
from .sessions import DATASET_INSTRUCTION, fill_missing_times, opaque_session_id
from .source import read_json

QUESTION_TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
                  "multi-session", "knowledge-update", "temporal-reasoning")
ABSTENTION_MARK = "_abs"

SPEC = DatasetSpec(
    name="longmemeval",
    title="LongMemEval",
    licence="MIT",
    categories=QUESTION_TYPES,
    reported_apart=frozenset({"single-session-assistant"}),
    published_metric="QA accuracy by a GPT-4o judge (src/evaluation/evaluate_qa.py; not reproduced here); "
                     "retrieval recall_any/recall_all/ndcg_any at k",
    retrieval_metric="longmemeval",
    caveats=(
        "No model judge is used, unlike the published LongMemEval figures (GPT-4o judge): there is no "
        "upstream token metric to reproduce, so the typed reading (correct at normalised token F1 >= "
        "0.5) decides in every --tme-dataset-scoring mode, and its figures are not comparable with "
        "published ones. --tme-judge does not grade dataset questions.",
        "Retrieval figures recall_any@k, recall_all@k and ndcg_any@k (k = 5, 10) follow upstream's "
        "src/retrieval/eval_utils.py with upstream's session labels (id contains 'answer' and a user "
        "turn has has_answer), from the sessions the adapter reported; 'R@k (answer sessions)' is "
        "TypedMemEval's own figure over answer_session_ids.",
        "Abstention questions ('_abs') are scored by TypedMemEval's decline and denial reading.",
        "single-session-assistant is reported on its own line and left out of the overall line by "
        "design: a system that never forms memories from assistant turns is expected to score zero there.",
        "single-session-preference gold answers are rubrics written for a model judge; token F1 "
        "against them is low by construction.",
        "Evidence-provenance recall is measured at session level from the adapter's reported evidence.",
        "Only the questions of this run's sample were run; the system under test is the adapter "
        "that ran, not a reference extractor.",
        "Known label errors in the upstream files (LongMemEval#12, #19, #21, #37) are not corrected here.",
    ),
)


def load_longmemeval(path: str | Path) -> LoadedDataset:
    """Read a LongMemEval file (``_s``, ``_m``, ``_oracle`` or a ``_cleaned`` variant) from ``path``."""
    source = read_json(path)
    where = Where(source.label)
    records = expect(source.data, list, where, "<top level>")
    log = DefectLog()
    questions = [q for index, raw in enumerate(records) if (q := _question(index, raw, where, log)) is not None]
    return LoadedDataset(spec=SPEC, sha256=source.sha256, questions=tuple(questions),
                         report=log.report(len(records), len(questions)))


def _question(index: int, raw: Any, where: Where, log: DefectLog) -> DatasetQuestion | None:
    record = expect(raw, dict, where, f"[{index}]")
    question_id = require(record, "question_id", str, where, f"[{index}]")
    at = where.at(question_id)
    question_type = require(record, "question_type", str, at)
    text = require(record, "question", str, at)
    if "answer" not in record:
        raise at.error("answer", "missing (required)")
    answer = expect(record["answer"], (str, int, float), at, "answer")
    if not isinstance(answer, str):
        log.note("numeric_answer", question_id)
    question_date = require(record, "question_date", str, at)
    ids = require(record, "haystack_session_ids", list, at)
    dates = require(record, "haystack_dates", list, at)
    raw_sessions = require(record, "haystack_sessions", list, at)
    if question_type not in QUESTION_TYPES:
        log.note("unknown_question_type", question_id)
    if not len(ids) == len(dates) == len(raw_sessions):
        log.note("haystack_length_mismatch", question_id)
    count = min(len(ids), len(dates), len(raw_sessions))
    source_ids = [str(ids[i]) for i in range(count)]
    if len(set(source_ids)) != count:
        log.note("duplicate_session_id", question_id)

    query_time, query_defect = parse_longmemeval_time(question_date)
    times: list[datetime | None] = []
    for i in range(count):
        moment, defect = parse_longmemeval_time(dates[i])
        if moment is None:
            log.note("session_without_date", question_id)
        elif defect:
            log.note(defect, question_id)
        times.append(moment)
    filled = fill_missing_times(times)
    if query_time is None:
        log.note("question_without_date", question_id)
        query_time = max(filled, default=datetime(2000, 1, 1))
    elif query_defect:
        log.note(query_defect, question_id)
    if any(moment > query_time for moment in filled):
        log.note("session_after_question", question_id)

    # Ingest in date order: the oracle file is not sorted, and a stable sort keeps S/M as they are.
    order = sorted(range(count), key=lambda i: filled[i])
    sessions: list[Session] = []
    marked: list[list[int]] = []
    for position, i in enumerate(order):
        turns, answer_turns = _turns(raw_sessions[i], question_id, log)
        sessions.append(Session(session_id=opaque_session_id(SPEC.name, question_id, position, source_ids[i]),
                                timestamp=filled[i], turns=turns))
        marked.append(answer_turns)
    ordered_ids = tuple(source_ids[i] for i in order)
    evidence = _evidence(record.get("answer_session_ids"), ordered_ids, sessions, marked, question_id, log)
    abstention = ABSTENTION_MARK in question_id
    upstream = None if abstention else _upstream_labels(ordered_ids, sessions, marked)
    gold = str(answer).strip()
    if not gold and not abstention:
        log.exclude("missing_answer", question_id)
        return None
    return DatasetQuestion(
        dataset=SPEC.name, question_id=question_id, item_id=f"q{index:04d}", category=question_type,
        sessions=tuple(sessions), source_session_ids=ordered_ids, question=text, query_time=query_time,
        instruction=DATASET_INSTRUCTION, gold_answers=() if abstention or not gold else (gold,),
        gold_display=gold, evidence=evidence, abstention=abstention, upstream_evidence=upstream,
    )


def _upstream_labels(source_ids: tuple[str, ...], sessions: list[Session],
                     marked: list[list[int]]) -> tuple[tuple[int, str], ...]:
    """Upstream's relevant sessions (see the module docstring) as (distinct upstream id, opaque id)
    pairs; a session id the haystack repeats is one document, as upstream's id comparison makes it."""
    docs: dict[str, int] = {}
    out: list[tuple[int, str]] = []
    for position, source_id in enumerate(source_ids):
        turns = sessions[position].turns
        if "answer" in source_id and any(turns[t].role == "user" for t in marked[position]):
            out.append((docs.setdefault(source_id, len(docs)), sessions[position].session_id))
    return tuple(out)


def _turns(raw: Any, question_id: str, log: DefectLog) -> tuple[tuple[Turn, ...], list[int]]:
    """A session's turns as the adapter sees them (``has_answer`` dropped) and the positions of
    the turns the file marks ``has_answer``."""
    if not isinstance(raw, list):
        log.note("session_not_a_list", question_id)
        return (), []
    turns: list[Turn] = []
    marked: list[int] = []
    for entry in raw:
        if not isinstance(entry, dict) or entry.get("role") not in ("user", "assistant"):
            log.note("turn_unknown_role", question_id)
            continue
        content = entry.get("content")
        if not isinstance(content, str):
            log.note("turn_content_not_text", question_id)
            content = "" if content is None else str(content)
        if entry.get("has_answer") is True:
            marked.append(len(turns))
        turns.append(Turn(role=entry["role"], content=content))
    return tuple(turns), marked


def _evidence(raw: Any, source_ids: tuple[str, ...], sessions: list[Session], marked: list[list[int]],
              question_id: str, log: DefectLog) -> tuple[EvidenceRef, ...]:
    if raw is None:
        log.note("missing_evidence", question_id)
        return ()
    if not isinstance(raw, list):
        log.note("evidence_not_a_list", question_id)
        return ()
    wanted = {str(value) for value in raw}
    for _ in sorted(wanted - set(source_ids)):
        log.note("evidence_dangling", question_id)
    refs: list[EvidenceRef] = []
    for position, source_id in enumerate(source_ids):
        if source_id in wanted:
            session_id = sessions[position].session_id
            refs.extend([EvidenceRef(session_id, t) for t in marked[position]] or [EvidenceRef(session_id)])
        elif marked[position]:
            log.note("has_answer_outside_evidence", question_id)
    return tuple(refs)
