"""Loading the hand-made fixture corpus and refusing the malformed ones (plain unit tests).

The fixture corpus (``fixtures/corpus``, built by ``fixtures/build_fixture_corpus.py``) doubles as
the shipped corpus until generated corpora exist, so these tests also pin the properties every
corpus must have: identity by LF-normalised sha256, one-line load errors naming file, question id
and field path, and the per-vertical rules a generator would enforce.
"""

from __future__ import annotations

import itertools
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from pytest_typedmemeval.corpus import (
    CorpusError,
    QuestionRecord,
    Sidecar,
    corpus_sha256,
    load_corpus,
)
from pytest_typedmemeval.corpus.loading import sidecar_path_for

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_CORPUS = ROOT / "fixtures" / "corpus"
MALFORMED = ROOT / "fixtures" / "malformed"
SHIPPED = ROOT / "corpora"

VERTICALS = ("prospective", "forgetting", "arithmetic", "episodic")
CORPUS_FILES = {v: FIXTURE_CORPUS / f"typedmemeval-fixture-{v}-v0.json" for v in VERTICALS}

EXPECTED_SHAPES = {
    "prospective": {"due-later": 2, "current": 1},
    "forgetting": {"invalidated": 1, "still-valid": 1, "never-known": 1},
    "arithmetic": {"sums": 1, "counts": 1, "durations": 1},
    "episodic": {"list-order": 1, "participant-attribution": 2},
}

# V4 (Appendix A): no years, numeric dates, month or weekday names in message text.
_CALENDAR_WORDS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun"
).split()
ABSOLUTE_TIME = re.compile(
    r"\b(?:19|20)\d{2}\b|\b\d{1,2}[/-]\d{1,2}\b|\b(?:" + "|".join(_CALENDAR_WORDS) + r")\b",
    re.IGNORECASE,
)


def _records(vertical: str) -> dict[str, QuestionRecord]:
    return {r.question_id: r for r in load_corpus(CORPUS_FILES[vertical]).records}


def _all_records() -> list[QuestionRecord]:
    return [r for v in VERTICALS for r in load_corpus(CORPUS_FILES[v]).records]


def _text(record: QuestionRecord) -> str:
    return "\n".join(turn.content for session in record.haystack_sessions for turn in session)


# --------------------------------------------------------------------------------------------
# The fixture corpus loads, with its identity


@pytest.mark.parametrize("vertical", VERTICALS)
def test_fixture_corpus_loads_with_its_sidecar(vertical: str) -> None:
    corpus = load_corpus(CORPUS_FILES[vertical])

    assert corpus.corpus_id == f"typedmemeval-fixture-{vertical}-v0"
    assert corpus.vertical == vertical
    assert corpus.is_fixture
    assert corpus.sidecar is not None
    assert corpus.sidecar.revision == 0
    assert corpus.sidecar.generator is None  # hand-made: nothing can regenerate it, so no generator is claimed
    assert corpus.sidecar.k_ref == 5
    shapes: dict[str, int] = {}
    for record in corpus.records:
        shapes[record.shape] = shapes.get(record.shape, 0) + 1
    assert shapes == EXPECTED_SHAPES[vertical] == corpus.sidecar.shape_counts


@pytest.mark.parametrize("vertical", VERTICALS)
def test_sidecar_sha256_matches_the_bytes_and_survives_crlf(vertical: str, tmp_path: Path) -> None:
    path = CORPUS_FILES[vertical]
    raw = path.read_bytes()
    sidecar = Sidecar.model_validate_json(sidecar_path_for(path).read_bytes())

    assert b"\r" not in raw, "committed corpus bytes must use LF line endings"
    assert corpus_sha256(raw) == sidecar.sha256 == load_corpus(path).sha256
    assert corpus_sha256(raw.replace(b"\n", b"\r\n")) == sidecar.sha256
    assert corpus_sha256(raw.replace(b"\n", b"\r")) == sidecar.sha256

    # A Windows checkout (CRLF) still loads against the unchanged sidecar.
    crlf = tmp_path / path.name
    crlf.write_bytes(raw.replace(b"\n", b"\r\n"))
    sidecar_path_for(crlf).write_bytes(sidecar_path_for(path).read_bytes())
    assert load_corpus(crlf).sha256 == sidecar.sha256


