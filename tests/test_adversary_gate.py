"""The adversary gate (GATES.md §7): self-test, each injected tell by its rule, the clean control,
the false-refusal simulation, the revision rule, determinism, and the shipped v2 corpora."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from pytest_typedmemeval import shipped_corpora
from pytest_typedmemeval.gates import adversaries, adversary_learned, adversary_rules
from pytest_typedmemeval.gates.selftest import adversaries as adversary_fixtures
from pytest_typedmemeval.gates.adversaries import SimulationSpec, build_simulated_corpus, check
from pytest_typedmemeval.gates.declarations import Declared, VerticalDeclarations
from pytest_typedmemeval.gates.result import SelfTestCase

CASES = adversaries.self_test()
NONE = VerticalDeclarations()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_self_test_case(case: SelfTestCase) -> None:
    assert case.ok, case.detail


def test_self_test_covers_every_rule_and_has_controls() -> None:
    expected = {case.expected_rule for case in CASES if case.kind == "defect"}
    assert set(adversaries.RULES) - adversaries.REPORTED_ONLY_RULES <= expected
    assert sum(case.kind == "control" for case in CASES) >= 3


def test_the_word_frame_table_is_reported_never_refusing() -> None:
    """The masked word table reads stance words a memory must read as readily as role-exclusive
    filler words, so it is published, not binding; its content-free twin (word lengths) binds."""
    result = check(build_simulated_corpus(31, SimulationSpec(frame_tell=True)), declared=NONE)
    reported = {entry["rule"] for entry in result.measured["reported_only"]}
    assert {"frame_gold_at_1", "frame_auc"} <= reported
    assert not set(result.refused_rules()) & adversaries.REPORTED_ONLY_RULES
    assert "frame_length_gold_at_1" in result.refused_rules()


@pytest.mark.parametrize(("spec", "rule"), [
    (SimulationSpec(pools="split"), "learned_gold_at_1"),
    (SimulationSpec(pools="split"), "learned_auc"),
    (SimulationSpec(gold_position=1), "position_prior"),
    (SimulationSpec(content_free_competitors=True), "subject_value_reader"),
    (SimulationSpec(content_free_competitors=True), "fact_only_bm25"),
    (SimulationSpec(family=4), "haystack_diff"),
    (SimulationSpec(phrase_free_competitors=True), "phrase_reader"),
    (adversary_fixtures.RECURRENCE_DEFECT, "learned_auc"),
    (SimulationSpec(tail_tell=True), "tail_gold_at_1"),
    (SimulationSpec(tail_tell=True), "tail_auc"),
    (SimulationSpec(frame_echo=True), "tail_auc"),
    (SimulationSpec(frame_tell=True), "frame_length_gold_at_1"),
    (SimulationSpec(length_tell=True), "frame_length_auc"),
    (SimulationSpec(recurrence_tell=True), "recurrence_gold_at_1"),
    (SimulationSpec(offset_tell=True), "offset_auc"),
    (SimulationSpec(calendar_tell=True), "calendar_arm"),
], ids=["split-g1", "split-auc", "fixed-position", "content-free-reader", "content-free-bm25",
        "differ-only-in-gold", "phrase-only-gold", "asked-subject-recurs", "tail-g1", "tail-auc",
        "frame-echo", "twin-frames", "length-sequence", "value-recurs", "offset-band",
        "calendar-arm"])
def test_each_injected_tell_is_refused_by_its_rule(spec: SimulationSpec, rule: str) -> None:
    result = check(build_simulated_corpus(31, spec), declared=NONE)
    assert result.status == "refused"
    assert rule in result.refused_rules(), result.summary()
    refusal = next(r for r in result.refusals if r.rule == rule)
    assert refusal.shape == "lookup" and refusal.subject == "lookup"
    assert isinstance(refusal.value, float)


def test_the_clean_control_passes_with_figures_near_random() -> None:
    result = check(build_simulated_corpus(32, SimulationSpec(no_gold_questions=3)), declared=NONE)
    assert result.status == "passed", result.summary()
    row = result.measured["by_shape"]["lookup"]
    learned = row["learned"]
    assert learned["status"] == "measured" and learned["questions"] == row["measured_questions"]
    assert learned["gold_at_1"] <= learned["gold_at_1_bound"]
    assert abs(learned["auc"] - 0.5) < 0.15
    assert row["haystack_diff"]["status"] == "not_applicable"  # no haystack shares a session
    never = result.measured["by_shape"]["never-told"]
    assert never["excluded_no_gold"] == 3 and never["measured_questions"] == 0
    assert result.measured["excluded_no_gold"] == 3
    for name in ("learned", "position_prior", "subject_value_reader", "fact_only_bm25"):
        assert never[name]["status"] == "not_applicable"


@pytest.mark.parametrize("seed", [42, 43])
def test_every_subject_clustered_alike_passes(seed: int) -> None:
    result = check(build_simulated_corpus(seed, adversary_fixtures.RECURRENCE_CONTROL), declared=NONE)
    assert result.status == "passed", result.summary()
    assert abs(result.measured["by_shape"]["lookup"]["learned"]["auc"] - 0.5) < 0.15


def _subjects(record) -> list[str]:
    """The simulated subject each session of the haystack states its fact about."""
    out = []
    for session in record.haystack_sessions:
        text = " ".join(turn.content for turn in session).lower()
        out.append(next(f"{item}/{place}" for item, place in adversary_fixtures.SUBJECTS
                        if f"the {item} at the {place}" in text))
    return out


def test_the_clean_simulation_gives_every_subject_a_cluster_and_gold_any_session() -> None:
    """The clean builder must not carry the episodic-v3 tell itself: every subject of a haystack
    recurs (a cluster from ``subject_sessions``, none appears once), and gold is any session, so it
    sits in the haystack's biggest cluster as often as a session drawn at random does."""
    spec = SimulationSpec()
    observed, expected = [], []
    for seed in (50, 51, 52):
        for record in build_simulated_corpus(seed, spec).records:
            subjects = _subjects(record)
            counts = Counter(subjects)
            assert min(counts.values()) >= spec.subject_sessions[0], counts
            assert max(counts.values()) <= spec.subject_sessions[1], counts
            biggest = max(counts.values())
            in_biggest = [counts[s] == biggest for s in subjects]
            observed.append(in_biggest[record.gold_session_indices[0]])
            expected.append(sum(in_biggest) / len(subjects))
    assert abs(sum(observed) / len(observed) - sum(expected) / len(expected)) < 0.15


