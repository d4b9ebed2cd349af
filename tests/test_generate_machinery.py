"""The one template machinery and the calibration search (pytest_typedmemeval.generate)."""

from __future__ import annotations

import inspect
import json
import random
import re

import pytest

from pytest_typedmemeval.gates.calibration import has_echo, strip_echo
from pytest_typedmemeval.gates.features import count_sentences
from pytest_typedmemeval.generate import calibration, machinery
from pytest_typedmemeval.generate.machinery import (
    Construction,
    ConstructionBank,
    DraftTurn,
    EchoPlan,
    GenerationError,
    Placement,
    ScaffoldBanks,
    SessionPlan,
    Statement,
)
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens

# --- randomness ------------------------------------------------------------------------------


def test_derive_rng_is_a_pure_function_of_seed_and_key() -> None:
    random.seed(1)
    first = [machinery.derive_rng(7, "haystack", 3).random() for _ in range(3)]
    random.seed(99)  # the global generator must not leak in
    again = [machinery.derive_rng(7, "haystack", 3).random() for _ in range(3)]
    assert first == again
    assert machinery.derive_rng(7, "haystack", 4).random() != first[0]
    assert machinery.derive_rng(8, "haystack", 3).random() != first[0]


def test_dither_gives_each_group_its_share_exactly() -> None:
    for seed in range(200):
        rng = random.Random(seed)
        # Two gold sessions at rate 0.5 carry exactly one clause between them, never 0 or 2.
        assert sum(machinery.dither([0.5, 0.5], rng)) == 1
        values = [rng.uniform(0, 3) for _ in range(25)]
        out = machinery.dither(values, rng)
        assert all(int(v) <= k <= int(v) + 1 for v, k in zip(values, out))
        for prefix in range(1, len(values) + 1):
            assert abs(sum(out[:prefix]) - sum(values[:prefix])) < 1


# --- grammar and banks ------------------------------------------------------------------------


def test_person_check_refuses_clauses_that_misread_in_a_person() -> None:
    assert machinery.person_problems("got discharged") == []
    assert machinery.person_problems("cancelled it") == []
    assert machinery.person_problems("was discharged")  # "you was discharged"
    assert machinery.person_problems("cancelled my booking")  # "you cancelled my booking"
    with pytest.raises(AssertionError, match="both persons"):
        machinery.assert_person_invariant(["sold it", "were discharged"], where="test")


def test_disjointness_assertion_names_the_shared_token() -> None:
    with pytest.raises(AssertionError, match="cleaner"):
        machinery.assert_disjoint("filler", {"window", "cleaner"}, "facts", {"cleaner"})
    machinery.assert_disjoint("filler", {"window"}, "facts", {"cleaner"})


def test_article() -> None:
    assert [machinery.article(n) for n in ("kiteboard", "osteopath", "umbrella", "ukulele")] == \
        ["a", "an", "an", "a"]


def test_construction_bank_refuses_a_statement_of_another_kind_or_value_shape() -> None:
    bank = ConstructionBank([Construction("S0", "statement", "About the {subject}. I chose {value}.", True),
                             Construction("I0", "invalidation", "About the {subject}. I sold it.", False)])
    good = Statement("statement", "tent", "for the festival", "Orvel Kar", "S0")
    assert bank.render(good) == "About the tent. I chose Orvel Kar."
    with pytest.raises(GenerationError):
        bank.render(Statement("invalidation", "tent", "", "Orvel Kar", "I0"))
    with pytest.raises(GenerationError):
        bank.render(Statement("statement", "tent", "", None, "S0"))


# --- rendering ----------------------------------------------------------------------------------

BANK = ConstructionBank([Construction("S0", "statement", "About the {subject}. I chose {value}.", True)])
SCAFFOLD = ScaffoldBanks(tuple(f"Small talk number {w}." for w in "abcdefgh"),
                         tuple(f"Reply {w}." for w in "abcdefgh"))