@pytest.mark.parametrize("vertical", VERTICALS)
def test_sidecar_ceiling_is_recomputed_from_the_bytes(vertical: str) -> None:
    corpus = load_corpus(CORPUS_FILES[vertical])
    per_shape: dict[str, list[float]] = {}
    for record in corpus.records:
        g = len(record.answer_session_ids)
        if g:  # a gold-less shape has no ceiling at all, not a vacuous 1.0
            per_shape.setdefault(record.shape, []).append(min(1.0, 5 / g))
    expected = {shape: sum(values) / len(values) for shape, values in per_shape.items()}
    assert corpus.sidecar is not None
    assert corpus.sidecar.ceiling_by_shape == pytest.approx(expected)


def test_the_fixture_corpus_is_not_shipped() -> None:
    """Fixtures exercise the harness; only generated, gate-certified corpora ship as package data."""
    shipped = {p.name for p in SHIPPED.glob("*.json")}
    assert not {p.name for p in FIXTURE_CORPUS.glob("*.json")} & shipped


# --------------------------------------------------------------------------------------------
# Malformed corpora: one-line errors naming file, question id and field path

MALFORMED_CASES = [
    ("invalid_json.json", None, None, "invalid JSON"),
    ("not_a_list.json", None, None, "non-empty JSON array"),
    ("schema_violation.json", "tme-ari-002", "typedmemeval.answer_key.numeric.value", "number"),
    ("duplicate_ids.json", "tme-ari-003", "question_id", "duplicate question id"),
    ("dates_out_of_order.json", "tme-ari-003", "haystack_dates[2]", "dated before session 1"),
    ("dangling_answer_session.json", "tme-ari-003", "answer_session_ids[0]", "'sess-gone'"),
    ("bad_weekday.json", "tme-ari-003", "haystack_dates[1]", "weekday Mon does not match"),
    ("session_after_question.json", "tme-ari-003", "haystack_dates[5]", "dated after the question"),
    ("non_finite_gold.json", "tme-ari-003", "typedmemeval.answer_key.numeric.value", "finite number"),
    ("deeply_nested.json", None, None, "nested too deeply"),
]


@pytest.mark.parametrize(("name", "question_id", "field", "problem"), MALFORMED_CASES,
                         ids=[case[0] for case in MALFORMED_CASES])
def test_malformed_corpus_fails_with_one_line_naming_file_question_and_field(
    name: str, question_id: str | None, field: str | None, problem: str
) -> None:
    path = MALFORMED / name
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    error = caught.value
    message = str(error)

    assert "\n" not in message and "\r" not in message
    assert message.startswith(str(path))
    assert error.question_id == question_id
    assert error.field == field
    if question_id is not None:
        assert f"question {question_id}" in message
    if field is not None:
        assert f"field {field}:" in message
    assert problem in message


def test_bad_weekday_names_the_weekday() -> None:
    with pytest.raises(CorpusError, match=r"weekday \w{3} does not match the date"):
        load_corpus(MALFORMED / "bad_weekday.json")


def test_every_malformed_file_is_covered() -> None:
    assert sorted(p.name for p in MALFORMED.glob("*.json")) == sorted(c[0] for c in MALFORMED_CASES)


# --------------------------------------------------------------------------------------------
# Models


def test_models_are_frozen() -> None:
    record = _records("arithmetic")["tme-ari-001"]
    with pytest.raises(ValidationError, match="frozen"):
        record.question = "something else"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="frozen"):
        record.typedmemeval.answer_key.numeric.value = 0.0  # type: ignore[misc,union-attr]
    with pytest.raises(ValidationError, match="frozen"):
        record.haystack_sessions[0][0].has_answer = True  # type: ignore[misc]


def test_question_record_has_a_json_schema() -> None:
    schema = QuestionRecord.model_json_schema()
    assert "typedmemeval" in schema["required"]
    assert "ExtensionBlock" in schema["$defs"]
    json.dumps(schema)


# --------------------------------------------------------------------------------------------
# Rules every fixture record keeps


@pytest.mark.parametrize("record", _all_records(), ids=lambda r: r.question_id)
def test_record_structure(record: QuestionRecord) -> None:
    abbrev = {"prospective": "pro", "forgetting": "for", "arithmetic": "ari", "episodic": "epi"}
    assert record.question_id.startswith(f"tme-{abbrev[record.vertical]}-")
    assert record.question_type == record.shape
    assert 4 <= len(record.haystack_sessions) <= 8
    times = record.session_times
    assert list(times) == sorted(times)
    assert times[-1] < record.query_time
    assert record.question_id.endswith("_abs") == (record.shape == "never-known")
    for session_id in record.haystack_session_ids:
        assert re.fullmatch(r"sess-[0-9a-f]{4}", session_id), session_id
    for session in record.haystack_sessions:
        assert [turn.role for turn in session] == ["user", "assistant"]  # one role sequence
        for turn in session:
            assert not ABSOLUTE_TIME.search(turn.content), turn.content


