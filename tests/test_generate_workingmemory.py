"""The WorkingMemory generator (VERTICALS.md §2.4, Appendix A) and its shipped corpus,
typedmemeval-workingmemory-v1."""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

import pytest

from pytest_typedmemeval import cli
from pytest_typedmemeval.corpus.loading import Corpus, load_corpus, normalised_bytes, sidecar_path_for
from pytest_typedmemeval.corpus.models import QuestionRecord, Sidecar
from pytest_typedmemeval.gates import registry as gate_registry
from pytest_typedmemeval.gates import structure
from pytest_typedmemeval.gates.calibration import strip_echo
from pytest_typedmemeval.gates.vertical_specs import VERTICAL_SPECS
from pytest_typedmemeval.generate import calibration, registry, workingmemory
from pytest_typedmemeval.generate.machinery import GenerationError, text_counts
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens, tokenize

SHIPPED = registry.shipped_corpora_dir() / "typedmemeval-workingmemory-v1.json"
DISTANCES = (8, 15, 25, 40, 60)
H = 64

_CLAUSE = re.compile(r" ?\(Also on my mind: ([^)]*)\.\)")


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus(SHIPPED)


def _gold(record: QuestionRecord) -> int:
    (index,) = record.gold_session_indices
    return index


def _statement(session: tuple[object, ...]) -> str:
    """The statement sentence of a session's user turn (padding and clause removed)."""
    user = session[0].content  # type: ignore[attr-defined]
    match = re.match(r"I have [^.]*\.", user)
    assert match is not None, user
    return match.group(0)


def _clause(session: tuple[object, ...]) -> list[str]:
    found = _CLAUSE.search(session[0].content)  # type: ignore[attr-defined]
    assert found is not None
    return found.group(1).split(", ")


# --- reproducibility ---------------------------------------------------------------------------


def test_the_corpus_is_a_function_of_seed_and_echo() -> None:
    echo = workingmemory.RECORDED_ECHO
    workingmemory._CACHE.clear()
    first = workingmemory.build_records(workingmemory.SEED, echo, shapes=("distance-8",))
    workingmemory._CACHE.clear()
    second = workingmemory.build_records(workingmemory.SEED, echo, shapes=("distance-8",))
    assert first == second
    other = workingmemory.build_records(workingmemory.SEED + 1, echo, shapes=("distance-8",))
    assert other != first
    # Moving the knob changes echo clauses and padding only: the statements stay put.
    moved = workingmemory.build_records(workingmemory.SEED, {"distance-8": 0.9}, shapes=("distance-8",))
    for a, b in zip(first, moved):
        assert a["answer"] == b["answer"]
        assert [s[0]["content"].split(".")[0] for s in a["haystack_sessions"]] == \
            [s[0]["content"].split(".")[0] for s in b["haystack_sessions"]]


def test_regenerating_from_the_sidecar_gives_the_shipped_bytes(corpus: Corpus) -> None:
    text = registry.regenerate_text(corpus)
    assert text is not None
    assert normalised_bytes(text.encode("utf-8")) == normalised_bytes(SHIPPED.read_bytes())
    assert corpus.sidecar is not None
    assert corpus.sidecar.echo_by_shape == workingmemory.RECORDED_ECHO


def test_generate_writes_the_shipped_corpus_and_sidecar_byte_for_byte(tmp_path: Path) -> None:
    report = registry.generate("workingmemory", tmp_path)
    assert report.corpus_path.read_bytes() == SHIPPED.read_bytes()
    assert report.sidecar_path.read_bytes() == sidecar_path_for(SHIPPED).read_bytes()
    assert not report.searched and set(report.seconds) == {"build", "sidecar"}


def test_cli_check_rebuilds_and_compares(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["generate", "--vertical", "workingmemory", "--check"]) == 0
    assert "identical" in capsys.readouterr().out


