"""The structure gate's self-test: small synthetic corpora (Arithmetic, Prospective, WorkingMemory)
with one known defect each, refused by the intended rule, and clean controls that pass.

The cases receive the gate's ``check`` from :func:`..structure.self_test` rather than importing it
(this module is the gate's fixture, and the gate imports it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from ...corpus.loading import Corpus
from ...corpus.models import (
    AnswerKey,
    Candidate,
    CorpusTurn,
    Derivation,
    DerivationInput,
    ExtensionBlock,
    NumericKey,
    QuestionRecord,
    Sidecar,
    format_corpus_date,
)
from ..declarations import Declared, VerticalDeclarations
from ..result import GateResult, SelfTestCase, control_case, defect_case
from ..vertical_specs import ShapeSpec, VerticalSpec


_START = datetime(2026, 1, 5, 9, 0)
_SESSIONS = 10
_DAY_OFFSETS = (0, 2, 3, 5, 8, 9, 12, 14, 15, 18)
_FILLER = (
    ("I sorted out the {noun} for the allotment this week.", "Good, the {noun} is handled then."),
    ("The {noun} needed another look, so I checked it again.", "Sounds like the {noun} is fine now."),
    ("I asked a neighbour about the {noun} and got a tip.", "Useful tip about the {noun}."),
)
_NOUNS = ("shed lock", "bike chain", "garden hose", "tool belt", "window latch", "kettle lid",
          "porch light", "gate hinge", "rain barrel", "compost bin")


def _filler(q: int, s: int, extra: str = "") -> tuple[CorpusTurn, ...]:
    user, assistant = _FILLER[(q + s) % len(_FILLER)]
    noun = _NOUNS[(q * 3 + s) % len(_NOUNS)]
    return (CorpusTurn(role="user", content=user.format(noun=noun) + extra),
            CorpusTurn(role="assistant", content=assistant.format(noun=noun)))


def _gold(user: str, assistant: str = "Noted, thanks for telling me.") -> tuple[CorpusTurn, ...]:
    return (CorpusTurn(role="user", content=user, has_answer=True),
            CorpusTurn(role="assistant", content=assistant))


def _record(qid: str, vertical: str, shape: str, question: str, answer: str,
            sessions: Sequence[tuple[CorpusTurn, ...]], *, days: Sequence[int] = _DAY_OFFSETS,
            asked_after: int = 2, key: AnswerKey | None = None, **block: Any) -> QuestionRecord:
    dates = tuple(format_corpus_date(_START + timedelta(days=d)) for d in days[: len(sessions)])
    asked = format_corpus_date(_START + timedelta(days=days[len(sessions) - 1] + asked_after))
    ids = tuple(f"s{(i * 7 + 3) % 97:02d}" for i in range(len(sessions)))
    gold = tuple(ids[i] for i, s in enumerate(sessions) if any(t.has_answer for t in s))
    extension = ExtensionBlock(vertical=vertical, shape=shape,
                               answer_key=key or AnswerKey(accepted=(answer,)), **block)
    return QuestionRecord.model_construct(
        question_id=qid, question_type=shape, question=question, answer=answer,
        question_date=asked, haystack_session_ids=ids, haystack_dates=dates,
        haystack_sessions=tuple(sessions), answer_session_ids=gold, typedmemeval=extension)


def _corpus(records: Sequence[QuestionRecord], vertical: str, *, fixture: bool = False,
            generator: str | None = None, **sidecar: Any) -> tuple[Corpus, str]:
    """A self-test corpus and the text its sha256 is taken over (for the reproducibility case)."""
    text = json.dumps([r.model_dump(mode="json") for r in records], sort_keys=True,
                      ensure_ascii=False) + "\n"
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    verticals = {r.typedmemeval.vertical for r in records}
    fields: dict[str, Any] = {"corpus_id": f"selftest-{vertical}", "revision": 1, "sha256": sha,
                              "vertical": vertical, "fixture": fixture, "generator": generator,
                              "seed": 7 if generator else None}
    fields.update(sidecar)
    return (Corpus(corpus_id=f"selftest-{vertical}", path=Path("<self-test>"), sha256=sha,
                   records=tuple(records), sidecar=Sidecar(**fields),
                   vertical=verticals.pop() if len(verticals) == 1 else None), text)


def _positions(q: int, g: int, n: int = _SESSIONS) -> list[int]:
    """Gold positions spread over the haystack, first and last included now and then."""
    return sorted({(q * 3 + round(k * n / g)) % n for k in range(g)})


def _arithmetic_spec() -> VerticalSpec:
    return VerticalSpec("arithmetic", "ari", (
        ShapeSpec("counts", 4, (3, 6), (4, 8), operation="count"),
        ShapeSpec("sums", 4, (3, 6), (4, 8), operation="sum"),
        ShapeSpec("deltas", 4, (3, 6), (4, 8), operation="delta"),
        ShapeSpec("durations", 4, (2, 6), (4, 8), v4="calendar", operation="duration"),
    ))


def _arithmetic_records() -> list[QuestionRecord]:
    records: list[QuestionRecord] = []
    number = 0
    for q in range(4):
        # sums: three purchases; distractor amounts exist but combine to nothing near the total.
        number += 1
        gold_at = _positions(q, 3)
        values = [37 + q, 52 + 2 * q, 18 + 3 * q]
        sessions = [_filler(q, s, f" It cost ${311 + 97 * s + q} all told." if s % 3 == 0 else "")
                    for s in range(_SESSIONS)]
        for k, s in enumerate(gold_at):
            sessions[s] = _gold(f"I paid ${values[k]} for the {_NOUNS[k]} at the market.")
        total = sum(values)
        records.append(_record(
            f"tme-ari-{number:03d}", "arithmetic", "sums", "How much did I spend at the market?",
            f"${total}", sessions, key=AnswerKey(numeric=NumericKey(value=total, unit="USD")),
            derivation=Derivation(operation="sum", unit="USD", value=total, inputs=tuple(
                DerivationInput(session_index=s, value=v) for s, v in zip(gold_at, values,
                                                                          strict=True)))))
    for q in range(4):
        number += 1
        gold_at = _positions(q + 1, 6)
        # Powers of three: every signed combination of them is distinct (balanced ternary), so no
        # re-signing or dropping of gold inputs reaches the gold by accident.
        values = [m * (2 + q) for m in (243, 81, 27, 9, 3, 1)]
        sides: list[Literal["a", "b"]] = ["a", "a", "a", "b", "b", "b"]
        sessions = [_filler(q, s, f" The quote was ${1303 + 1711 * s} in the end." if s in (1, 8)
                            else "") for s in range(_SESSIONS)]
        for k, s in enumerate(gold_at):
            verb = "earned" if sides[k] == "a" else "spent"
            sessions[s] = _gold(f"I {verb} ${values[k]} on the {_NOUNS[k]} job.")
        value = sum(values[:3]) - sum(values[3:])
        records.append(_record(
            f"tme-ari-{number:03d}", "arithmetic", "deltas", "How much more did I earn than spend?",
            f"${value}", sessions, key=AnswerKey(numeric=NumericKey(value=value, unit="USD")),
            derivation=Derivation(operation="delta", unit="USD", value=value, inputs=tuple(
                DerivationInput(session_index=s, value=v, side=side)
                for s, v, side in zip(gold_at, values, sides, strict=True)))))
    for q in range(4):
        number += 1
        start, end = _positions(q + 2, 2)
        span = _DAY_OFFSETS[end] - _DAY_OFFSETS[start]
        sessions = [_filler(q, s, " That took about 2 hours." if s == 4 else "")
                    for s in range(_SESSIONS)]
        sessions[start] = _gold("I booked the ferry crossing this morning.")
        sessions[end] = _gold("The ferry crossing happened today, calm water.")
        records.append(_record(
            f"tme-ari-{number:03d}", "arithmetic", "durations",
            "How many days passed between booking the ferry crossing and taking it?",
            f"{span} days", sessions, key=AnswerKey(numeric=NumericKey(value=span, unit="days")),
            derivation=Derivation(operation="duration", unit="days", value=span, inputs=(
                DerivationInput(session_index=end, from_session_index=start, value=span),))))
    for q in range(4):
        number += 1
        gold_at = _positions(q + 3, 3)
        others = [s for s in range(_SESSIONS) if s not in gold_at][:2]
        sessions = [_filler(q, s) for s in range(_SESSIONS)]
        for s in gold_at:
            sessions[s] = _gold("I ordered from Meridian again for the workshop.")
        for s in others:
            sessions[s] = _filler(q, s, " I ordered from Calloway for the shed.")
        candidates = tuple(Candidate(session_index=s, matches=s in gold_at)
                           for s in sorted([*gold_at, *others]))
        records.append(_record(
            f"tme-ari-{number:03d}", "arithmetic", "counts",
            "How many times did I order from Meridian?", "3", sessions,
            key=AnswerKey(numeric=NumericKey(value=3)), count_predicate="ordered from Meridian",
            candidates=candidates, derivation=Derivation(operation="count", unit="orders", value=3,
                                                          inputs=())))
    return records


def _prospective_spec() -> VerticalSpec:
    return VerticalSpec("prospective", "pro", (
        ShapeSpec("as-of", 4, (1, 2), (6, 8), "calendar", paired_questions=0),
        ShapeSpec("due-later", 8, (1, 2), (6, 8), "calendar", paired_questions=8),
    ), v4="calendar")


def _prospective_records(gold_first: bool = False) -> list[QuestionRecord]:
    records: list[QuestionRecord] = []
    number = 0
    for q in range(4):
        position = 0 if gold_first else (q * 5 + 1) % 8 if q else 7
        sessions = [_filler(q, s) for s in range(8)]
        sessions[position] = _gold(f"Remind me to renew the {_NOUNS[q]} permit in nine days.")
        for arm, after, answer in (("before", 2, "Nothing is due yet."),
                                   ("after", 12, f"The {_NOUNS[q]} permit renewal is due.")):
            number += 1
            records.append(_record(
                f"tme-pro-{number:03d}", "prospective", "due-later", "Is anything due now?", answer,
                sessions, days=tuple(range(0, 16, 2)), asked_after=after,
                pair_id=f"tme-pro-p{q + 1:02d}", arm=arm,
                key=AnswerKey(accepted=(answer,), expected_negative="not_yet" if arm == "before"
                              else None)))
    for q in range(4):
        number += 1
        position = 0 if gold_first else (q * 3) % 8
        sessions = [_filler(q + 5, s) for s in range(8)]
        sessions[position] = _gold(f"The {_NOUNS[q + 4]} warranty runs for another month.")
        records.append(_record(
            f"tme-pro-{number:03d}", "prospective", "as-of",
            f"Was the {_NOUNS[q + 4]} warranty running last time we spoke?", "Yes, it was.",
            sessions, days=tuple(range(0, 16, 2))))
    return records


def _wm_records() -> list[QuestionRecord]:
    """WorkingMemory-style: H = 3, rungs d = 1 and 2, so gold is never first or last."""
    records: list[QuestionRecord] = []
    for q in range(24):
        d = 1 + q % 2
        sessions = [_filler(q, s) for s in range(4)]
        sessions[3 - d] = _gold(f"I have adopted a cat called Pim{q:02d}.")
        records.append(_record(f"tme-wm-{q + 1:03d}", "workingmemory", f"distance-{d}",
                               "Which cat have I adopted?", f"Pim{q:02d}", sessions,
                               distance_sessions=d))
    return records


def _wm_spec() -> VerticalSpec:
    return VerticalSpec("workingmemory", "wm", tuple(
        ShapeSpec(f"distance-{d}", 12, (1, 1), (3, 3), distance=d) for d in (1, 2)))


_WM_WINDOWS = {2: (1, 2), 4: (3, 4)}
"""The revision-3 WorkingMemory geometry in small: H = 5 (six sessions), rung 2 puts 1-2 sessions
between gold and the question, rung 4 puts 3-4 (gold never first or last, drawn in the window)."""


def _wm_window_records() -> list[QuestionRecord]:
    records: list[QuestionRecord] = []
    for q in range(24):
        rung = 2 if q % 2 else 4
        lo, hi = _WM_WINDOWS[rung]
        d = lo + (q // 2) % (hi - lo + 1)
        sessions = [_filler(q, s) for s in range(6)]
        sessions[5 - d] = _gold(f"I have adopted a cat called Pim{q:02d}.")
        records.append(_record(f"tme-wm-{q + 1:03d}", "workingmemory", f"distance-{rung}",
                               "Which cat have I adopted?", f"Pim{q:02d}", sessions,
                               distance_sessions=d))
    return records


def _wm_window_spec() -> VerticalSpec:
    return VerticalSpec("workingmemory", "wm", tuple(
        ShapeSpec(f"distance-{rung}", 12, (1, 1), (5, 5), distance=rung, distance_window=window)
        for rung, window in _WM_WINDOWS.items()))


def _edit(records: Sequence[QuestionRecord], index: int, **update: Any) -> list[QuestionRecord]:
    out = list(records)
    out[index] = out[index].model_copy(update=update)
    return out


def _edit_block(records: Sequence[QuestionRecord], index: int, **update: Any) -> list[QuestionRecord]:
    return _edit(records, index, typedmemeval=records[index].typedmemeval.model_copy(update=update))


def _edit_turn(records: Sequence[QuestionRecord], index: int, session: int, turn: int,
               content: str | None = None, has_answer: bool | None = None) -> list[QuestionRecord]:
    record = records[index]
    sessions = [list(s) for s in record.haystack_sessions]
    old = sessions[session][turn]
    sessions[session][turn] = old.model_copy(update={
        "content": old.content if content is None else content,
        "has_answer": old.has_answer if has_answer is None else has_answer})
    return _edit(records, index, haystack_sessions=tuple(tuple(s) for s in sessions))


def _first_filler(record: QuestionRecord) -> int:
    return next(i for i, s in enumerate(record.haystack_sessions) if not any(t.has_answer for t in s))


_SELF_TEST_PADDING = " Often granite, zinnia, lupin skylark, Pimmoz. Sadly sleet, linen, flax."
"""Revision-1-style word-list padding (two pad sentences) for the filler self-test."""
_SELF_TEST_ECHO = " (Also on my mind: ferry, crossing, permit.)"
"""A revision-1 echo clause for the filler self-test."""


def _padded(records: Sequence[QuestionRecord], tail: str = _SELF_TEST_PADDING) -> list[QuestionRecord]:
    """``records`` with ``tail`` appended to the user turn of every filler session."""
    out = list(records)
    for index, record in enumerate(records):
        for session, turns in enumerate(record.haystack_sessions):
            if not any(turn.has_answer for turn in turns):
                out = _edit_turn(out, index, session, 0, turns[0].content + tail)
    return out


def _never_known(template: QuestionRecord, qid: str) -> QuestionRecord:
    """A never-known abstention question over ``template``'s haystack (no gold, 'abstain')."""
    return template.model_copy(update={
        "question_id": qid, "question": "Which ferry company did I book with?",
        "answer": "You never said.", "answer_session_ids": (),
        "haystack_sessions": tuple(tuple(turn.model_copy(update={"has_answer": False})
                                         for turn in session)
                                   for session in template.haystack_sessions),
        "typedmemeval": ExtensionBlock(vertical=template.typedmemeval.vertical, shape="never-known",
                                       answer_key=AnswerKey(expected_negative="abstain"))})