@pytest.mark.parametrize("record", _all_records(), ids=lambda r: r.question_id)
def test_answer_session_ids_are_the_sessions_holding_has_answer_turns(record: QuestionRecord) -> None:
    holding = [
        session_id
        for session_id, session in zip(record.haystack_session_ids, record.haystack_sessions)
        if any(turn.has_answer for turn in session)
    ]
    assert list(record.answer_session_ids) == holding


@pytest.mark.parametrize("record", _all_records(), ids=lambda r: r.question_id)
def test_question_text_does_not_contain_its_gold(record: QuestionRecord) -> None:
    key = record.typedmemeval.answer_key
    if record.shape == "participant-attribution":
        # Closed choice: the question lists every option (k = 3, no commas between them).
        assert "me or you or both of us" in record.question
        return
    for value in (*key.accepted, *(key.list_order or ())):
        assert value.lower() not in record.question.lower()
    if key.numeric is not None and record.shape != "counts":
        assert f"{key.numeric.value:g}" not in record.question


# --------------------------------------------------------------------------------------------
# Per-vertical rules


def test_prospective_pair_arms_share_a_byte_identical_haystack_and_flip_gold() -> None:
    raw = json.loads(CORPUS_FILES["prospective"].read_text(encoding="utf-8"))
    arms = {r["typedmemeval"]["arm"]: r for r in raw if r["typedmemeval"].get("pair_id") == "tme-pro-p01"}
    assert set(arms) == {"before", "after"}
    before, after = arms["before"], arms["after"]

    for field in ("haystack_session_ids", "haystack_dates", "haystack_sessions", "answer_session_ids",
                  "question"):
        assert json.dumps(before[field]) == json.dumps(after[field]), field
    assert before["question_date"] < after["question_date"]
    assert before["answer"] != after["answer"]

    records = _records("prospective")
    before_key = records[before["question_id"]].typedmemeval.answer_key
    after_key = records[after["question_id"]].typedmemeval.answer_key
    assert before_key.expected_negative == "not_yet" and not before_key.accepted
    assert after_key.expected_negative is None
    assert after_key.accepted and set(after_key.accepted) <= set(before_key.premature)


def test_prospective_pivot_falls_between_the_arms() -> None:
    records = _records("prospective")
    before, after = records["tme-pro-001"], records["tme-pro-002"]
    gold = before.gold_session_indices
    assert len(gold) == 1
    assert "in three weeks" in before.haystack_sessions[gold[0]][0].content
    pivot = before.session_times[gold[0]] + timedelta(weeks=3)
    assert before.query_time < pivot < after.query_time


def test_forgetting_twins_share_the_haystack_text_and_differ_in_gold() -> None:
    records = _records("forgetting")
    invalidated, control = records["tme-for-001"], records["tme-for-002"]
    assert invalidated.typedmemeval.pair_id == control.typedmemeval.pair_id == "tme-for-p01"
    assert (invalidated.typedmemeval.arm, control.typedmemeval.arm) == ("treatment", "control")
    assert invalidated.haystack_session_ids == control.haystack_session_ids
    assert invalidated.haystack_dates == control.haystack_dates
    strip = lambda r: [[(t.role, t.content) for t in s] for s in r.haystack_sessions]  # noqa: E731
    assert strip(invalidated) == strip(control)
    assert set(invalidated.answer_session_ids).isdisjoint(control.answer_session_ids)
    for record in (invalidated, control):
        assert record.question.endswith("Give the name, and say whether that is still current.")


def test_forgetting_invalidated_and_control_keys() -> None:
    records = _records("forgetting")
    inv = records["tme-for-001"].typedmemeval
    assert inv.answer_key.expected_negative == "no_longer"
    assert inv.answer_key.must_name == inv.answer_key.stale == ("Orlen Vask",)
    assert [c.kind for c in inv.gold_components or ()] == ["statement", "invalidation"]
    statement, invalidation = (c.session_index for c in inv.gold_components or ())
    assert 4 <= invalidation - statement <= 15
    ctl = records["tme-for-002"].typedmemeval
    assert ctl.answer_key.expected_negative == "still" and ctl.answer_key.accepted == ("Pembry Hollis",)
    assert ctl.gold_components_redundant is True