def test_the_recurrence_defect_clusters_only_the_asked_subject() -> None:
    spec = adversary_fixtures.RECURRENCE_DEFECT
    for record in build_simulated_corpus(53, spec).records:
        subjects = _subjects(record)
        counts = Counter(subjects)
        asked = subjects[record.gold_session_indices[0]]
        assert spec.subject_sessions[0] <= counts[asked] <= spec.subject_sessions[1]
        assert all(c == 1 for subject, c in counts.items() if subject != asked), counts


def _haystack(question_id: str, sessions: list[tuple[str, ...]]) -> adversaries.Haystack:
    ids = tuple(f"{question_id}-s{i}" for i in range(len(sessions)))
    keys = tuple("\x1e".join(texts) for texts in sessions)
    return adversaries.Haystack(question_id, "lookup", "?", ids, keys, tuple(sessions),
                                 frozenset({0}))


def test_recurrence_counts_other_sessions_of_the_haystack_without_values() -> None:
    sessions = [("I booked Harriet Cole for the tent for the wild camping.",),
                ("Nadia Price chose a tent for the wild camping.",),
                ("My cousin wants a tent for the wild camping.",),
                ("The rain kept off, and Harriet Cole came round.",),
                ("Harriet Cole brought biscuits.",)]
    grams = [adversary_learned.SessionGrams.of(texts) for texts in sessions]
    assert "harriet" not in grams[0].unigrams and "cole" not in grams[3].unigrams  # values
    assert "tent wild" in grams[0].bigrams
    rates = adversary_learned.CorpusRates.of({str(i): g for i, g in enumerate(grams)})
    rows = adversary_learned.recurrence_rows(grams, rates)
    names = adversary_learned.RECURRENCE_NAMES
    row = dict(zip(names, rows[0]))
    assert row["recurrence_bigram_max"] == pytest.approx(2 / 4)  # "tent wild", "wild camping"
    assert row["recurrence_top_bigram"] == 1.0
    assert dict(zip(names, rows[4]))["recurrence_top_bigram"] == 0.0
    assert dict(zip(names, rows[4]))["recurrence_bigram_max"] == 0.0  # "harriet cole" is a value
    assert row["recurrence_bigram_z"] > 0 > dict(zip(names, rows[4]))["recurrence_bigram_z"]
    assert row["recurrence_value_bigram_max"] == pytest.approx(2 / 4)


