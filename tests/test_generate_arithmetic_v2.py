"""Arithmetic v2 generator (generate/verticals/arithmetic.py): determinism, opaque ids, gold read
back from the text, natural text, the duration-convention fix, and one negative control per
validity rule the generator enforces."""

from __future__ import annotations

import re
from datetime import timedelta
from fractions import Fraction
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, QuestionRecord
from pytest_typedmemeval.corpus.text_stats import non_linguistic_share
from pytest_typedmemeval.generate import engine
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import arithmetic as ari
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

SEED = ari.SEED
DIAL = ari.RECORDED_COMPETITION
AMOUNT = re.compile(r"([$€£])(\d{3}\.\d{2})")
SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£"}


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return ari.build(SEED, DIAL).records


def _parsed(record: dict[str, Any]) -> QuestionRecord:
    return QuestionRecord.model_validate(record)


def _spec(shape: str, g: int | None = None) -> ari.Spec:
    return next(s for s in ari.layout(SEED)[shape] if g is None or s.g == g)


def _verdict(answer: str, record: dict[str, Any]) -> Outcome:
    key = AnswerKey.model_validate(record["typedmemeval"]["answer_key"])
    return judge_answer(answer, key).outcome


# --- determinism, ids, text ---------------------------------------------------------------------


def test_two_builds_are_byte_identical_and_shapes_are_independent(records) -> None:
    ari._shape_records.cache_clear()
    again = ari.build(SEED, DIAL, shapes=("durations",)).records
    assert dump_json(again) == dump_json([r for r in records if r["question_type"] == "durations"])
    ari._shape_records.cache_clear()
    assert dump_json(ari.build(SEED, DIAL, shapes=("durations",)).records) == dump_json(again)


def test_ids_are_opaque_and_counts_match_the_spec(records) -> None:
    assert [r["question_id"] for r in records] == [f"tme-ari-{i:03d}" for i in range(1, 51)]
    shapes = [r["question_type"] for r in records]
    assert {s: shapes.count(s) for s in ari.SHAPES} == ari.SHAPE_N
    assert len(set(shapes[:14])) > 1  # no id range holds one shape


def test_text_has_no_word_list_filler_and_reads_as_chat(records) -> None:
    texts = [t["content"] for r in records for s in r["haystack_sessions"] for t in s]
    assert non_linguistic_share(texts) == 0.0
    assert not any("Also on my mind" in text for text in texts)
    stats = ari.build(SEED, DIAL).tally.as_stats()
    assert 0.05 < stats["fact_sentence_share"] < 0.4


# --- gold read back from the text, independently of the generator ------------------------------


def test_purchase_gold_recomputed_from_the_text(records) -> None:
    for record in records:
        shape = record["question_type"]
        if shape == "durations":
            continue
        shops = re.findall(r"\b(?:at|from) ([A-Z][a-z]+)", record["question"])
        currency = record["typedmemeval"]["answer_key"]["numeric"]["unit"]
        total, count = Fraction(0), 0
        for session in record["haystack_sessions"]:
            statements = [p for t in session for p in ari.read_statements(t["content"])]
            assert len(statements) == 1 and statements[0].kind == "purchase"
            found = statements[0]
            if found.subject in shops:
                count += 1
                sign = -1 if shape == "deltas" and found.subject == shops[1] else 1
                assert shape == "counts" or found.currency == currency
                total += sign * (found.amount or 0)
        expected = count if shape == "counts" else total
        value = Fraction(record["typedmemeval"]["derivation"]["value"]).limit_denominator(100)
        assert value == expected


def test_durations_agree_under_both_day_conventions(records) -> None:
    """Appendix C: calendar days and whole elapsed days give the same number, for every item."""
    for record in (r for r in records if r["question_type"] == "durations"):
        times = _parsed(record).session_times
        events: dict[str, list[int]] = {}
        for index, session in enumerate(record["haystack_sessions"]):
            (found,) = [p for t in session for p in ari.read_statements(t["content"])]
            events.setdefault(found.subject, []).append(index)
        total = 0
        for item, where in events.items():
            if len(where) == 2:
                start, end = times[where[0]], times[where[1]]
                assert (end.date() - start.date()).days == (end - start).days, item
                if f"the {item}" in record["question"]:
                    total += (end - start).days
        assert record["answer"] == f"{total} days"
        assert record["question"].startswith("How many days in total ")
        assert _verdict(f"{total} days", record) is Outcome.CORRECT
        assert _verdict(f"{total + 1} days", record) is not Outcome.CORRECT
        assert _verdict(f"{total - 1} days", record) is not Outcome.CORRECT


def test_wrong_totals_and_counts_are_not_correct(records) -> None:
    for record in records:
        inputs = record["typedmemeval"]["derivation"]["inputs"]
        value = Fraction(record["typedmemeval"]["derivation"]["value"]).limit_denominator(100)
        assert _verdict(record["answer"], record) is Outcome.CORRECT
        if record["question_type"] == "counts":
            assert _verdict(f"{int(value) - 1} purchases", record) is not Outcome.CORRECT
        elif record["question_type"] in ("sums", "deltas"):
            short = value - Fraction(inputs[-1]["value"]).limit_denominator(100)
            symbol = SYMBOL[record["typedmemeval"]["derivation"]["unit"]]
            assert _verdict(f"{symbol}{float(short):,.2f}", record) is not Outcome.CORRECT


