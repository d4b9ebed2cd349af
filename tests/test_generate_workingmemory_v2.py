"""The revision-2 WorkingMemory generator (generate/verticals/workingmemory.py, VERTICALS.md §2.4,
Appendices A and C): determinism, geometry, read-back, keys, calibration record, and one negative
control per validity rule the generator enforces."""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval.corpus.loading import Corpus
from pytest_typedmemeval.corpus.models import AnswerKey, QuestionRecord
from pytest_typedmemeval.corpus.text_stats import non_linguistic_share
from pytest_typedmemeval.gates import separability
from pytest_typedmemeval.gates.calibration import question_coverage
from pytest_typedmemeval.generate import engine, registry
from pytest_typedmemeval.generate.calibration import panel_max_coverage
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import workingmemory as wm
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

SEED = wm.SEED
DIAL = wm.RECORDED_COMPETITION


@pytest.fixture(scope="module")
def corpus() -> list[dict[str, Any]]:
    return wm.build(SEED, DIAL).records


@pytest.fixture(scope="module")
def typed(corpus: list[dict[str, Any]]) -> list[QuestionRecord]:
    return [QuestionRecord.model_validate(r) for r in corpus]


def _gold(record: dict[str, Any]) -> int:
    return record["typedmemeval"]["gold_components"][0]["session_index"]


def _texts(record: dict[str, Any]) -> list[list[str]]:
    return [[t["content"] for t in s] for s in record["haystack_sessions"]]


# --- reproducibility, ids, geometry -------------------------------------------------------------

def test_builds_are_byte_identical_and_a_rung_does_not_depend_on_the_others() -> None:
    alone = wm.build(SEED, DIAL, shapes=["distance-8"]).records
    assert dump_json(alone) == dump_json(wm.build(SEED, DIAL, shapes=["distance-8"]).records)
    other = {**DIAL, "distance-60": 0.9}
    both = wm.build(SEED, other, shapes=["distance-8", "distance-60"]).records
    assert dump_json(alone) == dump_json([r for r in both if r["question_type"] == "distance-8"])


def test_ids_are_opaque(corpus: list[dict[str, Any]]) -> None:
    ids = [r["question_id"] for r in corpus]
    assert ids == [f"tme-wm-{n:03d}" for n in range(1, 61)]
    first = [r["question_type"] for r in corpus[:12]]
    assert len(set(first)) > 1, "an id range gives the shape away"


def test_geometry_counts_and_blocks(corpus: list[dict[str, Any]]) -> None:
    cells = {(r["typedmemeval"]["fact_family"], r["typedmemeval"]["distance_sessions"])
             for r in corpus}
    assert len(cells) == 60
    for r in corpus:
        block = r["typedmemeval"]
        d = block["distance_sessions"]
        assert r["question_type"] == f"distance-{d}" and len(r["haystack_sessions"]) == 65
        assert _gold(r) == 64 - d and len(r["answer_session_ids"]) == 1
        assert block["dial"] == {"name": "distance_sessions", "value": d}
        assert block["difficulty"] == wm.DISTANCES.index(d) + 1


def test_matched_rungs_share_their_filler_sessions(corpus: list[dict[str, Any]]) -> None:
    for family in wm.FAMILIES:
        rungs = [r for r in corpus if r["typedmemeval"]["fact_family"] == family.key]
        fillers = [[s for i, s in enumerate(_texts(r)) if i != _gold(r)] for r in rungs]
        assert all(f == fillers[0] for f in fillers)
        assert len({r["answer"] for r in rungs}) == 5


# --- text and gold --------------------------------------------------------------------------------

def test_gold_is_read_back_from_the_text(corpus: list[dict[str, Any]]) -> None:
    by_key = {f.key: f for f in wm.FAMILIES}
    for r in corpus:
        found = wm.read_fact(_texts(r), by_key[r["typedmemeval"]["fact_family"]])
        assert found == [(_gold(r), r["answer"])]
        flagged = [(s, t) for s, session in enumerate(r["haystack_sessions"])
                   for t, turn in enumerate(session) if turn["has_answer"]]
        assert len(flagged) == 1 and flagged[0][0] == _gold(r)
        assert r["answer"] in r["haystack_sessions"][_gold(r)][flagged[0][1]]["content"]


def test_no_word_list_filler_and_every_session_states_once(corpus: list[dict[str, Any]]) -> None:
    texts = [t for r in corpus for s in _texts(r) for t in s]
    assert non_linguistic_share(texts) == 0.0
    assert not any("Also on my mind" in t for t in texts)
    for r in corpus[:5]:
        tail = next(f.tail for f in wm.FAMILIES if f.key == r["typedmemeval"]["fact_family"])
        for session in _texts(r):
            assert len(re.findall(rf"\bI have [a-z ]+ {tail} [A-Z]", "\n".join(session))) == 1


def test_answer_keys(corpus: list[dict[str, Any]]) -> None:
    values = {r["answer"] for r in corpus}
    for r in corpus:
        key = AnswerKey.model_validate(r["typedmemeval"]["answer_key"])
        tail = next(f.tail for f in wm.FAMILIES if f.key == r["typedmemeval"]["fact_family"])
        assert judge_answer(r["answer"], key).outcome is Outcome.CORRECT
        assert judge_answer(f"You joined {tail} {r['answer']}.", key).outcome is Outcome.CORRECT
        other = sorted(values - {r["answer"]})[0]
        for wrong in (key.wrong[0], f"{tail} {key.wrong[5]}", other):
            assert judge_answer(wrong, key).outcome is not Outcome.CORRECT, wrong