def test_recurrence_is_per_slot_not_per_session_text() -> None:
    """The same session text recurs with its own haystack: two slots, two figures."""
    shared = ("Any thoughts on a tent for the wild camping?",)
    crowded = _haystack("q1", [shared, ("A tent for the wild camping, then.",),
                               ("The tent for the wild camping is packed.",),
                               ("We had soup for lunch.",)])
    alone = _haystack("q2", [shared, ("We had soup for lunch.",), ("The bus was late.",),
                             ("I finished the crossword.",)])
    slots = adversary_learned.slots_of([crowded, alone])
    index = adversary_learned.RECURRENCE_NAMES.index("recurrence_bigram_max")
    assert slots.keys[0] == slots.keys[4]
    assert slots.recurrence[0][index] == pytest.approx(2 / 3)
    assert slots.recurrence[4][index] == 0.0


def _null_trial(rng, sizes) -> tuple[list, float]:
    """Haystacks of the given (gold, n) with random scores: the questions and their mean AUC."""
    questions, aucs = [], []
    for index, (g, n) in enumerate(sizes):
        keys = tuple(f"h{index}-s{i}" for i in range(n))
        scores = [rng.random() for _ in range(n)]
        gold = frozenset(rng.sample(range(n), g))
        questions.append((keys, gold))
        aucs.append(adversaries.within_auc(scores, gold))
    return questions, sum(aucs) / len(aucs)


def _auc_p(questions, auc: float, key: str) -> float:
    return adversaries.p_value(adversaries.null_draws(questions, key=key)["auc"], auc)


def test_null_draws_give_calibrated_p_values_for_rankings_with_no_signal() -> None:
    """Random scores: p < 0.05 about 5 % of the time, p < 0.5 about half (AUC, 300 trials)."""
    import random

    rng = random.Random(7)
    sizes = [(1, 15), (2, 20), (1, 13), (3, 25), (1, 18), (2, 16)]
    ps = []
    for trial in range(300):
        questions, auc = _null_trial(rng, sizes)
        ps.append(_auc_p(questions, auc, f"t{trial}"))
    assert 0.01 <= sum(p < 0.05 for p in ps) / len(ps) <= 0.10
    assert 0.40 <= sum(p < 0.5 for p in ps) / len(ps) <= 0.60


def test_pair_arms_sharing_a_haystack_and_gold_are_one_observation() -> None:
    """Two arms on one haystack with one gold get one ranking in every draw: the p-value of the
    doubled list equals the single list's (counted twice they would look twice as certain)."""
    import random

    questions, _ = _null_trial(random.Random(3), [(1, 15)] * 6)
    doubled = [q for q in questions for _ in range(2)]
    once = adversaries.null_draws(questions, key="k")
    twice = adversaries.null_draws(doubled, key="k")
    for figure in ("gold_at_1", "auc", "coverage_at_5"):
        assert adversaries.p_value(once[figure], 0.8) == adversaries.p_value(twice[figure], 0.8)
    independent = [((f"x{i}",) + q[0][1:], q[1]) for i, q in enumerate(doubled)]
    assert _auc_p(independent, 0.8, "k") < _auc_p(questions, 0.8, "k")