def test_counts_declare_every_candidate(records) -> None:
    for record in (r for r in records if r["question_type"] == "counts"):
        block = record["typedmemeval"]
        assert block["count_predicate"] in record["question"]
        assert len(block["candidates"]) == len(record["haystack_sessions"])
        assert sum(c["matches"] for c in block["candidates"]) == block["derivation"]["value"]


# --- negative controls: each validity rule refuses its defect ------------------------------------


def _tampered(monkeypatch: pytest.MonkeyPatch, change) -> None:
    original = ari.plan
    monkeypatch.setattr(ari, "plan", lambda seed, spec: change(original(seed, spec)))


def test_end_clock_before_start_clock_is_refused(monkeypatch) -> None:
    def earlier_end(plan: ari.Plan) -> ari.Plan:
        start, end = plan.gold[0], next(i for i in plan.gold[1:] if plan.subjects[i] ==
                                        plan.subjects[plan.gold[0]])
        plan.clocks[start], plan.clocks[end] = max(plan.clocks[start], plan.clocks[end]), \
            min(plan.clocks[start], plan.clocks[end]) - 1
        return plan
    _tampered(monkeypatch, earlier_end)
    with pytest.raises(GenerationError, match="whole elapsed days"):
        ari.build_record(SEED, _spec("durations"), 0.2)


def test_rival_span_equal_to_a_gold_span_is_refused() -> None:
    spec = _spec("durations", 2)
    draft = ari.draft_of(ari.plan(SEED, spec))
    stay = engine.render(SEED, ari.VERTICAL, draft, 0.2, ari.SCAFFOLD)
    parsed = ari.read_haystack(stay)
    where = {p.subject: [i for i, q in enumerate(parsed) if q.subject == p.subject] for p in parsed}
    gold = where[spec.asked[0]]
    rival = next(w for item, w in where.items() if item not in spec.asked and len(w) == 2)
    span = stay.times[gold[1]].date() - stay.times[gold[0]].date()
    stay.times[rival[1]] = stay.times[rival[0]] + span + timedelta(minutes=1)
    with pytest.raises(GenerationError, match="rival span"):
        ari.check_durations(stay, spec, parsed)


def test_coincident_subset_of_same_unit_amounts_is_refused(monkeypatch) -> None:
    spec = _spec("sums", 3)

    def coincide(plan: ari.Plan) -> ari.Plan:
        first = Fraction(AMOUNT.search(plan.pieces[plan.gold[0]]).group(2))
        rivals = [i for i, p in enumerate(plan.pieces) if i not in plan.gold
                  and SYMBOL[spec.currency] in p][:2]
        parts = (Fraction("100.01"), first - Fraction("100.01"))
        for index, part in zip(rivals, parts):
            plan.pieces[index] = AMOUNT.sub(lambda m: f"{m.group(1)}{float(part):.2f}",
                                            plan.pieces[index])
        return plan
    base = ari.plan(SEED, spec)
    assert Fraction(AMOUNT.search(base.pieces[base.gold[0]]).group(2)) > Fraction("200.02")
    _tampered(monkeypatch, coincide)
    with pytest.raises(GenerationError, match="another subset"):
        ari.build_record(SEED, spec, 0.1)


def test_text_that_disagrees_with_the_plan_is_refused(monkeypatch) -> None:
    spec = _spec("counts")

    def rename(plan: ari.Plan) -> ari.Plan:
        rival = next(s for i, s in enumerate(plan.subjects) if i not in plan.gold)
        plan.pieces[plan.gold[0]] = plan.pieces[plan.gold[0]].replace(spec.asked[0], rival)
        return plan
    _tampered(monkeypatch, rename)
    with pytest.raises(GenerationError, match="reads as|currency"):
        ari.build_record(SEED, spec, 0.1)


def test_a_second_statement_or_amount_in_a_session_is_refused(monkeypatch) -> None:
    def doubled(plan: ari.Plan) -> ari.Plan:
        plan.pieces[0] += " " + plan.pieces[1]
        return plan
    _tampered(monkeypatch, doubled)
    with pytest.raises(GenerationError, match="statements"):
        ari.build_record(SEED, _spec("sums"), 0.1)


def test_number_words_in_a_duration_haystack_are_refused(monkeypatch) -> None:
    def counted(plan: ari.Plan) -> ari.Plan:
        plan.pieces[0] += " It took eleven phone calls."
        return plan
    _tampered(monkeypatch, counted)
    with pytest.raises(GenerationError, match="number word"):
        ari.build_record(SEED, _spec("durations"), 0.2)


def test_a_wrong_answer_the_judge_accepts_is_refused(monkeypatch) -> None:
    original = ari._answers
    monkeypatch.setattr(ari, "_answers", lambda *a: (original(*a)[0], [original(*a)[0]]))
    with pytest.raises(GenerationError, match="wrong answer"):
        ari.build_record(SEED, _spec("counts"), 0.1)


def test_competition_rate_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(GenerationError, match="competition rate"):
        ari.build_record(SEED, _spec("sums"), 1.5)