def test_recorded_dial_reproduces_the_recorded_calibration(typed: list[QuestionRecord]) -> None:
    for shape in wm.SHAPES:
        chosen = [r for r in typed if r.shape == shape]
        coverage = sum(question_coverage(r) or 0.0 for r in chosen) / len(chosen)
        assert coverage == pytest.approx(registry.calibration_record(wm)["by_shape"][shape]["coverage"],
                                         abs=1e-6), shape
        assert (panel_max_coverage(typed, shape) or 0.0) <= 0.90


def test_separability_passes_by_construction(typed: list[QuestionRecord]) -> None:
    result = separability.check(Corpus(corpus_id="typedmemeval-workingmemory-v2", path=Path("unsaved.json"),
                                       sha256="0" * 64, records=tuple(typed), sidecar=None,
                                       vertical="workingmemory"))
    assert result.status == "passed", result.refusals


def test_design_checks_hold() -> None:
    assert max(row[0] for row in wm.template_parity()) < wm.TEMPLATE_AUC_LIMIT
    assert set(wm.RECORDED_COMPETITION.values()) == {registry.calibration_record(wm)["pooled"]["dial"]}


# --- negative controls: one per rule ------------------------------------------------------------

FAMILY = wm.FAMILIES[3]  # gym


def _cell(plan: wm.FamilyPlan | None = None, distance: int = 8) -> tuple[engine.Haystack,
                                                                       wm.FamilyPlan]:
    plan = plan or wm.plan_family(SEED, FAMILY)
    value = wm.fact_values(SEED)[(FAMILY.key, distance)]
    return wm.render_cell(SEED, plan, distance, value, 0.1), plan


def _with_filler(text: str) -> wm.FamilyPlan:
    """The gym plan with its first filler statement replaced; ``{v}`` is that session's value."""
    plan = wm.plan_family(SEED, FAMILY)
    last = plan.values[0].split()[1]
    text = text.format(v=plan.values[0], last=last)
    return replace(plan, filler=(engine.Piece(text), *plan.filler[1:]))


def test_clean_cell_passes() -> None:
    stay, plan = _cell()
    assert wm.check_cell(stay, plan, 8)[0] == 56


@pytest.mark.parametrize("text, match", [
    ("I have joined the gym {v}.", "stated 2 times"),
    ("I have phoned the gym {v}, which my aunt joined.", "relation outside"),
    ("I have phoned the gym {v}. {last} is nice.", "value without its subject"),
    ("I have phoned the kitten {v}.", "not exactly one gym statement"),
    ("I have phoned the gym {v} at 8 in the evening.", "digits or dashes"),
])
def test_defective_filler_is_refused(text: str, match: str) -> None:
    stay, plan = _cell(_with_filler(text))
    with pytest.raises(GenerationError, match=match):
        wm.check_cell(stay, plan, 8)


def test_fact_value_in_filler_is_refused() -> None:
    value = wm.fact_values(SEED)[(FAMILY.key, 8)]
    stay, plan = _cell(_with_filler(f"I have phoned the gym {value}."))
    with pytest.raises(GenerationError, match="stated 1 times|outside"):
        wm.check_cell(stay, plan, 8)
    fact_pool = f"{wm.FACT_VALUE_WORDS[0]} {wm.FACT_VALUE_WORDS[1]}"
    stay, plan = _cell(_with_filler(f"I have phoned the gym {fact_pool}."))
    with pytest.raises(GenerationError, match="fact pool|outside"):
        wm.check_cell(stay, plan, 8)


def test_wrong_rung_and_interval_are_refused() -> None:
    stay, plan = _cell()
    with pytest.raises(GenerationError, match="sessions before the question"):
        wm.check_cell(stay, plan, 15)
    shifted = replace(stay, times=[*stay.times[:-1], stay.times[-1] + timedelta(hours=1)])
    with pytest.raises(GenerationError, match="constant interval"):
        wm.check_cell(shifted, plan, 8)


def test_near_miss_in_the_fact_session_is_refused() -> None:
    stay, plan = _cell()
    broken = copy.deepcopy(stay)
    turn = broken.turn_of(56, 0)
    turn.text += f" My aunt asked about {plan.near}."
    with pytest.raises(GenerationError, match="near miss"):
        wm.check_cell(broken, plan, 8)


def test_common_question_words_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wm, "RARE_SHARE", 0.05)
    with pytest.raises(GenerationError, match="question word"):
        wm.build(SEED, DIAL, shapes=["distance-8"])


def test_bad_dial_and_shape_are_refused() -> None:
    with pytest.raises(GenerationError, match="must lie in"):
        wm.build(SEED, {**DIAL, "distance-8": 1.5}, shapes=["distance-8"])
    with pytest.raises(GenerationError, match="unknown shapes"):
        wm.build(SEED, DIAL, shapes=["distance-9"])


def test_a_known_wrong_answer_graded_correct_is_refused(corpus: list[dict[str, Any]]) -> None:
    with pytest.raises(GenerationError, match="wrong answer"):
        engine.judge_gold(corpus[0], wrong_answers=[corpus[0]["answer"]])


@pytest.mark.parametrize("edit, match", [
    (lambda f: replace(f, fact="finally " + f.fact), "marks gold|reaches AUC|LENGTH|\\["),
    (lambda f: replace(f, fact=f.fact + " the huge new branch of"), "\\["),
    (lambda f: replace(f, interference=(f.fact, *f.interference[1:])), "question word"),
    (lambda f: replace(f, near=f"{f.tail} {{person}} " + f.fact), "near miss"),
])
def test_design_defects_are_refused(monkeypatch: pytest.MonkeyPatch, edit: Any, match: str) -> None:
    monkeypatch.setattr(wm, "FAMILIES", tuple(edit(f) for f in wm.FAMILIES))
    with pytest.raises(AssertionError, match=match):
        wm._assert_banks()