def test_a_chance_hit_on_a_small_shape_is_not_a_refusal_but_a_thin_tell_is_refused_pooled() -> None:
    clean = check(build_simulated_corpus(25, adversary_fixtures.SMALL_SHAPES), declared=NONE)
    assert not clean.refused_rules() & adversary_fixtures.CHANCE_RULES
    split = check(build_simulated_corpus(16, replace(adversary_fixtures.SMALL_SHAPES, pools="split")),
                  declared=NONE)
    assert ("learned_gold_at_1", adversaries.POOLED) in {(r.rule, r.shape) for r in split.refusals}
    row = split.measured["pooled"]["learned"]
    assert row["gold_at_1_p_value"] < row["alpha"] <= adversaries.LEARNED_ALPHA


def test_false_refusal_rate_on_clean_simulated_corpora_is_within_budget() -> None:
    found = adversaries.false_refusal_rate(40)
    assert found.trials == 40
    assert found.rate <= adversary_fixtures.FALSE_REFUSAL_BUDGET, (found.by_rule, found.refused_seeds)


def test_revision_two_is_skipped_with_the_full_figures_and_what_would_refuse() -> None:
    corpus = build_simulated_corpus(33, SimulationSpec(pools="split"),
                                    corpus_id="typedmemeval-synthetic-v2")
    result = check(corpus, declared=NONE)
    assert result.status == "skipped" and not result.refusals
    assert "predates" in (result.skip_reason or "") and "revision 2" in (result.skip_reason or "")
    assert result.measured["enforced"] is False and result.measured["revision"] == 2
    assert result.measured["by_shape"]["lookup"]["learned"]["gold_at_1"] > 0.5
    assert {"rule": "learned_gold_at_1", "shape": "lookup"}.items() <= \
        result.measured["would_refuse"][0].items()
    assert "learned_gold_at_1" in (result.skip_reason or "")
    v3 = check(replace(corpus, corpus_id="typedmemeval-synthetic-v3"), declared=NONE)
    assert v3.status == "refused" and v3.measured["enforced"] is True
    assert v3.measured["by_shape"] == result.measured["by_shape"]


@pytest.mark.parametrize("corpus_id", ["typedmemeval-synthetic-v1", "my-own-corpus"])
def test_earlier_revisions_and_ids_without_revision_are_skipped_never_passed(corpus_id: str) -> None:
    clean = check(build_simulated_corpus(34, corpus_id=corpus_id), declared=NONE)
    assert clean.status == "skipped" and "predates" in (clean.skip_reason or "")
    assert "no adversary would refuse it" in (clean.skip_reason or "")
    assert clean.measured["by_shape"]["lookup"]["learned"]["status"] == "measured"


def test_a_revision_three_clean_corpus_is_enforced_and_passes() -> None:
    result = check(build_simulated_corpus(35, corpus_id="typedmemeval-synthetic-v3"), declared=NONE)
    assert result.status == "passed" and result.measured["enforced"] is True


def test_same_bytes_same_figures() -> None:
    first = check(build_simulated_corpus(36, SimulationSpec(family=4, family_own_filler=3)),
                  declared=NONE)
    second = check(build_simulated_corpus(36, SimulationSpec(family=4, family_own_filler=3)),
                   declared=NONE)
    assert first.measured == second.measured
    assert first.refusals == second.refusals and first.status == second.status


