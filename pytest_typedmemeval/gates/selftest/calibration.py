"""The calibration gate's self-test fixtures: ferry-harbour questions whose gold is saturated,
moderate, buried or tuned to one retriever's quirk, and the Appendix D shapes (inflected words, one
long gold sentence, content-free competition) that only the whole panel reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from ...corpus.models import (
    AnswerKey,
    CorpusTurn,
    ExtensionBlock,
    QuestionRecord,
    format_corpus_date,
)
from ...retrieval.panel import DENSE_NAME
from ..result import GateResult, SelfTestCase


_START = datetime(2026, 2, 2, 10, 0)
_QUESTION = "Which ferry company runs the harbour crossing?"
_ECHO = " (Also on my mind: ferry, harbour, crossing, company, runs.)"
_OFF_TOPIC = ("I repotted the basil and the mint by the window.",
              "The bakery had sourdough again, so I bought two loaves.",
              "We repainted the fence a pale green colour.",
              "My cousin lent me a tent for the weekend trip.",
              "The library extended the loan on my atlas.",
              "I fixed the wobbly leg on the kitchen table.",
              "The plumber replaced a washer under the sink.",
              "I tried a new route for the morning walk.",
              "The choir moved rehearsals to the church hall.")


def _session(user: str, *, gold: bool = False) -> tuple[CorpusTurn, ...]:
    return (CorpusTurn(role="user", content=user, has_answer=gold),
            CorpusTurn(role="assistant", content="Thanks, noted."))


def _question(qid: str, shape: str, gold_at: int | None, *, echoed: int = 0,
              gold_text: str = "The harbour crossing ferry company that runs it is Pellham Lines.",
              suffixes: Sequence[str] | None = None) -> QuestionRecord:
    """Ten sessions; ``echoed`` distractors carry the echo clause of the question's words (or the
    nine distractors end with ``suffixes``, in order, when given)."""
    sessions: list[tuple[CorpusTurn, ...]] = []
    distractor = 0
    for index in range(10):
        if index == gold_at:
            sessions.append(_session(gold_text, gold=True))
            continue
        text = _OFF_TOPIC[distractor % len(_OFF_TOPIC)]
        suffix = suffixes[distractor] if suffixes is not None else (
            _ECHO if distractor < echoed else "")
        sessions.append(_session(text + suffix))
        distractor += 1
    ids = tuple(f"c{index:02d}" for index in range(10))
    dates = tuple(format_corpus_date(_START + timedelta(days=2 * i)) for i in range(10))
    gold_ids = (ids[gold_at],) if gold_at is not None else ()
    key = AnswerKey(accepted=("Pellham Lines",)) if gold_at is not None else \
        AnswerKey(expected_negative="abstain")
    return QuestionRecord.model_construct(
        question_id=qid, question_type=shape, question=_QUESTION,
        answer="Pellham Lines" if gold_at is not None else "You never told me.",
        question_date=format_corpus_date(_START + timedelta(days=30)),
        haystack_session_ids=ids, haystack_dates=dates, haystack_sessions=tuple(sessions),
        answer_session_ids=gold_ids,
        typedmemeval=ExtensionBlock(vertical="episodic", shape=shape, answer_key=key))


def _haystack_question(qid: str, shape: str, question: str, gold_at: int, gold_text: str,
                       distractors: Sequence[str]) -> QuestionRecord:
    """Ten sessions of one user turn and "Thanks, noted.": the gold at ``gold_at``, the given
    ``distractors`` first, then off-topic ones (for the Appendix D cases)."""
    fillers = [*distractors, *_OFF_TOPIC][:9]
    texts = iter(fillers)
    sessions = tuple(_session(gold_text, gold=True) if index == gold_at else _session(next(texts))
                     for index in range(10))
    ids = tuple(f"d{index:02d}" for index in range(10))
    dates = tuple(format_corpus_date(_START + timedelta(days=2 * i)) for i in range(10))
    return QuestionRecord.model_construct(
        question_id=qid, question_type=shape, question=question, answer="Pellham Lines",
        question_date=format_corpus_date(_START + timedelta(days=30)),
        haystack_session_ids=ids, haystack_dates=dates, haystack_sessions=sessions,
        answer_session_ids=(ids[gold_at],),
        typedmemeval=ExtensionBlock(vertical="episodic", shape=shape,
                                    answer_key=AnswerKey(accepted=("Pellham Lines",))))



_HARD = "I went with the ferry in the end."
"""A gold that shares one question word; six echoing distractors outrank it."""

_HALF_QUIRK = (*([" (Also on my mind: ferry, company.)"] * 4), *([" The company runs late."] * 5))
"""Distractor endings that put the gold's only question word, "ferry", in exactly five of the ten
sessions. There Okapi's idf, log((N - n + 0.5)/(n + 0.5)), is exactly 0 (its negative-idf floor
does not apply to zero), so rank_bm25 Okapi scores the gold 0 and ranks it last, while BM25+
(log((N + 1)/n)) and Lucene (ln(1 + (N - n + 0.5)/(n + 0.5))) keep "ferry" worth more than the
common "company" and rank the gold first: a shape tuned to one implementation's quirk."""


def _saturated() -> list[QuestionRecord]:
    return [_question(f"tme-epi-{i + 1:03d}", "saturated", (3 * i + 1) % 10) for i in range(4)]