def test_the_registry_discovers_the_generator() -> None:
    assert registry.GENERATORS["workingmemory"] == workingmemory.GENERATOR
    assert workingmemory.SHAPES == VERTICAL_SPECS["workingmemory"].shape_names
    assert workingmemory.CALIBRATED_SHAPES == workingmemory.SHAPES


def test_rerunning_the_search_for_one_rung_reproduces_its_record() -> None:
    # §4.11: the search reruns through the generator's real build entry point and reproduces the
    # record. The full search (all five rungs, ~35 s) is `typedmemeval generate --search`; here one
    # rung, the one whose gold sits earliest (index 4): exact BM25 ties would favour it first.
    shape = "distance-60"

    def build(echo: Mapping[str, float]) -> list[QuestionRecord]:
        records = workingmemory.build_records(workingmemory.SEED, echo, shapes=(shape,))
        return [QuestionRecord.model_validate(record) for record in records]

    result = calibration.calibrate(build, (shape,), {shape: calibration.START_ECHO})
    assert result.echo_by_shape[shape] == workingmemory.RECORDED_ECHO[shape]
    assert result.record()["by_shape"][shape] == workingmemory.CALIBRATION_RECORD["by_shape"][shape]
    # Matched rungs: every rung's authoring search saw the same curve and chose the same echo.
    by_shape = workingmemory.CALIBRATION_RECORD["by_shape"]
    assert all(by_shape[s] == by_shape[shape] for s in workingmemory.SHAPES)
    assert len(set(workingmemory.RECORDED_ECHO.values())) == 1


# --- acceptance: the gates as implemented ------------------------------------------------------


def test_shipped_workingmemory_passes_every_corpus_gate(corpus: Corpus) -> None:
    results = {r.gate: r for r in gate_registry.run_corpus_gates(corpus)}
    for gate in ("structure", "separability", "calibration", "leaks"):
        assert results[gate].status == "passed", results[gate].summary()
    probes = results["probes"]
    assert probes.status == "skipped" and "not measured" in (probes.skip_reason or "")
    with_rebuild = structure.check(corpus, regenerate=registry.regenerate_text)
    assert with_rebuild.status == "passed", with_rebuild.summary()
    assert with_rebuild.measured["reproducibility"] == "matched"


def test_the_sidecar_describes_the_bytes(corpus: Corpus) -> None:
    sidecar = corpus.sidecar
    assert isinstance(sidecar, Sidecar) and not sidecar.fixture
    assert (sidecar.corpus_id, sidecar.revision, sidecar.vertical) == \
        ("typedmemeval-workingmemory-v1", 1, "workingmemory")
    assert sidecar.generator == workingmemory.GENERATOR and sidecar.seed == workingmemory.SEED
    assert sidecar.shape_counts == {f"distance-{d}": 12 for d in DISTANCES}
    assert sidecar.ceiling_by_shape == {f"distance-{d}": 1.0 for d in DISTANCES}
    assert set(sidecar.coverage_by_question.values()) <= {0.0, 1.0}  # G = 1: 0 or 1 per question
    rows = {(row.shape, row.arm) for row in sidecar.probe_records}
    assert rows == {(f"distance-{d}", a) for d in DISTANCES for a in ("V1", "V8", "V9")}
    assert all(row.status == "not_measured" and row.reason for row in sidecar.probe_records)
    assert sidecar.separability and not any(row.refused for row in sidecar.separability)
    assert sidecar.exemptions == () and not sidecar.difficulty_validated
    assert sidecar.carve_outs == {}  # gold is never first (index 64 - d): no carve-out needed


def test_coverage_is_flat_across_rungs(corpus: Corpus) -> None:
    # The reference retriever cannot see position: the null control reads the same on every rung
    # (matched rungs, no exact gold ties), inside the calibration band.
    sidecar = corpus.sidecar
    assert sidecar is not None
    by_rung: dict[int, list[float]] = {}
    for record in corpus.records:
        value = sidecar.coverage_by_question[record.question_id]
        assert value is not None
        by_rung.setdefault(record.typedmemeval.distance_sessions or 0, []).append(value)
    means = {d: sum(v) / len(v) for d, v in by_rung.items()}
    assert len(set(means.values())) == 1
    assert 0.5 <= next(iter(means.values())) <= 0.9