def test_never_known_haystack_lacks_the_asked_noun_but_has_a_near_miss() -> None:
    record = _records("forgetting")["tme-for-003_abs"]
    assert "kiteboard" in record.question
    assert "kiteboard" not in _text(record).lower()
    assert record.answer_session_ids == ()
    assert not any(turn.has_answer for session in record.haystack_sessions for turn in session)
    key = record.typedmemeval.answer_key
    assert key.expected_negative == "abstain" and not key.accepted
    assert "Vellum Crest" in key.wrong and "paddleboard" in _text(record)


def _literal_forms(value: float) -> set[str]:
    return {f"{value:g}", f"{value:.2f}", str(int(value))}


@pytest.mark.parametrize("question_id", ["tme-ari-001", "tme-ari-003"])
def test_derivation_value_never_appears_literally(question_id: str) -> None:
    record = _records("arithmetic")[question_id]
    derivation = record.typedmemeval.derivation
    assert derivation is not None
    assert record.typedmemeval.answer_key.numeric is not None
    assert record.typedmemeval.answer_key.numeric.value == derivation.value
    visible = "\n".join([_text(record), record.question, *record.haystack_dates, record.question_date])
    for literal in _literal_forms(derivation.value):
        assert literal not in visible, literal


def test_sum_has_no_coincident_subset_and_each_input_once() -> None:
    record = _records("arithmetic")["tme-ari-001"]
    derivation = record.typedmemeval.derivation
    assert derivation is not None and derivation.operation == "sum" and derivation.unit == "USD"
    text = _text(record)
    gold = sorted(round(i.value * 100) for i in derivation.inputs)
    assert sum(gold) == round(derivation.value * 100)
    for item in derivation.inputs:
        session_text = " ".join(t.content for t in record.haystack_sessions[item.session_index])
        assert f"${item.value:.2f}" in session_text
        assert text.count(f"{item.value:.2f}") == 1
    pool = [round(float(a) * 100) for a in re.findall(r"\$(\d+\.\d{2})", text)]
    for size in range(1, len(gold) + 2):
        for combo in itertools.combinations(pool, size):
            if sum(combo) == sum(gold):
                assert sorted(combo) == gold


def test_count_candidates_cover_every_event() -> None:
    record = _records("arithmetic")["tme-ari-002"]
    block = record.typedmemeval
    assert block.count_predicate and block.count_predicate in record.question
    candidates = block.candidates or ()
    assert sorted(c.session_index for c in candidates) == list(range(len(record.haystack_sessions)))
    matching = {c.session_index for c in candidates if c.matches}
    assert matching == set(record.gold_session_indices)
    assert any(not c.matches for c in candidates)
    assert block.answer_key.numeric is not None and block.answer_key.numeric.value == len(matching)


def test_duration_is_computed_from_the_session_timestamps() -> None:
    record = _records("arithmetic")["tme-ari-003"]
    derivation = record.typedmemeval.derivation
    assert derivation is not None and derivation.operation == "duration" and derivation.unit == "days"
    (item,) = derivation.inputs
    assert item.from_session_index is not None
    times = record.session_times
    elapsed = (times[item.session_index].date() - times[item.from_session_index].date()).days
    assert elapsed == item.value == derivation.value
    assert {item.from_session_index, item.session_index} == set(record.gold_session_indices)


def test_list_order_items_each_sit_in_one_session_in_gold_order() -> None:
    record = _records("episodic")["tme-epi-001"]
    block = record.typedmemeval
    assert block.list_order is not None and block.answer_key.list_order is not None
    items, order = block.list_order.items, block.list_order.presented_order
    assert tuple(items[j] for j in order) == block.answer_key.list_order
    by_session = sorted(zip(block.list_order.session_indices, items))
    assert tuple(item for _, item in by_session) == block.answer_key.list_order
    for item, index in zip(items, block.list_order.session_indices):
        holding = [i for i, s in enumerate(record.haystack_sessions) if any(item in t.content for t in s)]
        assert holding == [index], item
    assert set(block.list_order.session_indices) == set(record.gold_session_indices)


@pytest.mark.parametrize(("question_id", "gold", "stated_by"),
                         [("tme-epi-002", "you", "assistant"), ("tme-epi-003", "both of us", "both")])
def test_participant_attribution_gold_follows_the_speakers(question_id: str, gold: str,
                                                           stated_by: str) -> None:
    record = _records("episodic")[question_id]
    block = record.typedmemeval
    assert record.answer == gold and gold in block.answer_key.accepted
    assert block.stated_by == stated_by
    speakers = {turn.role for session in record.haystack_sessions for turn in session if turn.has_answer}
    assert speakers == {"assistant": {"assistant"}, "both": {"user", "assistant"}}[stated_by]