def _with_never_known(spec: VerticalSpec) -> VerticalSpec:
    return VerticalSpec(spec.name, spec.abbrev, (*spec.shapes, ShapeSpec("never-known", 1, (0, 0),
                                                                         (4, 12))))


_SELF_TEST_CARVE_OUT = VerticalDeclarations(gold_position_carve_out=Declared(
    name="gold_position",
    reason="self-test: a design whose independent variable is the gold position (as a rung-fixed "
    "WorkingMemory design would be) declares the carve-out, and only then passes",
))


def self_test(check: Callable[..., GateResult]) -> list[SelfTestCase]:
    """Synthetic corpora with one known defect each, refused by the intended rule; clean controls.

    ``check`` is :func:`..structure.check`, passed in by the gate's own ``self_test``."""
    ari_spec, pro_spec, wm_spec = _arithmetic_spec(), _prospective_spec(), _wm_spec()
    no_carve = VerticalDeclarations()
    ari = _arithmetic_records()
    pro = _prospective_records()
    ari_ceiling = {"counts": 1.0, "deltas": 5 / 6, "durations": 1.0, "sums": 1.0}

    def run_ari(records: Sequence[QuestionRecord], **sidecar: Any) -> GateResult:
        sidecar.setdefault("ceiling_by_shape", ari_ceiling)
        return check(_corpus(records, "arithmetic", **sidecar)[0], spec=ari_spec)

    def run_pro(records: Sequence[QuestionRecord]) -> GateResult:
        return check(_corpus(records, "prospective")[0], spec=pro_spec)

    cases: list[SelfTestCase] = []

    def add_defect(name: str, result: GateResult, rule: str) -> None:
        cases.append(defect_case(name, result, rule))

    def add_control(name: str, result: GateResult) -> None:
        cases.append(control_case(name, result))

    # --- controls ---
    add_control("clean arithmetic corpus (sums, deltas, durations, counts)", run_ari(ari))
    add_control("clean prospective corpus with pairs", run_pro(pro))
    wm_corpus = _corpus(_wm_records(), "workingmemory")[0]
    add_control("rung-fixed pinned gold (the v2 WorkingMemory design) passes only by a declared "
                "carve-out", check(wm_corpus, spec=wm_spec, declared=_SELF_TEST_CARVE_OUT))
    windowed, window_spec = _wm_window_records(), _wm_window_spec()
    add_control("workingmemory gold drawn within each rung's window (revision 3), no carve-out",
                check(_corpus(windowed, "workingmemory")[0], spec=window_spec, declared=no_carve))
    add_control("fixture corpus off the declared sizes (sizes not enforced)",
                check(_corpus(ari, "arithmetic", fixture=True, ceiling_by_shape=ari_ceiling)[0]))
    homographs = _edit_turn(pro, 8, _first_filler(pro[8]), 0,
                            "May I ask you to march on with it? We may need a day or two.")
    add_control("V4 homographs ('May I', 'march on', 'may') are not months", run_pro(homographs))
    corpus, text = _corpus(ari, "arithmetic", generator="selftest", ceiling_by_shape=ari_ceiling)
    add_control("reproducibility: regenerated bytes match",
                check(corpus, spec=ari_spec, regenerate=lambda _: text))

    # --- ids and bookkeeping ---
    add_defect("duplicate id", run_ari(_edit(ari, 1, question_id=ari[0].question_id)), "duplicate_id")
    add_defect("malformed id", run_ari(_edit(ari, 0, question_id="tme-ari-17")), "question_id")
    add_defect("id with another vertical's abbreviation",
               run_ari(_edit(ari, 0, question_id="tme-pro-001")), "question_id")
    add_defect("_abs on a non-abstention question",
               run_ari(_edit(ari, 0, question_id="tme-ari-001_abs")), "abs_suffix")
    add_defect("record of another vertical", run_ari(_edit_block(ari, 0, vertical="episodic")),
               "vertical")

    # --- revision 2 (VERTICALS.md Appendix C): opaque ids, no non-linguistic filler ---
    stamped = {"text": {"non_linguistic_filler_share": 0.0}}
    nk_spec = _with_never_known(ari_spec)
    add_control("clean revision-2 corpus (opaque ids, natural text, share stamped)",
                run_ari(ari, revision=2, extra=stamped))
    add_control("revision-2 never-known question with an opaque id (no _abs demanded)",
                check(_corpus([*ari, _never_known(ari[0], "tme-ari-099")], "arithmetic",
                              revision=2, ceiling_by_shape=ari_ceiling, extra=stamped)[0],
                      spec=nk_spec))
    add_defect("revision-2 never-known question with an _abs id",
               check(_corpus([*ari, _never_known(ari[0], "tme-ari-099_abs")], "arithmetic",
                             revision=2, ceiling_by_shape=ari_ceiling, extra=stamped)[0],
                     spec=nk_spec), "question_id")
    padded = _padded(ari)
    add_defect("revision-2 corpus with word-list padding", run_ari(padded, revision=2),
               "non_linguistic_filler")
    add_defect("revision-2 corpus with echo clauses", run_ari(_padded(ari, _SELF_TEST_ECHO),
                                                              revision=2), "non_linguistic_filler")
    add_control("revision-1 word-list padding is measured, not enforced", run_ari(padded))
    add_defect("revision-2 sidecar records another filler share",
               run_ari(ari, revision=2, extra={"text": {"non_linguistic_filler_share": 0.25}}),
               "sidecar_mismatch")
    add_defect("undeclared shape", run_ari(_edit_block(ari, 0, shape="averages")), "shape_declared")
    add_defect("shape n differs from the declaration", run_ari(ari[1:]), "shape_n")
    add_defect("haystack lists of unequal length",
               run_ari(_edit(ari, 0, haystack_dates=ari[0].haystack_dates[:-1])), "haystack_lengths")
    gold_session = ari[0].gold_session_indices[0]
    add_defect("answer_session_ids not matching has_answer turns",
               run_ari(_edit_turn(ari, 0, gold_session, 0, has_answer=False)), "answer_sessions")
    add_defect("answer session outside the haystack",
               run_ari(_edit(ari, 0, answer_session_ids=(*ari[0].answer_session_ids, "zz"))),
               "answer_sessions")
    dates = list(ari[4].haystack_dates)
    dates[2], dates[3] = dates[3], dates[2]
    add_defect("dates out of order", run_ari(_edit(ari, 4, haystack_dates=tuple(dates))), "date_order")
    add_defect("question date before the last session",
               run_ari(_edit(ari, 0, question_date=ari[0].haystack_dates[-2])), "question_date")
    filler = _first_filler(ari[0])
    wm = _wm_records()
    wm_filler = _first_filler(wm[0])
    extra_gold = _edit_turn(wm, 0, wm_filler, 0, has_answer=True)
    extra_gold = _edit(extra_gold, 0, answer_session_ids=tuple(
        sid for i, sid in enumerate(wm[0].haystack_session_ids)
        if i == wm_filler or sid in wm[0].answer_session_ids))
    add_defect("G outside the declared range",
               check(_corpus(extra_gold, "workingmemory")[0], spec=wm_spec), "g_range")
    longer = _edit(wm, 0, haystack_sessions=(wm[0].haystack_sessions[0], *wm[0].haystack_sessions),
                   haystack_session_ids=("s99", *wm[0].haystack_session_ids),
                   haystack_dates=(format_corpus_date(_START - timedelta(days=1)),
                                   *wm[0].haystack_dates))
    add_defect("H outside the declared range",
               check(_corpus(longer, "workingmemory")[0], spec=wm_spec), "h_range")
    add_defect("gold pinned first in every question", run_pro(_prospective_records(gold_first=True)),
               "gold_position")
    add_defect("rung-fixed pinned gold without its carve-out",
               check(wm_corpus, spec=wm_spec, declared=no_carve), "gold_position")
    # a gold outside its rung's window: question 0 (rung 4, window 3..4) moved to 2 sessions
    # before the question, its distance_sessions saying so
    outside = list(windowed)
    moved = [_filler(0, s) for s in range(6)]
    moved[3] = _gold("I have adopted a cat called Pim00.")
    outside[0] = _record("tme-wm-001", "workingmemory", "distance-4", "Which cat have I adopted?",
                         "Pim00", moved, distance_sessions=2)
    add_defect("gold outside its rung's window",
               check(_corpus(outside, "workingmemory")[0], spec=window_spec), "rung_distance")
    add_defect("distance_sessions disagreeing with the gold's place in the window",
               check(_corpus(_edit_block(windowed, 0, distance_sessions=4), "workingmemory")[0],
                     spec=window_spec), "rung_distance")
    add_defect("rung distance off the declared d",
               check(_corpus(_edit_block(wm, 0, distance_sessions=2), "workingmemory")[0],
                     spec=wm_spec), "rung_distance")

    # --- V4 ---
    where = _first_filler(pro[0])
    for name, text, rule in (
        ("V4 year in text", "We did the same back in 2024, if you recall.", "v4_year"),
        ("V4 month-day in text", "The permit office said March 3rd at the latest.", "v4_month_day"),
        ("V4 numeric date in text", "The form says 3/14 at the top.", "v4_numeric_date"),
        ("V4 month name in calendar scope", "It usually happens in October.", "v4_month_name"),
        ("V4 weekday name in calendar scope", "Let's talk again on Thursday.", "v4_weekday_name"),
    ):
        edited = _edit_turn(pro, 0, where, 0, text)
        edited = _edit(edited, 1, haystack_sessions=edited[0].haystack_sessions)  # keep the pair
        add_defect(name, run_pro(edited), rule)

    # --- V5 ---
    derivation = ari[0].typedmemeval.derivation
    assert derivation is not None
    add_defect("V5 wrong recorded sum", run_ari(_edit_block(
        ari, 0, derivation=derivation.model_copy(update={"value": derivation.value + 1}))), "v5_value")
    delta = ari[4].typedmemeval.derivation
    assert delta is not None
    flipped = tuple(item.model_copy(update={"side": "a"}) if k == 3 else item
                    for k, item in enumerate(delta.inputs))
    add_defect("V5 delta side flipped", run_ari(_edit_block(
        ari, 4, derivation=delta.model_copy(update={"inputs": flipped}))), "v5_value")
    duration = ari[8].typedmemeval.derivation
    assert duration is not None
    add_defect("V5 duration disagrees with the timestamps", run_ari(_edit_block(
        ari, 8, derivation=duration.model_copy(update={"value": duration.value + 1}))), "v5_value")
    count = ari[12].typedmemeval.derivation
    assert count is not None
    add_defect("V5 count disagrees with the candidates", run_ari(_edit_block(
        ari, 12, derivation=count.model_copy(update={"value": 2}),
        answer_key=AnswerKey(numeric=NumericKey(value=2)))), "v5_value")
    shifted = tuple(item.model_copy(update={"value": item.value + 1}) if k == 0 else item
                    for k, item in enumerate(derivation.inputs))
    add_defect("V5 input not literal in its session", run_ari(_edit_block(
        ari, 0, derivation=derivation.model_copy(update={"inputs": shifted, "value":
                                                         derivation.value + 1}),
        answer_key=AnswerKey(numeric=NumericKey(value=derivation.value + 1, unit="USD")))),
        "v5_literal")
    first, second = derivation.inputs[1].value, derivation.inputs[2].value
    coincident = _edit_turn(ari, 0, filler, 0, f"I lent ${int(first + second)} to my brother.")
    add_defect("V5 coincident subset (a distractor equals two gold inputs)", run_ari(coincident),
               "v5_coincident_subset")
    coincident_span = _edit_turn(ari, 8, _first_filler(ari[8]), 0,
                                 f"The repair took {int(duration.value)} days to arrive.")
    add_defect("V5 coincident duration stated in text", run_ari(coincident_span),
               "v5_coincident_subset")

    # --- pairs ---
    add_defect("pair missing an arm", run_pro(pro[1:]), "pair_arms")
    add_defect("pair with different haystacks",
               run_pro(_edit_turn(pro, 0, where, 1, "Quite right, that one is sorted.")),
               "pair_haystack")
    add_defect("pair with the same gold", run_pro(_edit(pro, 1, answer=pro[0].answer)), "pair_gold")

    # --- sidecar and reproducibility ---
    add_defect("ceiling mismatch vs sidecar",
               run_ari(ari, ceiling_by_shape={**ari_ceiling, "deltas": 1.0}), "ceiling")
    add_defect("sidecar shape counts differ",
               run_ari(ari, shape_counts={"sums": 4, "deltas": 4, "durations": 4, "counts": 5}),
               "sidecar_mismatch")
    add_defect("reproducibility: regenerated bytes differ",
               check(corpus, spec=ari_spec, regenerate=lambda _: text + " "), "reproducibility")
    return cases
