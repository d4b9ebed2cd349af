"""The Arithmetic generator (VERTICALS.md §2.3) and its shipped corpus, arithmetic-v1."""

from __future__ import annotations

import copy
import re
from collections import Counter
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import pytest

from pytest_typedmemeval import cli
from pytest_typedmemeval.corpus.loading import (
    Corpus,
    load_corpus,
    normalised_bytes,
    sidecar_path_for,
)
from pytest_typedmemeval.corpus.models import (
    AnswerKey,
    CorpusTurn,
    NumericKey,
    QuestionRecord,
    Sidecar,
)
from pytest_typedmemeval.gates import registry as gate_registry
from pytest_typedmemeval.gates import structure
from pytest_typedmemeval.gates.vertical_specs import VERTICAL_SPECS
from pytest_typedmemeval.generate import arithmetic, calibration, registry
from pytest_typedmemeval.generate.machinery import DraftTurn, GenerationError, text_counts
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens, tokenize

SHIPPED = registry.shipped_corpora_dir() / "typedmemeval-arithmetic-v1.json"
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
AMOUNT = re.compile(r"([$€£])(\d{3}\.\d{2})")
SHOPS = arithmetic.ASKED_SHOPS + arithmetic.RIVAL_SHOPS


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus(SHIPPED)


def _by_shape(corpus: Corpus, shape: str) -> list[QuestionRecord]:
    return [r for r in corpus.records if r.shape == shape]


def _statement_turn(session: tuple[CorpusTurn, ...]) -> str:
    texts = [t.content for t in session if AMOUNT.search(t.content) or "today." in t.content]
    assert len(texts) == 1
    return texts[0]


# --- reproducibility ---------------------------------------------------------------------------


def test_the_corpus_is_a_function_of_seed_and_echo() -> None:
    # Real rebuilds, not the memo of an earlier call (the whole corpus is rebuilt against the
    # shipped bytes by the regeneration tests below).
    arithmetic._shape_records.cache_clear()
    deltas = arithmetic.build_records(arithmetic.SEED, arithmetic.RECORDED_ECHO, shapes=("deltas",))
    arithmetic._shape_records.cache_clear()
    assert arithmetic.build_records(arithmetic.SEED, arithmetic.RECORDED_ECHO,
                                    shapes=("deltas",)) == deltas
    other_seed = arithmetic.build_records(arithmetic.SEED + 1, arithmetic.RECORDED_ECHO,
                                          shapes=("deltas",))
    assert other_seed != deltas
    # A shape's records depend on its own knob only (what lets the search move one at a time).
    moved = {**arithmetic.RECORDED_ECHO, "sums": 0.9}
    assert arithmetic.build_records(arithmetic.SEED, moved, shapes=("deltas",)) == deltas


def test_regenerating_from_the_sidecar_gives_the_shipped_bytes(corpus: Corpus) -> None:
    text = registry.regenerate_text(corpus)
    assert text is not None
    assert normalised_bytes(text.encode("utf-8")) == normalised_bytes(SHIPPED.read_bytes())
    assert corpus.sidecar is not None
    assert corpus.sidecar.echo_by_shape == arithmetic.RECORDED_ECHO


def test_generate_writes_the_shipped_corpus_and_sidecar_byte_for_byte(tmp_path: Path) -> None:
    report = registry.generate("arithmetic", tmp_path)
    assert report.corpus_path.read_bytes() == SHIPPED.read_bytes()
    assert report.sidecar_path.read_bytes() == sidecar_path_for(SHIPPED).read_bytes()
    assert not report.searched and set(report.seconds) == {"build", "sidecar"}


def test_cli_check_rebuilds_and_compares(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["generate", "--vertical", "arithmetic", "--check"]) == 0
    assert "identical" in capsys.readouterr().out


def test_the_registry_discovers_the_generator() -> None:
    assert registry.GENERATORS["arithmetic"] == arithmetic.GENERATOR
    assert set(arithmetic.SHAPES) == set(VERTICAL_SPECS["arithmetic"].shape_names)


