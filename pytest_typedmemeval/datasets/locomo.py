"""LoCoMo (``snap-research/LoCoMo``, ``data/locomo10.json``) into the internal form.

Upstream layout (read at commit 3eb6f2c): a JSON list of conversations, each
``{sample_id, conversation: {speaker_a, speaker_b, session_N: [turn], session_N_date_time},
qa: [{question, answer, evidence: ["D1:3"], category: 1..5, adversarial_answer?}], ...}``; a turn
is ``{speaker, dia_id: "D<session>:<turn>", text, img_url?, blip_caption?, query?}``. Categories
(from upstream ``task_eval/evaluation.py``): 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial.

Principal speaker (VERTICALS.md §6.7): one speaker is "the user" of the memory system. Their turns
arrive with role ``user``; the other speaker's with role ``assistant``. The principal decides roles
only: every question of the file is scored (issue 23: published LoCoMo figures are over all 1,986),
whoever's turns its evidence lies in, and a question without resolvable evidence is scored too
(counted as a defect; it has no retrieval figure). Only a question of categories 1-4 without a
gold answer is left out — upstream's scorer cannot score it either.

Known defects tolerated (each counted): evidence strings holding several references
(``"D8:6; D9:17"``, ``"D9:1 D4:4"``), malformed ones (``"D"``, ``"D:11:26"`` — repaired when the
numbers are unambiguous), zero-padded turn numbers (``"D30:05"``), references to turns that do not
exist, empty evidence, the adversarial category's missing ``answer``, numeric answers, ``*_date_time``
keys without a session, and sessions without a readable date.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from ..adapter.protocol import Session, Turn
from .dates import parse_locomo_time
from .fields import Where, expect, require
from .models import DatasetQuestion, DatasetSpec, DefectLog, EvidenceRef, LoadedDataset
from .sessions import DATASET_INSTRUCTION, fill_missing_times, opaque_session_id
from .source import read_json

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
"""The integer categories of ``locomo10.json`` (the paper lists them in another order; this is the
mapping upstream's own ``evaluation.py`` implies, locomo#2/#5/#6/#29)."""

QUERY_DELAY = timedelta(days=1)
"""LoCoMo has no time of asking; a question is asked this long after the latest session."""

SPEC = DatasetSpec(
    name="locomo",
    title="LoCoMo",
    licence="CC BY-NC 4.0",
    categories=tuple(CATEGORY_NAMES.values()),
    published_metric="token F1 of task_eval/evaluation.py (Porter-stemmed; category 5: 'not mentioned' / "
                     "'no information available'); recall_acc of the retrieved context",
    upstream_answer_metric="locomo",
    retrieval_metric="locomo_recall_acc",
    caveats=(
        "No model judge is used. The upstream reading is upstream's own token metric "
        "(task_eval/evaluation.py: Porter stemming, ASCII punctuation, multi-hop comma split, "
        "category 5 by its phrase rule), averaged per category as the paper does; the typed reading "
        "calls an answer correct at F1 >= 0.5 after TypedMemEval's normalisation (no stemming; "
        "typographic punctuation removed) and reads category 5 declines as abstentions. They differ "
        "on inflections ('Swedens' vs 'Sweden'), typographic quotes and dashes, and declines worded "
        "otherwise than upstream's two phrases.",
        "Every question is scored whichever speaker's turns hold its evidence; the principal "
        "speaker's turns arrive with role 'user', the other speaker's with role 'assistant'.",
        "recall_acc is session-level (the adapter reports sessions): the fraction of evidence "
        "references whose session is in the reported list, over questions with evidence.",
        "LoCoMo has no time of asking: questions are asked one day after the latest session.",
        "Only the questions of this run's sample were run; the system under test is the adapter "
        "that ran, not a reference extractor.",
        "Known label errors in the upstream file (locomo#27, #34, #42, #43) are not corrected here.",
    ),
)

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DATE_KEY = re.compile(r"^session_(\d+)_date_time$")
_REF = re.compile(r"^D(\d+):(\d+)$")
_REF_REPAIRABLE = re.compile(r"^D\W*(\d+)\W+(\d+)$")
_REF_SPLIT = re.compile(r"[;,\s]+")

Principal = Literal["a", "b"]


def load_locomo(path: str | Path, *, principal: Principal = "a") -> LoadedDataset:
    """Read ``locomo10.json`` from ``path``; the principal speaker is ``speaker_a`` or ``speaker_b``."""
    if principal not in ("a", "b"):
        raise ValueError(f"principal speaker must be 'a' or 'b', not {principal!r}")
    source = read_json(path)
    where = Where(source.label)
    conversations = expect(source.data, list, where, "<top level>")
    log = DefectLog()
    questions: list[DatasetQuestion] = []
    total = 0
    for index, raw in enumerate(conversations):
        record = expect(raw, dict, where, f"[{index}]")
        sample_id = require(record, "sample_id", str, where, f"[{index}]")
        conversation = require(record, "conversation", dict, where.at(sample_id))
        qa = require(record, "qa", list, where.at(sample_id))
        total += len(qa)
        questions.extend(_conversation_questions(sample_id, conversation, qa, principal, where.at(sample_id), log))
    return LoadedDataset(spec=SPEC, sha256=source.sha256, questions=tuple(questions),
                         report=log.report(total, len(questions)), options={"principal": principal})


class _Conversation:
    """One conversation's sessions, turns and dia_id index, shared by its questions."""

    def __init__(self, sample_id: str, conversation: dict[str, Any], principal: Principal, where: Where,
                 log: DefectLog) -> None:
        speaker_a = require(conversation, "speaker_a", str, where, "conversation")
        speaker_b = require(conversation, "speaker_b", str, where, "conversation")
        self.principal_name = speaker_a if principal == "a" else speaker_b
        numbers = sorted(int(m.group(1)) for key, value in conversation.items()
                         if (m := _SESSION_KEY.match(key)) and isinstance(value, list))
        for key in conversation:
            m = _DATE_KEY.match(key)
            if m and int(m.group(1)) not in numbers:
                log.note("date_without_session", f"{sample_id}/{key}")
        if not numbers:
            raise where.error("conversation.session_1", "no session_N lists: not a LoCoMo conversation")
        self.source_ids = tuple(f"session_{n}" for n in numbers)
        self.turns: list[tuple[Turn, ...]] = []
        self.dia: dict[tuple[int, int], tuple[int, int]] = {}
        """(session number, turn number) -> (session position, turn position)."""
        times = []
        for position, number in enumerate(numbers):
            time = parse_locomo_time(conversation.get(f"session_{number}_date_time"))
            if time is None:
                log.note("session_without_date", f"{sample_id}/session_{number}")
            times.append(time)
            self.turns.append(self._session_turns(sample_id, number, position, conversation[f"session_{number}"],
                                                  (speaker_a, speaker_b), log))
        self.times = tuple(fill_missing_times(times))

    def _session_turns(self, sample_id: str, number: int, position: int, raw_turns: list[Any],
                       speakers: tuple[str, str], log: DefectLog) -> tuple[Turn, ...]:
        turns: list[Turn] = []
        for raw in raw_turns:
            if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
                log.note("turn_without_text", f"{sample_id}/session_{number}")
                continue
            speaker = raw.get("speaker")
            if speaker not in speakers:
                log.note("turn_unknown_speaker", f"{sample_id}/session_{number}")
            is_principal = speaker == self.principal_name
            content = f"{speaker}: {raw['text']}" if isinstance(speaker, str) else raw["text"]
            caption = raw.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                content += f" [shared an image: {caption.strip()}]"
            ref = _REF.match(raw.get("dia_id", "")) if isinstance(raw.get("dia_id"), str) else None
            if ref is None:
                log.note("turn_without_dia_id", f"{sample_id}/session_{number}")
            else:
                key = (int(ref.group(1)), int(ref.group(2)))
                if key in self.dia:
                    log.note("duplicate_dia_id", f"{sample_id}/{raw['dia_id']}")
                else:
                    self.dia[key] = (position, len(turns))
            turns.append(Turn(role="user" if is_principal else "assistant", content=content))
        return tuple(turns)


def _conversation_questions(sample_id: str, conversation: dict[str, Any], qa: list[Any], principal: Principal,
                            where: Where, log: DefectLog) -> list[DatasetQuestion]:
    conv = _Conversation(sample_id, conversation, principal, where, log)
    query_time = max(conv.times) + QUERY_DELAY
    out: list[DatasetQuestion] = []
    for index, raw in enumerate(qa):
        question_id = f"{sample_id}/q{index:03d}"
        at = where.at(question_id)
        item = expect(raw, dict, at, f"qa[{index}]")
        text = require(item, "question", str, at, f"qa[{index}]")
        category = require(item, "category", int, at, f"qa[{index}]")
        if category not in CATEGORY_NAMES:
            raise at.error(f"qa[{index}].category", f"expected 1 to 5, found {category}")
        refs = _evidence(item.get("evidence"), conv, question_id, log)
        abstention = category == 5
        gold = _gold(item, category, question_id, log)
        if gold is None and not abstention:
            log.exclude("missing_answer", question_id)
            continue
        if not refs:
            log.note("no_resolvable_evidence", question_id)
        sessions = tuple(
            Session(session_id=opaque_session_id(SPEC.name, question_id, position, source_id),
                    timestamp=conv.times[position], turns=conv.turns[position])
            for position, source_id in enumerate(conv.source_ids))
        evidence = tuple(dict.fromkeys(
            EvidenceRef(sessions[conv.dia[ref][0]].session_id, conv.dia[ref][1]) for ref in refs))
        trap = item.get("adversarial_answer")
        out.append(DatasetQuestion(
            dataset=SPEC.name, question_id=question_id, item_id=question_id,
            category=CATEGORY_NAMES[category], sessions=sessions, source_session_ids=conv.source_ids,
            question=text, query_time=query_time, instruction=DATASET_INSTRUCTION,
            gold_answers=() if abstention or gold is None else (gold,),
            gold_display=gold if gold is not None else "(adversarial: not answerable from the conversation)",
            evidence=evidence, abstention=abstention,
            trap_answers=(str(trap),) if isinstance(trap, (str, int, float)) and str(trap).strip() else (),
            token_rules="locomo", multi_answer=category == 1, upstream_category=category,
            upstream_evidence=tuple((index, sessions[conv.dia[ref][0]].session_id)
                                    for index, ref in enumerate(refs)) or None,
        ))
    return out


def _gold(item: dict[str, Any], category: int, question_id: str, log: DefectLog) -> str | None:
    """The gold answer as text: numbers stringified, open-domain cut at ';' as upstream does."""
    answer = item.get("answer")
    if answer is None:
        if category == 5:
            log.note("adversarial_without_answer", question_id)
        else:
            log.note("missing_answer", question_id)
        return None
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        log.note("answer_not_text", question_id)
        return None
    if not isinstance(answer, str):
        log.note("numeric_answer", question_id)
    text = str(answer).strip()
    if category == 3:
        text = text.split(";")[0].strip()
    if not text:
        log.note("missing_answer", question_id)
        return None
    return text


def _evidence(raw: Any, conv: _Conversation, question_id: str, log: DefectLog) -> list[tuple[int, int]]:
    """Evidence references resolved to (session number, turn number) keys of ``conv.dia``."""
    if raw is None:
        log.note("missing_evidence", question_id)
        return []
    if isinstance(raw, str):
        log.note("evidence_not_a_list", question_id)
        raw = [raw]
    if not isinstance(raw, list):
        log.note("evidence_not_a_list", question_id)
        return []
    if not raw:
        log.note("empty_evidence", question_id)
    keys: list[tuple[int, int]] = []
    for entry in raw:
        if not isinstance(entry, str):
            log.note("evidence_malformed", question_id)
            continue
        parts = [part for part in _REF_SPLIT.split(entry.strip()) if part]
        if len(parts) > 1:
            log.note("evidence_several_in_one_string", question_id)
        if not parts:
            log.note("evidence_malformed", question_id)
        for part in parts:
            key = _reference(part, question_id, log)
            if key is None:
                continue
            if key not in conv.dia:
                log.note("evidence_dangling", question_id)
                continue
            if key not in keys:
                keys.append(key)
    return keys


def _reference(part: str, question_id: str, log: DefectLog) -> tuple[int, int] | None:
    match = _REF.match(part)
    if match is None:
        match = _REF_REPAIRABLE.match(part)
        if match is None:
            log.note("evidence_malformed", question_id)
            return None
        log.note("evidence_repaired", question_id)
    elif match.group(2).startswith("0") and match.group(2) != "0":
        log.note("evidence_zero_padded", question_id)
    return int(match.group(1)), int(match.group(2))