def test_questions_sharing_sessions_stay_in_one_half() -> None:
    corpus = build_simulated_corpus(37, SimulationSpec(family=4, family_own_filler=2))
    haystacks = adversaries.read_haystacks(corpus.records)
    groups = adversaries.question_groups(haystacks)
    assert len(set(groups)) == len(haystacks) // 4
    half = adversaries.split_halves(haystacks, list(range(len(haystacks))))
    for group in set(groups):
        assert len({half[q] for q, g in enumerate(groups) if g == group}) == 1
    sizes = [sum(1 for side in half.values() if side == s) for s in (0, 1)]
    assert abs(sizes[0] - sizes[1]) <= 4


def test_paired_arms_make_haystack_diff_applicable_and_it_singles_out_nothing() -> None:
    result = check(build_simulated_corpus(38, SimulationSpec(paired=True)), declared=NONE)
    diff = result.measured["by_shape"]["lookup"]["haystack_diff"]
    assert diff["status"] == "measured" and diff["singled_out"] == 0
    assert result.status == "passed", result.summary()


def test_a_corpus_whose_haystacks_all_share_a_session_is_not_measured_never_passed() -> None:
    corpus = build_simulated_corpus(39, SimulationSpec(questions=8, paired=True))
    shared = corpus.records[0].haystack_sessions[0]
    records = []
    for record in corpus.records:
        sessions = (shared, *record.haystack_sessions[1:])
        ids = ("common", *record.haystack_session_ids[1:])
        gold = tuple(sid for sid in record.answer_session_ids if sid in ids)
        records.append(record.model_copy(update={"haystack_sessions": sessions,
                                                 "haystack_session_ids": ids,
                                                 "answer_session_ids": gold}))
    result = check(replace(corpus, records=tuple(records)), declared=NONE)
    row = result.measured["by_shape"]["lookup"]
    assert row["learned"]["status"] == "not_measured"
    assert result.status in ("skipped", "refused")
    if result.status == "skipped":
        assert "not measured" in (result.skip_reason or "")


def test_exemptions_by_argument_and_by_declaration_are_reported_not_refused() -> None:
    corpus = build_simulated_corpus(40, SimulationSpec(pools="split"))
    by_argument = check(corpus, declared=NONE, exempt={"lookup": "because"})
    assert by_argument.status == "passed"
    assert by_argument.measured["exemptions_applied"]["lookup"]["reason"] == "because"
    assert by_argument.measured["by_shape"]["lookup"]["exempt"] == "because"
    rules = [r.rule for r in check(corpus, declared=NONE).refusals if r.shape == "lookup"]
    declared = VerticalDeclarations(adversary_exemptions=tuple(
        Declared(name=rule, reason="declared", shapes=("lookup",)) for rule in sorted(set(rules))))
    by_declaration = check(corpus, declared=declared)
    assert by_declaration.status == "passed"
    assert set(by_declaration.measured["exemptions_applied"]["lookup"]["rules"]) == set(rules)
    assert set(by_declaration.measured["by_shape"]["lookup"]["exempt"]) == set(rules)
    stale = check(build_simulated_corpus(41), declared=NONE, exempt={"lookup": "x", "gone": "y"})
    assert stale.status == "passed" and stale.measured["stale_exemptions"] == ["gone", "lookup"]


def test_a_declared_exemption_covers_its_one_rule_and_names_a_real_rule() -> None:
    corpus = build_simulated_corpus(40, SimulationSpec(pools="split"))
    one = VerticalDeclarations(adversary_exemptions=(
        Declared(name="learned_auc", reason="one rule", shapes=("lookup",)),))
    result = check(corpus, declared=one)
    assert result.status == "refused"
    assert "learned_gold_at_1" in {r.rule for r in result.refusals if r.shape == "lookup"}
    assert "learned_auc" not in {r.rule for r in result.refusals if r.shape == "lookup"}
    with pytest.raises(ValueError, match="names no rule"):
        check(corpus, declared=VerticalDeclarations(adversary_exemptions=(
            Declared(name="lookup", reason="a shape, not a rule"),)))