def test_rerunning_the_search_for_one_shape_reproduces_its_record() -> None:
    # §4.11: the search rerun through the real build entry point and diffed against the record.
    # One shape only (a shape's coverage depends on its own knob; the full search takes ~45 s).
    shape = "deltas"

    def evaluate(knob: float) -> float:
        echo = {**arithmetic.RECORDED_ECHO, shape: knob}
        records = arithmetic.build_records(arithmetic.SEED, echo, shapes=(shape,))
        coverage = calibration.shape_coverage([QuestionRecord.model_validate(r) for r in records],
                                              shape)
        assert coverage is not None
        return float(coverage)

    search = calibration.search_shape(evaluate, shape)
    assert search.as_dict() == arithmetic.CALIBRATION_RECORD["by_shape"][shape]
    assert search.echo == arithmetic.RECORDED_ECHO[shape] and search.coverage <= 0.90
    for name, entry in arithmetic.CALIBRATION_RECORD["by_shape"].items():
        assert entry["echo"] == arithmetic.RECORDED_ECHO[name] and entry["bracket"] is not None
        assert entry["coverage"] <= 0.90


# --- acceptance: the gates as implemented ------------------------------------------------------


def test_shipped_arithmetic_passes_every_corpus_gate(corpus: Corpus) -> None:
    results = {r.gate: r for r in gate_registry.run_corpus_gates(corpus)}
    for gate in ("structure", "separability", "calibration", "leaks"):
        assert results[gate].status == "passed", results[gate].summary()
    probes = results["probes"]
    assert probes.status == "skipped" and "not measured" in (probes.skip_reason or "")
    with_rebuild = structure.check(corpus, regenerate=registry.regenerate_text)
    assert with_rebuild.status == "passed", with_rebuild.summary()
    assert with_rebuild.measured["reproducibility"] == "matched"
    coverage = results["calibration"].measured["coverage_by_shape"]
    assert all(0.5 <= coverage[shape]["mean"] <= 0.9 for shape in arithmetic.SHAPES), coverage
    derivations = results["leaks"].measured["derivations_checked"]
    assert derivations == {"delta": 10, "duration": 12, "sum": 14}


def test_the_sidecar_describes_the_bytes(corpus: Corpus) -> None:
    sidecar = corpus.sidecar
    assert isinstance(sidecar, Sidecar) and not sidecar.fixture
    assert (sidecar.corpus_id, sidecar.revision, sidecar.vertical) == ("typedmemeval-arithmetic-v1",
                                                                      1, "arithmetic")
    assert sidecar.generator == arithmetic.GENERATOR and sidecar.seed == arithmetic.SEED
    assert sidecar.shape_counts == {"counts": 14, "sums": 14, "deltas": 10, "durations": 12}
    ceilings = {"counts": (11 + 3 * 5 / 6) / 14, "sums": (11 + 3 * 5 / 6) / 14,
                "deltas": (8 + 2 * 5 / 6) / 10, "durations": (8 + 4 * 5 / 6) / 12}
    assert sidecar.ceiling_by_shape == pytest.approx(ceilings)
    rows = {(row.shape, row.arm) for row in sidecar.probe_records}
    assert rows == {(s, a) for s in arithmetic.SHAPES for a in ("V1", "V8", "V9")}
    assert all(row.status == "not_measured" and row.reason for row in sidecar.probe_records)
    assert sidecar.separability and not any(row.refused for row in sidecar.separability)
    assert sidecar.exemptions == () and not sidecar.difficulty_validated
    difficulty = sidecar.extra["difficulty"]
    assert difficulty["dials"] == ["inputs"] and difficulty["counts_by_band"] == {
        "1": 15, "2": 12, "3": 11, "4": 12}
    assert sidecar.extra["coverage"]["calibration"] == arithmetic.CALIBRATION_RECORD


# --- the design, read back from the bytes -------------------------------------------------------