def test_render_session_takes_no_gold_status() -> None:
    parameters = inspect.signature(machinery.render_session).parameters
    assert list(parameters) == ["plan", "constructions", "scaffold", "rng"]
    plan_fields = {f for f in SessionPlan.__dataclass_fields__}
    statement_fields = {f for f in Statement.__dataclass_fields__}
    for name in (*parameters, *plan_fields, *statement_fields):
        assert not re.search(r"gold|answer|evidence", name), name


def test_render_session_places_statement_and_echo_where_the_plan_says() -> None:
    statement = Statement("statement", "tent", "", "Orvel Kar", "S0")
    plan = SessionPlan(3, (statement,), (Placement("user", 2),), EchoPlan(("tent", "lake"), "assistant", 1))
    rendered = machinery.render_session(plan, BANK, SCAFFOLD, random.Random(3))
    roles = [turn.role for turn in rendered.turns]
    assert roles == ["user", "assistant"] * 3
    assert rendered.statement_turns == [4]
    assert rendered.turns[4].text == "About the tent. I chose Orvel Kar."
    assert rendered.turns[3].text.endswith("(Also on my mind: tent, lake.)")
    scaffold = [t.text for i, t in enumerate(rendered.turns) if i != 4]
    assert len(set(scaffold)) == len(scaffold)  # scaffold is drawn without repetition


def test_echo_clause_is_what_the_calibration_gate_recognises_and_strips() -> None:
    for terms in (["physio"], ["physio", "shoulder"], ["a", "b", "c", "d"]):
        text = "Good to hear. " + machinery.echo_clause(terms)
        assert has_echo(text) and strip_echo(text) == "Good to hear."
    with pytest.raises(GenerationError):
        machinery.echo_clause([])


# --- alignment ----------------------------------------------------------------------------------