# --- the design, read back from the bytes -------------------------------------------------------


def test_geometry_follows_appendix_a(corpus: Corpus) -> None:
    assert [r.question_id for r in corpus.records] == [f"tme-wm-{n:03d}" for n in range(1, 61)]
    cells = set()
    for index, record in enumerate(corpus.records):
        d = DISTANCES[index // 12]
        block = record.typedmemeval
        assert record.shape == record.question_type == f"distance-{d}"
        assert block.distance_sessions == d and block.dial is not None and block.dial.value == d
        assert len(record.haystack_sessions) == H + 1
        gold = _gold(record)
        assert gold == H - d and gold != 0
        assert len(record.haystack_sessions) - 1 - gold == d  # exactly d sessions in between
        assert block.gold_components is not None and block.gold_components[0].session_index == gold
        cells.add((block.fact_family, d))
    assert len(cells) == 60 and {f for f, _ in cells} == {f.key for f in workingmemory.FAMILIES}


def test_sessions_are_spaced_at_one_constant_interval_everywhere(corpus: Corpus) -> None:
    for record in corpus.records:
        times = record.session_times
        gaps = {b - a for a, b in zip(times, times[1:])}
        assert gaps == {workingmemory.INTERVAL} == {timedelta(days=2)}
        assert record.query_time - times[-1] == workingmemory.INTERVAL


def test_rungs_of_a_family_are_matched(corpus: Corpus) -> None:
    # Only the gold session moves: the 64 filler statements and echo clauses are the same on
    # every rung of a family; the fact value differs from cell to cell.
    by_family: dict[str, list[QuestionRecord]] = {}
    for record in corpus.records:
        by_family.setdefault(record.typedmemeval.fact_family or "", []).append(record)
    for records in by_family.values():
        fillers = []
        for record in records:
            gold = _gold(record)
            fillers.append([(_statement(s), _clause(s)) for i, s in enumerate(record.haystack_sessions)
                            if i != gold])
        assert all(f == fillers[0] for f in fillers)
        assert len({r.answer for r in records}) == 5
        assert len({r.question for r in records}) == 1


def test_the_fact_is_said_once(corpus: Corpus) -> None:
    for record in corpus.records:
        family = workingmemory.FAMILY_BY_KEY[record.typedmemeval.fact_family or ""]
        relation = set(family.query_terms) - family.noun_words
        watched = relation | {w.lower() for w in record.answer.split()}
        gold = _gold(record)
        for index, session in enumerate(record.haystack_sessions):
            words = set(raw_tokens(" ".join(strip_echo(t.content) for t in session)))
            assert (watched <= words) if index == gold else not (watched & words), \
                (record.question_id, index)
        assert sum(t.has_answer for s in record.haystack_sessions for t in s) == 1
        assert record.haystack_sessions[gold][0].has_answer


def test_every_session_states_one_fact_of_the_family_with_its_subject(corpus: Corpus) -> None:
    for record in corpus.records:
        family = workingmemory.FAMILY_BY_KEY[record.typedmemeval.fact_family or ""]
        templates = [family.fact, *family.interference]
        patterns = [re.compile(re.escape(t).replace(re.escape("{value}"), r"[A-Z][a-z]+ [A-Z][a-z]+"))
                    for t in templates]
        for session in record.haystack_sessions:
            statement = _statement(session)
            assert statement.startswith("I have ") and f"{family.tail} " in statement
            assert sum(bool(p.fullmatch(statement)) for p in patterns) == 1, statement
            assert not any(f"{family.tail} " in t.content for t in session[1:])


def test_interference_never_uses_the_fact_relation(corpus: Corpus) -> None:
    for family in workingmemory.FAMILIES:
        relation = set(family.query_terms) - family.noun_words
        for template in family.interference:
            assert not relation & set(tokenize(template))
    assert max(auc for auc, *_ in workingmemory.template_parity()) < workingmemory.TEMPLATE_AUC_LIMIT


def test_the_mechanical_judge_grades_every_gold_answer_correct(corpus: Corpus) -> None:
    for record in corpus.records:
        key = record.typedmemeval.answer_key
        assert judge_answer(record.answer, key).outcome is Outcome.CORRECT, record.question_id
        assert key.accepted == (record.answer,) and len(key.wrong) == H
        assert judge_answer(f"{key.wrong[0]}.", key).outcome is Outcome.WRONG
        assert judge_answer("I don't know.", key).outcome is Outcome.ABSTAINED


def test_question_words_are_rare_and_answers_never_in_questions(corpus: Corpus) -> None:
    holding: Counter[str] = Counter()
    sessions = 0
    for record in corpus.records:
        for session in record.haystack_sessions:
            sessions += 1
            holding.update(set(raw_tokens(" ".join(t.content for t in session))))
    for record in corpus.records:
        assert all(holding[w] < 0.10 * sessions for w in tokenize(record.question))
        assert record.answer not in record.question


def test_every_turn_slot_has_identical_counts_across_a_haystack(corpus: Corpus) -> None:
    for record in corpus.records[::7]:
        for slot in zip(*record.haystack_sessions):
            assert len({text_counts(turn.content) for turn in slot}) == 1


# --- gold-blindness: the plan's distributions, gold against filler ------------------------------


def test_plan_is_the_same_for_gold_and_filler(corpus: Corpus) -> None:
    # Every session: one exchange, the statement in the user turn, the clause in that turn, one or
    # two neutral words; the assistant turn from one bank. Gold differs only by the symmetric rule
    # that a session does not echo its own fact's question (its clause has no question words).
    gold_neutral: Counter[int] = Counter()
    filler_neutral: Counter[int] = Counter()
    acks_gold: Counter[str] = Counter()
    acks_filler: Counter[str] = Counter()
    for record in corpus.records:
        family = workingmemory.FAMILY_BY_KEY[record.typedmemeval.fact_family or ""]
        gold = _gold(record)
        for index, session in enumerate(record.haystack_sessions):
            assert [t.role for t in session] == ["user", "assistant"]
            words = _clause(session)
            neutral = [w for w in words if w not in family.query_terms]
            ack = next(a for a in workingmemory.ASSISTANT_TALK if session[1].content.startswith(a))
            if index == gold:
                assert words == neutral
                gold_neutral[len(neutral)] += 1
                acks_gold[ack] += 1
            else:
                # Question words come noun first: never the relation word alone.
                if len(words) > len(neutral):
                    assert family.tail.split()[-1] in words
                filler_neutral[len(neutral)] += 1
                acks_filler[ack] += 1
    assert set(gold_neutral) <= {1, 2} and set(filler_neutral) == {1, 2}
    # Chi-square (df = 1) on neutral count: gold against filler, p = 0.001 critical value.
    total_g, total_f = sum(gold_neutral.values()), sum(filler_neutral.values())
    statistic = 0.0
    for k in (1, 2):
        both = gold_neutral[k] + filler_neutral[k]
        for observed, total in ((gold_neutral[k], total_g), (filler_neutral[k], total_f)):
            expected = both * total / (total_g + total_f)
            statistic += (observed - expected) ** 2 / expected
    assert statistic < 10.83, (gold_neutral, filler_neutral)
    assert set(acks_gold) <= set(acks_filler)


# --- validity rules are hard errors --------------------------------------------------------------


def _stay(family: str = "gym", distance: int = 25) -> workingmemory.Haystack:
    entry = workingmemory.FAMILY_BY_KEY[family]
    value = workingmemory._fact_values(workingmemory.SEED)[(family, distance)]
    stay = workingmemory._plan_haystack(workingmemory.SEED, entry, distance, value, 0.5)
    workingmemory._render(workingmemory.SEED, stay)
    workingmemory._check_haystack(stay)
    return stay


def test_a_clean_haystack_passes_its_checks() -> None:
    stay = _stay()
    value, index = workingmemory._gold(stay)
    assert value == stay.fact_value and index == H - 25


def test_a_repeated_fact_is_refused() -> None:
    stay = _stay()
    turn = stay.sessions[3][0]
    turn.text = f"I have joined the gym {stay.fact_value}. {turn.text}"
    with pytest.raises(GenerationError, match="said once|stated"):
        workingmemory._check_haystack(stay)
    with pytest.raises(GenerationError, match="stated 2 times"):
        workingmemory._gold(stay)


def test_a_paraphrase_of_the_relation_in_filler_is_refused() -> None:
    stay = _stay()
    stay.sessions[10][1].text += " You joined something, I recall."
    with pytest.raises(GenerationError, match="fact's words"):
        workingmemory._check_said_once(stay)


def test_a_value_stated_without_its_subject_is_refused() -> None:
    stay = _stay()
    turn = stay.sessions[5][stay.statement_turns[5]]
    turn.text = turn.text.replace("the gym ", "a place called ", 1)
    with pytest.raises(GenerationError, match="without its subject"):
        workingmemory._check_values_named(stay)


def test_a_stray_value_word_is_refused() -> None:
    stay = _stay()
    word = stay.fact_value.split()[0]
    stay.sessions[0][1].text += f" {word} again."
    with pytest.raises(GenerationError, match="value word|said once"):
        workingmemory._check_haystack(stay)


def test_gold_at_the_wrong_distance_is_refused() -> None:
    stay = _stay()
    stay.distance = 24
    with pytest.raises(GenerationError, match="rung d = 24"):
        workingmemory._gold(stay)


def test_uneven_spacing_and_digits_are_refused() -> None:
    stay = _stay()
    stay.times[7] += timedelta(hours=1)
    with pytest.raises(GenerationError, match="constant interval"):
        workingmemory._check_haystack(stay)
    stay = _stay()
    stay.sessions[2][1].text += " Back in 2024."
    with pytest.raises(GenerationError, match="digits"):
        workingmemory._check_haystack(stay)


def test_a_gold_answer_the_judge_would_not_accept_is_refused() -> None:
    stay = _stay()
    record = workingmemory._record(stay, "tme-wm-028")
    workingmemory._judge_gold(record)
    broken = copy.deepcopy(record)
    broken["answer"] = stay.filler_values[0]
    with pytest.raises(GenerationError, match="judge"):
        workingmemory._judge_gold(broken)


def test_common_question_words_are_refused() -> None:
    records = workingmemory.build_records(workingmemory.SEED, workingmemory.RECORDED_ECHO,
                                          shapes=("distance-8",))
    workingmemory._check_rarity(records)  # 12 haystacks: each noun is in 65 of 780 sessions
    for record in records[:2]:
        for session in record["haystack_sessions"]:
            session[1]["content"] += " joined"
    with pytest.raises(GenerationError, match="question word 'joined'"):
        workingmemory._check_rarity(records)


def test_a_gold_only_construction_is_refused_at_design_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # "since the" / "the winter" (§2.4 known defects): a phrase every fact construction has and no
    # interference construction has is caught before any corpus exists.
    tainted = tuple(workingmemory.Family(f.key, f.question, f.tail,
                                         f.fact.replace("I have ", "I have, since the winter, "),
                                         f.interference)
                    for f in workingmemory.FAMILIES)
    monkeypatch.setattr(workingmemory, "FAMILIES", tainted)
    with pytest.raises(AssertionError, match="template gram"):
        workingmemory._assert_template_parity()