def test_ids_shapes_inputs_and_bands_follow_the_design(corpus: Corpus) -> None:
    by_id = {r.question_id: r for r in corpus.records}
    assert [r.question_id for r in corpus.records] == sorted(by_id)
    assert sorted(by_id) == [f"tme-ari-{n:03d}" for n in range(1, 51)]
    cells: Counter[tuple[str, int]] = Counter()
    for record in corpus.records:
        number = int(record.question_id[-3:])
        shape = ("counts" if number <= 14 else "sums" if number <= 28 else
                 "deltas" if number <= 38 else "durations")
        block = record.typedmemeval
        assert record.shape == record.question_type == shape
        g = len(record.gold_session_indices)
        assert 15 <= len(record.haystack_sessions) - g <= 25
        assert block.dial is not None and block.dial.name == "inputs" and block.dial.value == g
        assert block.difficulty == {2: 1, 3: 1, 4: 2, 5: 3, 6: 4}[g]
        assert block.gold_components_load_bearing is True and block.memory_type == "arithmetic"
        derivation = block.derivation
        assert derivation is not None
        assert derivation.operation == {"counts": "count", "sums": "sum", "deltas": "delta",
                                        "durations": "duration"}[shape]
        assert len(derivation.inputs) == (g // 2 if shape == "durations" else g)
        cells[(shape, g)] += 1
    assert {g for shape, g in cells if shape == "durations"} == {2, 4, 6}  # spread, not at the foot
    per_g: Counter[int] = Counter()
    for (shape, g), n in cells.items():
        per_g[g] += n
    assert per_g == {2: 4, 3: 11, 4: 12, 5: 11, 6: 12}


def _amounts(record: QuestionRecord) -> list[tuple[int, str, Fraction]]:
    out = []
    for index, session in enumerate(record.haystack_sessions):
        for turn in session:
            for symbol, number in AMOUNT.findall(turn.content):
                out.append((index, symbol, Fraction(Decimal(number))))
    return out


def test_derivations_recompute_from_the_text(corpus: Corpus) -> None:
    """V5, independent of the generator: amounts by regex, durations from the dates."""
    for record in corpus.records:
        derivation = record.typedmemeval.derivation
        assert derivation is not None
        gold = record.gold_session_indices
        key = record.typedmemeval.answer_key.numeric
        assert key is not None and key.value == derivation.value and key.tolerance == 0
        if record.shape == "durations":
            dates = [datetime.strptime(d[:10], "%Y/%m/%d") for d in record.haystack_dates]
            days = 0
            for item in derivation.inputs:
                assert item.from_session_index is not None
                span = (dates[item.session_index] - dates[item.from_session_index]).days
                assert span == item.value and span >= 1
                days += span
            assert days == derivation.value and derivation.unit == "days" and days >= 10
            assert record.answer == f"{days} days"
            continue
        amounts = _amounts(record)
        assert [i for i, _, _ in amounts] == list(range(len(record.haystack_sessions)))
        symbol = SYMBOLS[derivation.unit] if record.shape != "counts" else None
        by_session = {i: (s, v) for i, s, v in amounts}
        if record.shape == "counts":
            assert derivation.value == len(gold) and record.answer == f"{len(gold)} purchases"
            continue
        assert all(by_session[i][0] == symbol for i in gold)
        signs = {item.session_index: (-1 if item.side == "b" else 1) for item in derivation.inputs}
        total = sum((signs[i] * by_session[i][1] for i in gold), Fraction(0))
        assert total == Fraction(Decimal(repr(derivation.value))) and total > 0
        whole, cents = divmod(int(total * 100), 100)
        assert record.answer == f"{symbol}{whole:,}.{cents:02d}"
        if record.shape == "deltas":
            assert {item.side for item in derivation.inputs} == {"a", "b"}


def test_counts_list_every_candidate_and_the_predicate_is_the_questions(corpus: Corpus) -> None:
    for record in _by_shape(corpus, "counts"):
        block = record.typedmemeval
        assert block.count_predicate and block.count_predicate in record.question
        shop = re.search(r"from ([A-Z][a-z]+)\?$", record.question)
        assert shop is not None
        candidates = block.candidates or ()
        assert [c.session_index for c in candidates] == list(range(len(record.haystack_sessions)))
        for candidate in candidates:
            statement = _statement_turn(record.haystack_sessions[candidate.session_index])
            assert candidate.matches == bool(re.search(rf"\b{shop.group(1)}\b", statement))
        matching = {c.session_index for c in candidates if c.matches}
        assert matching == set(record.gold_session_indices)


def test_no_other_subset_of_same_unit_amounts_reaches_a_sum(corpus: Corpus) -> None:
    """§2.3 rule 2 by brute force (independent of the gate's bitset search) for sums."""
    for record in _by_shape(corpus, "sums"):
        derivation = record.typedmemeval.derivation
        assert derivation is not None
        symbol = SYMBOLS[derivation.unit]
        gold = set(record.gold_session_indices)
        pool = [(i, v) for i, s, v in _amounts(record) if s == symbol]
        assert len(pool) - len(gold) >= 2  # same-unit distractor amounts are there
        target = Fraction(Decimal(repr(derivation.value)))
        for size in range(1, len(gold) + 2):
            for combo in combinations(pool, size):
                if {i for i, _ in combo} != gold:
                    assert sum(v for _, v in combo) != target, (record.question_id, combo)


def test_each_amount_is_stated_once_with_its_shop_in_the_same_sentence(corpus: Corpus) -> None:
    for record in corpus.records:
        if record.shape == "durations":
            continue
        values = [v for _, _, v in _amounts(record)]
        assert len(values) == len(set(values))
        for session in record.haystack_sessions:
            statement = _statement_turn(session)
            sentence = next(s for s in re.split(r"(?<=\.)\s+", statement) if AMOUNT.search(s))
            assert len(AMOUNT.findall(statement)) == 1
            assert [shop for shop in SHOPS if re.search(rf"\b{shop}\b", sentence)], sentence


def test_the_question_currency_does_not_stand_out(corpus: Corpus) -> None:
    for record in corpus.records:
        if record.shape == "durations":
            continue
        per_currency = Counter(symbol for _, symbol, _ in _amounts(record))
        assert set(per_currency) == {"$", "€", "£"}
        assert all(8 <= count <= 10 for count in per_currency.values()), per_currency


def test_duration_text_has_no_numbers_dates_or_calendar_names(corpus: Corpus) -> None:
    for record in _by_shape(corpus, "durations"):
        texts = [record.question] + [t.content for s in record.haystack_sessions for t in s]
        for text in texts:
            assert not re.search(r"\d", text)
            assert structure.v4_findings(text, "calendar") == []
            assert not set(raw_tokens(text)) & {"one", "two", "three", "ten", "twelve", "twenty"}


def test_the_mechanical_judge_grades_every_gold_answer_correct(corpus: Corpus) -> None:
    for record in corpus.records:
        key = record.typedmemeval.answer_key
        assert judge_answer(record.answer, key).outcome is Outcome.CORRECT, record.question_id
        assert key.numeric is not None
        value = key.numeric.value
        if record.shape in ("sums", "deltas"):
            symbol = SYMBOLS[key.numeric.unit or ""]
            off = Decimal(repr(value)) + Decimal("0.01")
            assert judge_answer(f"{symbol}{off}", key).outcome is Outcome.WRONG
            other = next(s for s in SYMBOLS.values() if s != symbol)
            assert judge_answer(f"{other}{Decimal(repr(value))}", key).outcome is Outcome.WRONG
            assert judge_answer(f"In total that is {Decimal(repr(value))}.", key).outcome \
                is Outcome.CORRECT
        else:
            assert judge_answer(f"{int(value) + 1}", key).outcome is Outcome.WRONG
            assert judge_answer(f"It was {int(value)} in all.", key).outcome is Outcome.CORRECT


# --- gold-blindness: the plan's distributions, gold against filler ------------------------------

def _chi2_critical(df: int, z: float = 3.0902) -> float:
    """Chi-square critical value at p = 0.001 by the Wilson-Hilferty approximation (11.16 at
    df = 1 against the table's 10.83, closer above): a homogeneity test that only refuses a real
    skew."""
    return float(df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3)


def _chi2(gold: Counter[str], filler: Counter[str]) -> tuple[float, int]:
    categories = sorted(set(gold) | set(filler))
    total_g, total_f = sum(gold.values()), sum(filler.values())
    statistic = 0.0
    for category in categories:
        both = gold[category] + filler[category]
        for observed, total in ((gold[category], total_g), (filler[category], total_f)):
            expected = both * total / (total_g + total_f)
            statistic += (observed - expected) ** 2 / expected
    return statistic, len(categories) - 1


_FRAMES = [(c.construction_id, re.compile(
    re.escape(c.template).replace(r"\{subject\}", r"[A-Za-z]+").replace(
        r"\{attribute\}", r"an? [a-z]+").replace(r"\{value\}", r"[$€£][\d.]+")))
    for c in arithmetic.CONSTRUCTIONS]


def _session_plan(record: QuestionRecord, session: tuple[CorpusTurn, ...]) -> dict[str, str]:
    user = [t for t in session if t.role == "user"]
    slots = [i for i, t in enumerate(user) if AMOUNT.search(t.content) or "today." in t.content]
    assert len(slots) == 1
    text = user[slots[0]].content
    frames = [cid for cid, pattern in _FRAMES if pattern.search(text)]
    assert len(frames) == 1, text
    clause = re.search(r"\(Also on my mind: ([a-z, ]+)\.\)", text)
    assert clause is not None and all("Also on my mind" not in t.content
                                      for t in session if t is not user[slots[0]])
    terms = clause.group(1).split(", ")
    question = set(tokenize(record.question))
    echoed = sum(term in question for term in terms)
    return {"slot": str(slots[0]), "frame": frames[0], "echo_question_words": str(echoed),
            "echo_neutral_words": str(len(terms) - echoed)}


def test_plan_distributions_are_the_same_for_gold_and_filler(corpus: Corpus) -> None:
    names = ("slot", "frame", "echo_question_words", "echo_neutral_words")
    gold: dict[str, Counter[str]] = {name: Counter() for name in names}
    filler: dict[str, Counter[str]] = {name: Counter() for name in names}
    for record in corpus.records:
        golden = set(record.gold_session_indices)
        for index, session in enumerate(record.haystack_sessions):
            for name, value in _session_plan(record, session).items():
                (gold if index in golden else filler)[name][value] += 1
    for name in names:
        statistic, df = _chi2(gold[name], filler[name])
        assert statistic < _chi2_critical(df), (name, statistic, gold[name], filler[name])


def test_every_turn_slot_and_digit_count_is_identical_across_a_haystack(corpus: Corpus) -> None:
    for record in corpus.records[::5]:
        for slot in zip(*record.haystack_sessions):
            assert len({text_counts(turn.content) for turn in slot}) == 1
        digits = {sum(ch.isdigit() for t in s for ch in t.content)
                  for s in record.haystack_sessions}
        assert len(digits) == 1


# --- validity rules are hard errors --------------------------------------------------------------


def _stay(shape: str, index: int = 0) -> arithmetic.Haystack:
    spec = arithmetic.layout(arithmetic.SEED)[shape][index]
    stay = arithmetic.plan_haystack(arithmetic.SEED, spec, arithmetic.RECORDED_ECHO[shape])
    arithmetic.render(arithmetic.SEED, stay)
    arithmetic.check_haystack(stay)
    return stay


def _statement(stay: arithmetic.Haystack, position: int) -> DraftTurn:
    return stay.sessions[position][stay.statement_turns[position]]


def test_a_clean_haystack_passes_and_reads_back_its_plan() -> None:
    for shape in arithmetic.SHAPES:
        stay = _stay(shape)
        derived = arithmetic.derive(stay)
        assert list(derived.gold) == stay.gold and derived.value == arithmetic.planned_value(stay)


def test_an_amount_without_its_shop_is_refused() -> None:
    stay = _stay("sums")
    turn = _statement(stay, stay.gold[0])
    turn.text = re.sub(r"^.*?([$€£]\d+\.\d{2})", r"I paid \1", turn.text)
    with pytest.raises(GenerationError):
        arithmetic.check_haystack(stay)


def test_a_changed_gold_amount_no_longer_reads_as_the_plan() -> None:
    stay = _stay("sums")
    turn = _statement(stay, stay.gold[0])
    literal = AMOUNT.search(turn.text)
    assert literal is not None
    changed = f"{Decimal(literal.group(2)) + Decimal('0.01'):.2f}"
    turn.text = turn.text.replace(literal.group(2), changed)
    with pytest.raises(GenerationError, match="reads back|twice"):
        arithmetic.check_haystack(stay)


def test_a_coincident_subset_is_refused() -> None:
    stay = _stay("sums")
    cents = {p: slot.cents or 0 for p, slot in enumerate(stay.slots)}
    g1, g2 = stay.gold[:2]
    d1, d2 = [p for p in range(stay.n) if p not in stay.gold
              and stay.slots[p].currency == stay.currency][:2]
    pair = cents[g1] + cents[g2]  # two distractors rewritten to sum to two gold amounts
    shift = 1
    while {pair // 2 + shift, pair - pair // 2 - shift} & set(cents.values()):
        shift += 1
    for position, value in ((d1, pair // 2 + shift), (d2, pair - pair // 2 - shift)):
        turn = _statement(stay, position)
        old = f"{cents[position] // 100}.{cents[position] % 100:02d}"
        turn.text = turn.text.replace(old, f"{value // 100}.{value % 100:02d}")
        stay.slots[position].cents = cents[position] = value
    currency_at = {p: slot.currency or "" for p, slot in enumerate(stay.slots)}
    assert arithmetic.coincident_subset(stay, cents, currency_at) is not None
    with pytest.raises(GenerationError, match="another subset"):
        arithmetic.check_haystack(stay)


def test_a_second_statement_in_a_session_is_refused() -> None:
    stay = _stay("counts")
    extra = _statement(stay, 1).text.split(" (Also")[0]
    stay.sessions[0][1].text += " " + extra
    with pytest.raises(GenerationError, match="statements, not one"):
        arithmetic.check_haystack(stay)


def test_an_asked_shop_billed_in_another_currency_is_refused() -> None:
    stay = _stay("counts")
    turn = _statement(stay, stay.gold[0])
    symbol = SYMBOLS[stay.currency or "USD"]
    other = next(s for s in SYMBOLS.values() if s != symbol)
    turn.text = turn.text.replace(symbol, other, 1)
    with pytest.raises(GenerationError, match="bills an asked shop"):
        arithmetic.check_haystack(stay)


def test_digits_or_calendar_words_in_a_duration_haystack_are_refused() -> None:
    for text, match, everywhere in (("We met on Friday.", "calendar words", False),
                                    ("It took 3 tries.", "digit counts differ", False),
                                    ("Back in 2024, I think.", "carries digits", True)):
        stay = _stay("durations")
        for session in stay.sessions if everywhere else stay.sessions[:1]:
            session[1].text += " " + text
        with pytest.raises(GenerationError, match=match):
            arithmetic.check_haystack(stay)


def test_a_rival_span_equal_to_a_gold_span_is_refused() -> None:
    parsed = arithmetic.Parsed
    statements = [parsed("loan-start", "ladder"), parsed("loan-start", "saw"),
                  parsed("loan-end", "ladder"), parsed("loan-end", "saw")]
    day = datetime(2025, 3, 3, 9, 0)
    times = [day, day + timedelta(days=1), day + timedelta(days=5), day + timedelta(days=6)]
    assert arithmetic.span_clashes(statements, times, ["ladder"]) == [("saw", 5)]
    times[3] = day + timedelta(days=7)
    assert arithmetic.span_clashes(statements, times, ["ladder"]) == []
    with pytest.raises(GenerationError, match="one start"):
        arithmetic.lifecycles_from_text([parsed("loan-end", "saw"), parsed("loan-start", "saw")])


def test_sessions_sharing_a_day_are_refused() -> None:
    stay = _stay("durations")
    stay.times[1] = stay.times[0] + timedelta(minutes=5)
    with pytest.raises(GenerationError, match="calendar day"):
        arithmetic.check_haystack(stay)


def test_a_leaked_total_or_a_gold_the_judge_would_not_accept_is_refused() -> None:
    stay = _stay("sums")
    record = arithmetic.build_record(stay, "tme-ari-015")
    leaked = copy.deepcopy(record)
    total = record["answer"][1:].replace(",", "")
    leaked["haystack_sessions"][0][1]["content"] += f" The quote said {total} in the end."
    with pytest.raises(GenerationError, match="leak"):
        arithmetic._check_record(leaked)
    wrong = copy.deepcopy(record)
    wrong["answer"] = "$1.00"
    with pytest.raises(GenerationError, match="judge"):
        arithmetic._check_record(wrong)
    assert AnswerKey.model_validate(record["typedmemeval"]["answer_key"]).numeric == NumericKey(
        value=record["typedmemeval"]["derivation"]["value"], unit=stay.currency, tolerance=0.0)


def test_a_question_subject_that_is_not_rare_is_refused(corpus: Corpus) -> None:
    records = [r.model_dump(mode="json") for r in corpus.records]
    shop = re.search(r"from ([A-Z][a-z]+)\?$", records[0]["question"])
    assert shop is not None
    arithmetic.check_rarity(records)
    for record in records[:10]:
        for session in record["haystack_sessions"]:
            session[0]["content"] += f" {shop.group(1)}."
    with pytest.raises(GenerationError, match="question word"):
        arithmetic.check_rarity(records)


def test_the_layout_never_asks_a_subject_twice_and_keeps_pools_apart() -> None:
    plan = arithmetic.layout(arithmetic.SEED)
    asked = [s for questions in plan.values() for q in questions for s in q.asked]
    assert len(asked) == len(set(asked))
    assert not set(asked) & (set(arithmetic.RIVAL_SHOPS) | set(arithmetic.RIVAL_ITEMS))
    assert [len(q) for q in plan.values()] == [14, 14, 10, 12]