def _lcs(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            table[i + 1][j + 1] = table[i][j] + 1 if a[i] == b[j] else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def test_align_roles_inserts_empty_turns_only_and_equalises_role_sequences() -> None:
    specs = [["user", "assistant", "user", "assistant"], ["user", "assistant", "assistant"],
             ["user", "user", "assistant"]]
    sessions = [[DraftTurn(role, f"t{k}{i}") for i, role in enumerate(spec)]  # type: ignore[arg-type]
                for k, spec in enumerate(specs)]
    originals = [[t.text for t in s] for s in sessions]
    mappings = machinery.align_roles(sessions)
    sequences = {tuple(t.role for t in s) for s in sessions}
    assert len(sequences) == 1
    for session, original, mapping in zip(sessions, originals, mappings):
        assert [session[i].text for i in mapping] == original  # order kept, nothing reworded
        assert all(t.text == "" for i, t in enumerate(session) if i not in mapping)
    a, b = specs[0], specs[1]
    assert len(machinery.common_role_sequence([a, b])) == len(a) + len(b) - _lcs(a, b)


# --- padding ----------------------------------------------------------------------------------

_TEXTS_U = ("About the physio for the shoulder. I settled on Orlen Vask for it.",
            "The weather turned chilly again this week. I dug out a scarf.", "I cancelled it.",
            "We baked bread, and it rose well.", "")
_TEXTS_A = ("Thanks for telling me.", "Good to hear. (Also on my mind: physio, shoulder, cottage.)",
            "Understood.")


def _haystack(seed: int, n: int = 20) -> list[list[DraftTurn]]:
    rng = random.Random(seed)
    return [[DraftTurn(role, rng.choice(_TEXTS_U if role == "user" else _TEXTS_A))  # type: ignore[arg-type]
             for _ in range(3) for role in ("user", "assistant")] for _ in range(n)]


def _feature_counts(text: str) -> tuple[int, ...]:
    """The six counts as gates/features.py reads them (an independent spelling of the same rules)."""
    tokens = raw_tokens(text)
    punctuation = sum(1 for ch in text if ch in ".,;:!?()'\"")
    return (len(text), sum(map(str.isupper, text)), count_sentences(text), punctuation, len(tokens),
            len(set(tokens)))


@pytest.mark.parametrize("seed", range(6))
def test_pad_haystack_equalises_all_six_counts_per_turn_slot(seed: int) -> None:
    sessions = _haystack(seed)
    reserved = {"physio", "shoulder", "cottage", "maple"}
    targets = machinery.pad_haystack(sessions, random.Random(seed), reserved=reserved)
    assert len(targets) == 6
    for index in range(6):
        counts = {_feature_counts(session[index].text) for session in sessions}
        assert len(counts) == 1, f"slot {index} differs across sessions: {counts}"
    for session, original in zip(sessions, _haystack(seed)):
        for turn, before in zip(session, original):
            assert turn.text.startswith(before.text)  # padding only appends
            tail = turn.text[len(before.text):]
            assert not re.search(r"[\d\u2013\u2014]", tail)  # no digits, no dashes (an early tell)
            assert not set(raw_tokens(tail)) & reserved


def test_pad_haystack_refuses_sessions_that_are_not_role_aligned() -> None:
    sessions = _haystack(0, n=3)
    sessions[0].pop()
    with pytest.raises(GenerationError, match="role-aligned"):
        machinery.pad_haystack(sessions, random.Random(0))


def test_dump_json_is_deterministic_sorted_and_lf_terminated() -> None:
    text = machinery.dump_json({"b": [3, 1], "a": {"é": "ü", "c": None}})
    assert text.endswith("}\n") and "\r" not in text
    assert text.index('"a"') < text.index('"b"') and text.index('"c"') < text.index('"é"')
    assert "ü" in text and json.loads(text) == {"a": {"c": None, "é": "ü"}, "b": [3, 1]}


# --- calibration search -------------------------------------------------------------------------


def test_search_finds_a_band_narrower_than_the_grid() -> None:
    # In band only between 0.30 and 0.33: no sweep point lands there; bisection must.
    def coverage(echo: float) -> float:
        return 0.95 if echo < 0.30 else (0.70 if echo < 0.33 else 0.20)

    search = calibration.search_shape(coverage, "narrow")
    assert 0.30 <= search.echo < 0.33 and search.coverage == 0.70
    assert search.bracket == (0.25, 0.375)
    assert search.points[: calibration.SWEEP_POINTS] == [
        (e, coverage(e)) for e in [i / 8 for i in range(9)]]  # the sweep always runs first


def test_search_takes_the_first_crossing_of_a_non_monotone_curve() -> None:
    curve = {0.0: 0.871, 0.125: 0.95, 0.25: 0.95, 0.375: 0.401, 0.5: 0.401, 0.625: 0.49,
             0.75: 0.838, 0.875: 0.9, 1.0: 0.95}

    def coverage(echo: float) -> float:
        return curve.get(echo, 0.70 if 0.25 < echo < 0.375 else 0.6)

    search = calibration.search_shape(coverage, "bumpy")
    assert search.bracket == (0.25, 0.375) and search.coverage == 0.70


def test_search_never_chooses_a_point_above_the_ceiling() -> None:
    assert calibration.choose([(0.0, 0.91), (0.5, 0.60)]) == (0.5, 0.60)
    with pytest.raises(ValueError, match="saturates"):
        calibration.search_shape(lambda echo: 0.97, "saturated")


def test_calibrate_fixes_each_shape_before_the_next() -> None:
    seen: list[dict[str, float]] = []

    def build(echo: dict[str, float]) -> list[object]:
        seen.append(dict(echo))
        return []

    def coverage_of(shape: str, echo: dict[str, float]) -> float:
        return 1.0 - echo[shape]

    original = calibration.shape_coverage
    try:
        calibration.shape_coverage = lambda records, shape: coverage_of(shape, seen[-1])  # type: ignore[assignment]
        result = calibration.calibrate(build, ["a", "b"], {"a": 0.5, "b": 0.5})  # type: ignore[arg-type]
    finally:
        calibration.shape_coverage = original  # type: ignore[assignment]
    assert abs(result.echo_by_shape["a"] - 0.3) < 0.02 and abs(result.echo_by_shape["b"] - 0.3) < 0.02
    searching_b = [echo for echo in seen if echo["b"] != 0.5]
    assert searching_b and all(echo["a"] == result.echo_by_shape["a"] for echo in searching_b)
    assert result.record()["iterations"] == len(seen)
