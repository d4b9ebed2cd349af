"""The leak and identity guards (GATES.md §4): self-test cases and the rules' edges."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import BaseModel

from pytest_typedmemeval.corpus.loading import RESERVED_BENCHMARK_TOKEN, Corpus
from pytest_typedmemeval.corpus.models import (
    CorpusTurn,
    Derivation,
    DerivationInput,
    QuestionRecord,
)
from pytest_typedmemeval.gates import leaks
from pytest_typedmemeval.gates.selftest import leaks as leak_fixtures
from pytest_typedmemeval.adapter.projection import adapter_view


@pytest.mark.parametrize("case", leaks.self_test(), ids=lambda case: case.name)
def test_self_test_case(case):
    assert case.ok, case.detail


def _corpus(*records: QuestionRecord) -> Corpus:
    return Corpus(corpus_id="test-leaks", path=Path("<test>"), sha256="0" * 64, records=records,
                  sidecar=None, vertical="arithmetic")


def _add_turn(record: QuestionRecord, session: int, content: str) -> QuestionRecord:
    return leak_fixtures._with_turn(record, session, content)


def _with_derivation(record: QuestionRecord, operation: str, value: float, unit: str) -> QuestionRecord:
    derivation = Derivation(operation=operation, value=value, unit=unit,
                            inputs=(DerivationInput(session_index=0, value=value),))
    block = record.typedmemeval.model_copy(update={"derivation": derivation})
    return record.model_copy(update={"typedmemeval": block})


@pytest.fixture
def clean() -> list[QuestionRecord]:
    return leak_fixtures._clean_records()


def test_clean_corpus_passes_and_reports_what_it_scanned(clean):
    result = leaks.check(_corpus(*clean))
    assert result.status == "passed", result.summary()
    assert result.measured["questions_scanned"] == 3
    assert result.measured["derivations_checked"] == {"delta": 0, "duration": 1, "sum": 1}
    assert result.measured["derivations_trivial"] == 1


def test_empty_corpus_is_skipped_not_passed():
    result = leaks.check(_corpus())
    assert result.status == "skipped"
    assert result.skip_reason


def test_key_names_come_from_the_models_minus_plain_english_words():
    names = set(leaks.KEY_NAMES)
    assert {"answer_key", "typedmemeval", "answer_session_ids", "expected_negative", "must_name",
            "pair_id", "gold_components_load_bearing", "session_index", "probe_records"} <= names
    excluded = set(leaks.excluded_key_names())
    assert {"shape", "arm", "dial", "value", "unit", "side", "kind", "label", "items"} <= excluded
    assert not names & excluded
    assert "has_answer" not in names  # it has its own rule


def test_plain_word_exclusions_name_real_fields_only():
    assert leaks.PLAIN_WORD_FIELDS <= leaks.model_field_names()


def test_a_new_single_word_field_is_scanned_until_someone_excludes_it():
    class Future(BaseModel):
        echo: float
        shape: str

    names = leaks.model_field_names([Future])
    scanned = {name for name in names if name not in leaks.PLAIN_WORD_FIELDS}
    assert scanned == {"echo"}


@pytest.mark.parametrize("text", ["answer_key", "AnswerKey", "answerkey", "ANSWER_KEY",
                                  "x.expected_negative=1", "TypedMemEval"])
def test_key_pattern_matches_serialised_spellings(text):
    assert leaks.KEY_PATTERN.search(text)


@pytest.mark.parametrize("text", ["the answer key to the exam", "a list-order question",
                                  "carve-outs in the contract", "my shape and value"])
def test_key_pattern_leaves_english_alone(text):
    assert not leaks.KEY_PATTERN.search(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("it cost $1,250.00.", [Decimal(1250)]),
    ("1250 and 1250.5", [Decimal(1250), Decimal("1250.5")]),
    ("in 2026, then", [Decimal(2026)]),
    ("a delta of -45", [Decimal(45)]),
    ("14days", [Decimal(14)]),
    ("s3a1250bc9e0f", []),
    ("x1250", []),
    ("0.75", [Decimal("0.75")]),
])
def test_numbers_are_token_bounded_and_formatted_variants_parse(text, expected):
    assert [value for value, _ in leaks.numbers_in(text)] == expected


def test_spelled_numbers_parse_common_forms():
    values = [v for v, _ in leaks.spelled_numbers_in(
        "twelve hundred and fifty, one thousand two hundred fifty, twenty-five, a hundred")]
    assert values == [Decimal(1250), Decimal(1250), Decimal(25), Decimal(100)]


def test_non_trivial_value_is_refused_bare_anywhere_in_sessions(clean):
    record = _add_turn(clean[0], 4, "I paid 128.75 for nothing in particular.")
    result = leaks.check(_corpus(record))
    assert result.refused_rules() == {"derivation_literal"}
    assert "session 4" in result.refusals[0].detail


def test_negative_delta_is_matched_by_magnitude(clean):
    record = _with_derivation(clean[2], "delta", -45, "USD")
    assert leaks.check(_corpus(record)).status == "passed"
    leaked = _add_turn(record, 0, "The gap was 45 in the end.")
    assert leaks.check(_corpus(leaked)).refused_rules() == {"derivation_literal"}


def test_count_derivations_are_not_diagnostic(clean):
    record = _with_derivation(clean[2], "count", 128, "items")
    leaked = _add_turn(record, 0, "There were 128 of them.")
    assert leaks.check(_corpus(leaked)).status == "passed"


def test_trivial_value_as_a_bare_digit_is_allowed_but_not_with_its_unit(clean):
    duration = clean[1]
    assert leaks.check(_corpus(_add_turn(duration, 1, "I bought 6 eggs."))).status == "passed"
    for text in ("It took 6 days.", "a 6-day wait", "six days later"):
        result = leaks.check(_corpus(_add_turn(duration, 1, text)))
        assert result.refused_rules() == {"derivation_literal"}, text


def test_trivial_currency_value_is_refused_after_its_symbol(clean):
    record = _with_derivation(clean[2], "sum", 7, "USD")
    assert leaks.check(_corpus(_add_turn(record, 0, "Only 7 people came."))).status == "passed"
    assert leaks.check(_corpus(_add_turn(record, 0, "It was $7 total."))).refused_rules() == {
        "derivation_literal"}


def test_trivial_value_in_the_question_is_refused(clean):
    duration = clean[1].model_copy(update={"question": "Did the starter take 6 or 7 days?"})
    assert "derivation_literal" in leaks.check(_corpus(duration)).refused_rules()


def test_timestamp_digits_are_not_derivation_literals(clean):
    # Sessions fall on 2026-03-02/05/08/11 and the question on 2026-03-14: the view's rendered
    # timestamps contain 14, 11, 08... which state no derived value.
    record = _with_derivation(clean[1], "duration", 14, "days")
    assert "-14T" in adapter_view(record).query_time.isoformat()
    assert leaks.check(_corpus(record)).status == "passed"
    leaked = _add_turn(record, 0, "It was 14 in total.")
    assert leaks.check(_corpus(leaked)).refused_rules() == {"derivation_literal"}


def test_gold_text_in_question_is_token_bounded(clean):
    named = clean[2]
    inside_word = named.model_copy(update={"question": "Which city, not Lisbonia, did my sister pick?"})
    assert leaks.check(_corpus(inside_word)).status == "passed"
    exact = named.model_copy(update={"question": "Which city other than LISBON did she consider?"})
    assert leaks.check(_corpus(exact)).refused_rules() == {"gold_in_question"}


def test_must_name_value_in_question_is_refused(clean):
    named = clean[2]
    key = named.typedmemeval.answer_key.model_copy(update={"must_name": ("Porto",)})
    block = named.typedmemeval.model_copy(update={"answer_key": key})
    record = named.model_copy(update={"typedmemeval": block,
                                      "question": "Is my sister still in Porto?"})
    assert leaks.check(_corpus(record)).refused_rules() == {"gold_in_question"}


def test_gold_in_a_per_question_instruction_is_refused_but_the_default_is_not_scanned(clean):
    named = clean[2]
    block = named.typedmemeval.model_copy(update={"instruction": "Answer with a city such as Lisbon."})
    refused = leaks.check(_corpus(named.model_copy(update={"typedmemeval": block})))
    assert refused.refused_rules() == {"gold_in_question"}
    assert "instruction" in refused.refusals[0].detail
    key = named.typedmemeval.answer_key.model_copy(update={"accepted": ("don't know",)})
    abstain = named.model_copy(update={"typedmemeval": named.typedmemeval.model_copy(
        update={"answer_key": key})})
    assert leaks.check(_corpus(abstain)).status == "passed"


def test_any_question_id_shaped_token_is_refused(clean):
    record = _add_turn(clean[2], 0, "Ask about TME-EPI-017_abs later.")
    assert leaks.check(_corpus(record)).refused_rules() == {"question_id"}


def test_pair_id_shaped_token_is_an_extension_value(clean):
    record = _add_turn(clean[2], 0, "See tme-pro-p07.")
    assert leaks.check(_corpus(record)).refused_rules() == {"extension_value"}


def test_seeded_from_value_is_refused(clean):
    named = clean[2]
    block = named.typedmemeval.model_copy(update={"seeded_from": "tg-prospective-001"})
    record = _add_turn(named.model_copy(update={"typedmemeval": block}), 0, "tg-prospective-001!")
    assert leaks.check(_corpus(record)).refused_rules() == {"extension_value"}


def test_has_answer_with_a_space_is_english(clean):
    record = _add_turn(clean[2], 0, "She has answers for everything.")
    assert leaks.check(_corpus(record)).status == "passed"


def test_check_scans_the_projection_view_not_its_own(clean, monkeypatch):
    """The gate must read exactly what the adapter receives: a leak added by the projection
    (here, a label smuggled into the instruction) is caught although the record is clean."""

    def leaky_view(record):
        view = adapter_view(record)
        return replace(view, instruction=view.instruction + " (has_answer)")

    monkeypatch.setattr(leaks, "adapter_view", leaky_view)
    result = leaks.check(_corpus(*clean))
    assert result.refused_rules() == {"has_answer"}
    assert all("instruction" in refusal.detail for refusal in result.refusals)


def test_one_refusal_per_literal_and_place(clean):
    record = _add_turn(clean[2], 0, "has_answer has_answer has_answer")
    result = leaks.check(_corpus(record))
    assert len(result.refusals) == 1
    assert result.refusals[0].subject == record.question_id
    assert result.measured["refusals_by_rule"] == {"has_answer": 1}


def test_short_corpus_session_ids_are_checked_for_equality_only(clean):
    record = clean[2]
    view = adapter_view(record)
    short = record.model_copy(update={"haystack_session_ids": ("s0", "s1", "s2"),
                                      "answer_session_ids": ("s1",)})
    assert leaks.scan_view(short, adapter_view(short)) == []
    same = replace(view, sessions=tuple(replace(s, session_id=sid) for s, sid in
                                        zip(view.sessions, short.haystack_session_ids)))
    assert {r.rule for r in leaks.scan_view(short, same)} == {"session_id"}


def test_report_pattern_covers_the_reserved_token():
    assert leaks.REPORT_TOKEN_PATTERN.fullmatch(RESERVED_BENCHMARK_TOKEN)


@pytest.mark.parametrize("text", ['{"a": "longmemeval"}', '{"a": "LONGMEMEVAL_s"}',
                                  '{"a": "Long-Mem-Eval"}', 'plain text mentioning LongMemEval',
                                  '{"longmemeval_compat": true}'])
def test_serialized_report_with_the_reserved_token_is_refused(text):
    result = leaks.check_serialized_report(text)
    assert result.status == "refused"
    assert result.refused_rules() == {"longmemeval"}


def test_serialized_report_without_it_passes():
    text = json.dumps({"benchmark_name": "TypedMemEval-Arithmetic v1 50q", "memory": "long"})
    assert leaks.check_serialized_report(text).status == "passed"


def test_closed_choice_gold_may_be_listed_only_with_every_choice(clean):
    from pytest_typedmemeval.corpus.models import AnswerKey

    named = clean[2]
    key = AnswerKey(accepted=("both of us", "both"), numeric=None, choices=("me", "you", "both of us"))
    record = named.model_copy(update={
        "answer": "both of us",
        "question": "Who brought up Lisbon: me or you or both of us?",
        "typedmemeval": named.typedmemeval.model_copy(update={"answer_key": key})})
    assert leaks.check(_corpus(record)).status == "passed"
    partial = record.model_copy(update={"question": "Was it both of us, or just me, who brought it up?"})
    result = leaks.check(_corpus(partial))
    assert result.refused_rules() == {"gold_in_question"}
    assert "does not list all of them" in result.refusals[0].detail
