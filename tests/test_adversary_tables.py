"""The adversary gate's table readers (:mod:`pytest_typedmemeval.gates.adversary_tables`): frames,
word-length frames, value recurrence and date offsets (red teams 30, 32, 34, 35)."""

from __future__ import annotations

from pytest_typedmemeval.gates import adversaries
from pytest_typedmemeval.gates.adversary_haystacks import Haystack
from pytest_typedmemeval.gates.adversary_tables import (
    asked_date, frame_tokens, intervals, length_tokens, recurrence_scores, table_scores
)
from pytest_typedmemeval.gates.adversaries import SimulationSpec, build_simulated_corpus, check
from pytest_typedmemeval.gates.declarations import VerticalDeclarations

NONE = VerticalDeclarations()


def test_a_frame_masks_values_subject_numbers_items_and_holders() -> None:
    frame = frame_tokens("Yesterday I bought a kettle at Penrose Supplies for twelve pounds, "
                         "as planned.", {"penrose", "supplies"})
    assert frame == ("yesterday", "P", "bought", "a", "ITEM", "at", "S", "S", "for", "N",
                     "pounds", "as", "planned")
    assert length_tokens(frame) == ("9", "P", "6", "1", "ITEM", "2", "S", "S", "3", "N", "6",
                                    "2", "7")


def test_twin_frames_differ_where_aggregates_do_not() -> None:
    own = frame_tokens("She had a lamp she liked at Marlow.", {"marlow"})
    other = frame_tokens("She had a lamp she saw at Marlow.", {"marlow"})
    assert own != other and length_tokens(own) != length_tokens(other)
    assert frame_tokens("I had a lamp I liked.", set()) == frame_tokens("She had a vase he liked.",
                                                                          set())


def test_intervals_and_the_asked_date() -> None:
    assert intervals("In thirteen weeks I mean to book Isolde for the drains.") == ([91.0], [])
    assert intervals("for the next 3 days, and again in a fortnight") == ([3.0, 14.0], [])
    assert intervals("Ten days ago I said so.") == ([], [10.0])
    assert intervals("twenty-one days from now") == ([21.0], [])
    base = "2026/03/14 (Sat) 12:47"
    assert asked_date("Who held it ten days ago?", base).day == 4
    assert asked_date("Who will hold it in 3 days?", base).day == 17
    assert asked_date("Who holds it?", base).day == 14


def _haystack(texts: list[tuple[str, ...]], gold: set[int]) -> Haystack:
    ids = tuple(f"s{i}" for i in range(len(texts)))
    return Haystack("q", "lookup", "Which shop sold the kettle?", ids, ids, tuple(texts),
                    frozenset(gold))


def test_recurrence_counts_sessions_naming_a_candidate_value() -> None:
    haystack = _haystack([("I bought the kettle from Marlow.",),
                          ("The kettle came from Penrose.",),
                          ("Today Marlow was busy.",), ("Nothing much.",)], {0})
    scores = recurrence_scores(haystack, [(0, 0, 0), (1, 0, 0)])
    assert scores == {0: 2.0, 1: 1.0}


def test_offset_view_is_not_applicable_where_no_interval_is_stated() -> None:
    result = check(build_simulated_corpus(36, SimulationSpec()), declared=NONE)
    row = result.measured["by_shape"]["lookup"]["offset_reader"]
    assert row["status"] == "not_applicable" and "interval" in row["reason"]
    assert result.measured["offset_reader_excluded"]["no_candidates"] == 44


def test_the_twin_frame_tell_is_invisible_to_every_aggregate_form_rule() -> None:
    result = check(build_simulated_corpus(29, SimulationSpec(frame_tell=True)), declared=NONE)
    row = result.measured["by_shape"]["lookup"]
    assert row["frame_reader"]["gold_at_1"] > 0.9
    for view in ("form_reader", "episode_reader", "tail_reader"):
        assert row[view]["gold_at_1"] < row["frame_reader"]["gold_at_1"] - 0.5
    assert not result.refused_rules() & adversaries.AGGREGATE_FORM_RULES


def test_table_scores_are_deterministic_and_score_candidate_sessions_only() -> None:
    from pytest_typedmemeval.gates.adversary_haystacks import read_haystacks, split_halves

    corpus = build_simulated_corpus(35, SimulationSpec(offset_tell=True))
    haystacks = read_haystacks(corpus.records)
    halves = split_halves(haystacks, list(range(len(haystacks))))
    for view in ("frame", "frame_length", "recurrence", "offset"):
        first, excluded = table_scores(haystacks, halves, view)
        again, _ = table_scores(haystacks, halves, view)
        assert first == again
        for qi, (candidates, scores) in first.items():
            assert len(scores) == len(candidates.session_list) >= 2
            assert candidates.gold and len(candidates.gold) < len(candidates.session_list)
