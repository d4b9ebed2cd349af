"""HaluMem (``MemTensor/HaluMem``; data on Hugging Face ``IAAR-Shanghai/HaluMem``) into the
internal form.

Upstream layout, as read from the repository at commit 59402b9 (README "Dataset Structure",
``eval/eval_memzero.py``, ``scripts/stage6_2_final_result_medium.py``,
``scripts/stage6_1_question_generation.py``): ``HaluMem-Medium.jsonl`` / ``HaluMem-Long.jsonl``
hold one user per line, ``{uuid, persona_info, sessions: [...]}``; a session is ``{start_time,
end_time, dialogue: [{role, content, timestamp, dialogue_turn}], memory_points: [{index,
memory_content, memory_type, memory_source, is_update: "True"|"False", original_memories,
importance, timestamp}], questions?: [{question, answer, evidence: [{memory_content,
memory_type}], difficulty, question_type}], is_generated_qa_session?}``; times read
``"Dec 15, 2025, 08:41:23"``.

**Assumptions** (the data file itself is on Hugging Face and was not read here): question types are
the six the generator defines (Basic Fact Recall, Multi-hop Inference, Dynamic Update, Memory
Boundary, Generalization & Application, Memory Conflict); ``Memory Boundary`` questions have empty
evidence and are the abstention probes; upstream's evaluation asks a session's questions right
after adding that session, so a question here ingests the sessions up to and including its own
and is asked at that session's ``end_time``. Evidence memory points are resolved to the sessions
whose ``memory_points`` carry the same text (session level: HaluMem links memory points, not
turns, to questions). Each dialogue turn's ``timestamp`` reaches the adapter as
:attr:`Turn.timestamp <pytest_typedmemeval.adapter.protocol.Turn.timestamp>` (``None``, and
counted, where it is missing or unreadable).

The memory-extraction and memory-update tasks of HaluMem need the system to list what it stored;
the adapter protocol has no such capability, so only the question-answering task is run here.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from ..adapter.protocol import Session, Turn
from .dates import parse_halumem_time
from .fields import Where, expect, require
from .models import DatasetQuestion, DatasetSpec, DefectLog, EvidenceRef, LoadedDataset
from .sessions import DATASET_INSTRUCTION, fill_missing_times, opaque_session_id
from .source import read_json_lines

QUESTION_TYPES = ("Basic Fact Recall", "Multi-hop Inference", "Dynamic Update", "Memory Boundary",
                  "Generalization & Application", "Memory Conflict")
ABSTENTION_TYPE = "Memory Boundary"

SPEC = DatasetSpec(
    name="halumem",
    title="HaluMem",
    licence="CC BY-NC-ND 4.0",
    categories=QUESTION_TYPES,
    published_metric="QA labels Correct / Hallucination / Omission by a GPT-4o judge (not reproduced here)",
    caveats=(
        "No model judge is used, unlike HaluMem's own evaluation (GPT-4o judge labelling Correct / "
        "Hallucination / Omission): there is no upstream token metric to reproduce, so the typed "
        "reading (correct at normalised token F1 >= 0.5) decides in every --tme-dataset-scoring "
        "mode. --tme-judge does not grade dataset questions.",
        "Memory Boundary questions are abstention probes scored by TypedMemEval's decline and denial "
        "reading.",
        "Only the question-answering task is run: memory extraction and memory update need a "
        "listing of stored memories that the adapter protocol does not offer.",
        "Each question ingests the sessions up to and including the one it belongs to and is asked "
        "at that session's end time.",
        "Evidence-provenance recall is measured at session level (memory points resolved to the "
        "sessions that carry them).",
        "Only the questions of this run's sample were run; the system under test is the adapter "
        "that ran, not a reference extractor.",
    ),
)


def load_halumem(path: str | Path) -> LoadedDataset:
    """Read ``HaluMem-Medium.jsonl`` or ``HaluMem-Long.jsonl`` from ``path``."""
    source = read_json_lines(path)
    where = Where(source.label)
    users = expect(source.data, list, where, "<top level>")
    log = DefectLog()
    questions: list[DatasetQuestion] = []
    total = 0
    for user_index, raw in enumerate(users):
        record = expect(raw, dict, where, f"line {user_index + 1}")
        uuid = require(record, "uuid", str, where, f"line {user_index + 1}")
        sessions = require(record, "sessions", list, where.at(uuid))
        user = _User(uuid, sessions, where.at(uuid), log)
        total += user.question_count
        questions.extend(user.questions(user_index, where.at(uuid), log))
    return LoadedDataset(spec=SPEC, sha256=source.sha256, questions=tuple(questions),
                         report=log.report(total, len(questions)))


class _User:
    """One user's sessions (turns, times, memory points), shared by the user's questions."""

    def __init__(self, uuid: str, raw_sessions: list[Any], where: Where, log: DefectLog) -> None:
        self.uuid = uuid
        self.raw = [expect(raw, dict, where, f"sessions[{i}]") for i, raw in enumerate(raw_sessions)]
        self.turns: list[tuple[Turn, ...]] = []
        starts: list[datetime | None] = []
        ends: list[datetime | None] = []
        self.memory_sessions: dict[str, list[int]] = {}
        for i, session in enumerate(self.raw):
            dialogue = require(session, "dialogue", list, where, f"sessions[{i}]")
            self.turns.append(self._turns(dialogue, i, log))
            start = parse_halumem_time(session.get("start_time"))
            if start is None:
                log.note("session_without_date", f"{uuid}/s{i:03d}")
            starts.append(start)
            ends.append(parse_halumem_time(session.get("end_time")))
            points = session.get("memory_points", [])
            if not isinstance(points, list):
                log.note("memory_points_not_a_list", f"{uuid}/s{i:03d}")
                points = []
            for point in points:
                content = point.get("memory_content") if isinstance(point, dict) else None
                if isinstance(content, str) and content.strip():
                    self.memory_sessions.setdefault(content.strip(), []).append(i)
                else:
                    log.note("memory_point_without_content", f"{uuid}/s{i:03d}")
        self.starts = fill_missing_times(starts)
        self.asked = [end if end is not None and end >= start else start for end, start in zip(ends, self.starts)]
        self.question_count = sum(len(s["questions"]) for s in self.raw if isinstance(s.get("questions"), list))

    def _turns(self, dialogue: list[Any], index: int, log: DefectLog) -> tuple[Turn, ...]:
        turns = []
        for entry in dialogue:
            if not isinstance(entry, dict) or entry.get("role") not in ("user", "assistant"):
                log.note("turn_unknown_role", f"{self.uuid}/s{index:03d}")
                continue
            content = entry.get("content")
            if not isinstance(content, str):
                log.note("turn_content_not_text", f"{self.uuid}/s{index:03d}")
                content = "" if content is None else str(content)
            moment = parse_halumem_time(entry.get("timestamp"))
            if moment is None:
                log.note("turn_without_timestamp", f"{self.uuid}/s{index:03d}")
            turns.append(Turn(role=entry["role"], content=content, timestamp=moment))
        return tuple(turns)

    def questions(self, user_index: int, where: Where, log: DefectLog) -> list[DatasetQuestion]:
        out: list[DatasetQuestion] = []
        running = 0
        for s_index, session in enumerate(self.raw):
            raw_questions = session.get("questions")
            if raw_questions is None:
                continue
            if not isinstance(raw_questions, list):
                log.note("questions_not_a_list", f"{self.uuid}/s{s_index:03d}")
                continue
            for q_index, raw in enumerate(raw_questions):
                question_id = f"{self.uuid}/s{s_index:03d}/q{q_index:02d}"
                item_id = f"u{user_index:02d}/q{running:04d}"
                running += 1
                question = self._question(question_id, item_id, s_index, raw, where.at(question_id), log)
                if question is not None:
                    out.append(question)
        return out

    def _question(self, question_id: str, item_id: str, s_index: int, raw: Any, at: Where,
                  log: DefectLog) -> DatasetQuestion | None:
        item = expect(raw, dict, at, "question")
        text = require(item, "question", str, at)
        question_type = require(item, "question_type", str, at)
        if question_type not in QUESTION_TYPES:
            log.note("unknown_question_type", question_id)
        abstention = question_type == ABSTENTION_TYPE
        answer = item.get("answer")
        if isinstance(answer, bool) or not isinstance(answer, (str, int, float)) or not str(answer).strip():
            if not abstention:
                log.exclude("missing_answer", question_id)
                return None
            answer = ""
        source_ids = tuple(f"session_{i}" for i in range(s_index + 1))
        sessions = tuple(
            Session(session_id=opaque_session_id(SPEC.name, question_id, i, source_ids[i]),
                    timestamp=self.starts[i], turns=self.turns[i])
            for i in range(s_index + 1))
        positions = self._evidence_sessions(item.get("evidence"), s_index, question_id, abstention, log)
        return DatasetQuestion(
            dataset=SPEC.name, question_id=question_id, item_id=item_id, category=question_type,
            sessions=sessions, source_session_ids=source_ids, question=text, query_time=self.asked[s_index],
            instruction=DATASET_INSTRUCTION, gold_answers=() if abstention else (str(answer).strip(),),
            gold_display=str(answer).strip(), abstention=abstention,
            evidence=tuple(EvidenceRef(sessions[i].session_id) for i in positions),
        )

    def _evidence_sessions(self, raw: Any, s_index: int, question_id: str, abstention: bool,
                           log: DefectLog) -> list[int]:
        if raw is None:
            log.note("missing_evidence", question_id)
            return []
        if not isinstance(raw, list):
            log.note("evidence_not_a_list", question_id)
            return []
        if not raw and not abstention:
            log.note("empty_evidence", question_id)
        positions: set[int] = set()
        for entry in raw:
            content = entry.get("memory_content") if isinstance(entry, dict) else entry
            if not isinstance(content, str) or not content.strip():
                log.note("evidence_malformed", question_id)
                continue
            found = self.memory_sessions.get(content.strip())
            if not found:
                log.note("evidence_dangling", question_id)
                continue
            earlier = [i for i in found if i <= s_index]
            if not earlier:
                log.note("evidence_after_question", question_id)
            positions.update(earlier)
        return sorted(positions)