def test_the_phrase_reader_weighs_a_shared_phrase_over_shared_words() -> None:
    haystack = adversaries.Haystack(
        "q", "lookup", "Who fits the blinds for the annexe?", ("a", "b", "c"), ("a", "b", "c"),
        (("The annexe and the blinds were dusty.",), ("My sister fits the blinds for the annexe.",),
         ("Nothing about it here.",)), frozenset({1}))
    scores = adversaries.phrase_scores(haystack)
    assert scores[1] > scores[0] > scores[2]
    assert ("for", "the") not in adversary_rules._phrases("for the annexe")


def test_the_reader_counts_question_words_only_in_value_sentences() -> None:
    haystack = adversaries.Haystack(
        "tme-adv-001", "lookup", "Who did I book for the kiln at the pottery?", ("a", "b"),
        ("a", "b"), (("The kiln at the pottery crossed my mind.",),
                     ("My sister booked Harriet Cole for her kiln at the pottery.",)),
        frozenset({0}))
    assert adversaries.reader_scores(haystack) == [0.0, 2.0]


def test_the_gate_is_registered_with_its_marker() -> None:
    from pytest_typedmemeval.gates import registry
    from pytest_typedmemeval.plugin import gate_items

    assert registry.GATES["adversaries"] is adversaries
    assert "tme_gate_adversaries" in gate_items.GATE_MARKERS
    assert "adversaries" in registry.SELF_TESTED and "adversaries" in registry.WORST_FIGURES


SHIPPED = {corpus.corpus_id: corpus for corpus in shipped_corpora()}


@pytest.fixture(scope="module")
def shipped_results() -> dict[str, object]:
    return {corpus_id: check(corpus) for corpus_id, corpus in SHIPPED.items()}


def test_shipped_corpora_are_skipped_before_revision_three_and_enforced_from_it(
        shipped_results) -> None:
    for corpus_id, result in shipped_results.items():
        assert result.measured["by_shape"], corpus_id
        if result.measured["revision"] < adversaries.FROM_REVISION:
            assert result.status == "skipped", corpus_id
            assert "predates" in result.skip_reason
        else:
            assert result.measured["enforced"] is True, corpus_id
            assert result.status in ("passed", "refused"), (corpus_id, result.skip_reason)


RED_TEAM_EPISODIC_V3 = "7ff37b84d9dda7d9ac593eecbcce6448928bd04a88fa48cafead3afcb58983af"
"""The episodic-v3 bytes a red team beat by within-haystack recurrence (the gate passed them)."""


def test_the_red_team_episodic_v3_is_refused_by_the_learned_adversary(shipped_results) -> None:
    corpus = SHIPPED.get("typedmemeval-episodic-v3")
    if corpus is None or corpus.sha256 != RED_TEAM_EPISODIC_V3:
        pytest.skip("the episodic-v3 revision the red team beat is no longer shipped")
    result = shipped_results["typedmemeval-episodic-v3"]
    assert result.status == "refused"
    fired = {(r.shape, r.rule) for r in result.refusals}
    for shape in ("assistant-stated", "participant-attribution"):
        assert (shape, "learned_auc") in fired or (shape, "learned_gold_at_1") in fired, fired


@pytest.mark.parametrize("vertical", ["prospective", "workingmemory"])
def test_the_known_v2_value_pool_split_is_caught(shipped_results, vertical: str) -> None:
    """VERTICALS.md Appendix D (1): gold values from one half of a name list. The learned adversary
    must see it on every shape, and the subject-and-value reader the content-free competition."""
    if f"typedmemeval-{vertical}-v2" not in shipped_results:
        pytest.skip(f"{vertical} v2 no longer ships (its tell stays in the self-test's split pools)")
    result = shipped_results[f"typedmemeval-{vertical}-v2"]
    would = {(row["shape"], row["rule"]) for row in result.measured["would_refuse"]}
    for shape, row in result.measured["by_shape"].items():
        assert row["learned"]["gold_at_1"] >= 0.9, (shape, row["learned"])
        assert (shape, "learned_gold_at_1") in would
        assert (shape, "subject_value_reader") in would