def _moderate() -> list[QuestionRecord]:
    records = [_question(f"tme-epi-{i + 11:03d}", "moderate", (3 * i + 2) % 10, echoed=2)
               for i in range(3)]
    records.append(_question("tme-epi-014", "moderate", 8, echoed=7, gold_text=_HARD))
    records.append(_question("tme-epi-015_abs", "moderate", None, echoed=2))
    return records


def _buried() -> list[QuestionRecord]:
    return [_question(f"tme-epi-{i + 21:03d}", "buried", (2 * i + 1) % 10, echoed=7,
                      gold_text=_HARD) for i in range(4)]


def _okapi_quirk() -> list[QuestionRecord]:
    """Okapi mean 0.75 (three found, the quirk question buried); BM25+ 1.0 (all four found)."""
    records = [_question(f"tme-epi-{i + 41:03d}", "okapi-quirk", (3 * i + 2) % 10, echoed=2)
               for i in range(3)]
    records.append(_question("tme-epi-044", "okapi-quirk", 6, gold_text=_HARD,
                             suffixes=_HALF_QUIRK))
    return records


_INFLECTED_QUESTION = "Who booked the kilns?"
_INFLECTED_GOLD = "Marta is booking the kiln for Saturday."
_INFLECTED_COMPETITION = ("The kilns at Dunmore school stayed cold all week.",
                          "Both kilns at the Harwell studio were repaired.",
                          "The old kilns in Ashby are for sale.",
                          "My sister booked a table at Rosso for her birthday.",
                          "Tom booked the train to Leeds yesterday.",
                          "We booked a plumber for Thursday.")
"""Gold answers in other inflections ("booking", "kiln") than the question's ("booked",
"kilns"): the reference tokens never meet, six competitors hold the question's literal words (with
values, so value filtering keeps them), so every unstemmed arm ranks gold seventh or lower and
the English analyzer, which stems both to "book" and "kiln", ranks it first."""

_LONG_GOLD_FACTS = ("My neighbour Tomasz repainted his shed on Sunday.",
                    "We drove to Whitby for the weekend.", "Aunt Rosa sent a parcel from Madrid.",
                    "The dentist moved my appointment to Friday.",
                    "I paid 40 pounds for the new boots.", "Our choir sang at St Mary's in December.",
                    "Grandad planted twelve apple trees.", "The vet said Biscuit needs a diet.",
                    "I finished reading Middlemarch at last.", "Leo turned seven in April.",
                    "We had lunch at the Crown with Priya.", "The boiler man comes on Tuesday.")
_LONG_GOLD = " ".join((*_LONG_GOLD_FACTS[:6], "The harbour ferry company is Pellham Lines.",
                       *_LONG_GOLD_FACTS[6:]))
_SHORT_COMPETITION = ("The ferry company changed its logo in March.",
                      "The harbour crossing was closed on Monday.",
                      "The ferry crossing took forty minutes.", "The company by the harbour hired Dana.",
                      "The ferry left the harbour at 9.",
                      "The company sponsors the crossing race in June.")
"""Gold's one answering sentence (three question words) sits among twelve sentences of other
facts, each with a value; six short competitors hold two question words each, with a value.
Session-level length normalisation sinks the long gold under every session arm (value filtering
deletes nothing that matters: every sentence holds a value); sentence-level BM25 finds the one
sentence with three question words first."""

_FACT_ONLY_GOLD = "I went with the ferry from Pellham Lines in the end."
_CONTENT_FREE_COMPETITION = ("Whichever ferry company runs it, fine.",
                             "That harbour crossing by ferry is on my mind.",
                             "Some company runs tours round the harbour, maybe.",
                             "A crossing with a ferry company sounds nice.",
                             "Whoever runs the harbour crossing should fix it.",
                             "The company that runs the crossing, no idea.")
"""Difficulty from content-free mentions only (the v2 defect, VERTICALS.md Appendix D (2)): six
competitors hold three question words each and no value; gold holds one question word and the
value. Every arm that reads the mentions ranks gold seventh; deleting the value-free sentences
leaves gold the only session that matches."""


def _appendix_d_shape(shape: str, question: str, gold_text: str,
                      competition: Sequence[str], first: int) -> list[QuestionRecord]:
    return [_haystack_question(f"tme-epi-{first + i:03d}", shape, question, gold_at, gold_text,
                               competition) for i, gold_at in enumerate((1, 4, 6, 9))]


def _inflected() -> list[QuestionRecord]:
    return _appendix_d_shape("inflected", _INFLECTED_QUESTION, _INFLECTED_GOLD,
                             _INFLECTED_COMPETITION, 51)


def _one_sentence() -> list[QuestionRecord]:
    return _appendix_d_shape("one-sentence", _QUESTION, _LONG_GOLD, _SHORT_COMPETITION, 61)


def _content_free() -> list[QuestionRecord]:
    return _appendix_d_shape("content-free", _QUESTION, _FACT_ONLY_GOLD,
                             _CONTENT_FREE_COMPETITION, 71)



def _not_measured_case(name: str, result: GateResult,
                       arms: Sequence[str] = (DENSE_NAME,)) -> SelfTestCase:
    """Not measured must be *skipped* with the reason: neither passed nor refused."""
    ok = (result.status == "skipped" and "not measured" in (result.skip_reason or "")
          and [row["arm"] for row in result.measured.get("not_measured", [])] == list(arms))
    return SelfTestCase(name, "defect", None, ok,
                        f"status {result.status}; skip_reason {result.skip_reason!r}")