def test_the_known_workingmemory_fixed_positions_and_haystack_diff_are_caught(shipped_results) -> None:
    """VERTICALS.md Appendix D (3): five fixed gold indices; family haystacks differ only in gold.
    Revision 3 retired those bytes; the self-test keeps both tells (fixed index, family diff)."""
    if "typedmemeval-workingmemory-v2" not in shipped_results:
        pytest.skip("workingmemory v2 no longer ships (the self-test injects both tells)")
    result = shipped_results["typedmemeval-workingmemory-v2"]
    rules = {row["rule"] for row in result.measured["would_refuse"]}
    assert {"position_prior", "haystack_diff"} <= rules


def test_the_tail_tell_is_invisible_to_the_clause_and_episode_views() -> None:
    """The widened candidate rule sees what the old views did not: the competitors' longer closing
    remark is value-less and two sentences after the value."""
    result = check(build_simulated_corpus(31, SimulationSpec(tail_tell=True)), declared=NONE)
    assert not result.refused_rules() & {"form_gold_at_1", "form_auc", "episode_gold_at_1",
                                         "episode_auc"}, result.summary()
    row = result.measured["by_shape"]["lookup"]
    assert row["tail_reader"]["gold_at_1"] > row["episode_reader"]["gold_at_1"] + 0.5


def test_frame_words_are_the_shapes_shared_question_words_and_the_subject_is_the_rest() -> None:
    from types import SimpleNamespace

    from pytest_typedmemeval.gates.form_reader import frame_words, subject_words

    questions = ["In what order did I add names to the football squad?",
                 "In what order did I add names to the volunteer roster?",
                 "In what order did I add names to the choir rota?"]
    frames = frame_words([SimpleNamespace(shape="list-order", question=q) for q in questions])
    assert frames["list-order"] == frozenset({"order", "add", "names"})
    assert subject_words(questions[0], frames["list-order"]) == {"football", "squad"}
    assert subject_words("Who looked after the paving ten days ago?", frozenset({"ago", "days"})
                         ) == {"looked", "paving"}
    # nothing left: every question word
    assert subject_words("Who said that?", frozenset({"said"})) == {"said"}


def test_values_are_masked_in_the_tail_view() -> None:
    from pytest_typedmemeval.gates.form_reader import mask_values

    assert mask_values("I added Greta Eastwick to the squad in nine weeks.") == \
        "I added X X to the squad in X weeks."


def test_every_form_view_reports_its_coverage_and_exclusions_by_reason() -> None:
    from pytest_typedmemeval.gates.form_reader import EXCLUSIONS

    result = check(build_simulated_corpus(32, SimulationSpec(no_gold_questions=3)), declared=NONE)
    row = result.measured["by_shape"]["lookup"]
    for view in ("form", "episode", "tail"):
        reader = row[f"{view}_reader"]
        assert reader["coverage"] == f"{reader['questions']} of {row['measured_questions']}"
        excluded = result.measured[f"{view}_reader_excluded"]
        assert sum(excluded[reason] for reason in EXCLUSIONS) == \
            excluded["single_candidate_session_or_gold_outside"]


def test_a_frame_word_echoed_by_competitors_hides_gold_from_the_old_tier_not_from_the_tail_view(
        ) -> None:
    result = check(build_simulated_corpus(31, SimulationSpec(frame_echo=True)), declared=NONE)
    for view in ("form", "episode"):
        excluded = result.measured[f"{view}_reader_excluded"]
        assert excluded["gold_holds_none"] == result.measured["by_shape"]["lookup"][
            "measured_questions"]
    assert result.measured["by_shape"]["lookup"]["tail_reader"]["questions"] == \
        result.measured["by_shape"]["lookup"]["measured_questions"]
    assert {"tail_gold_at_1", "tail_auc"} <= result.refused_rules()
