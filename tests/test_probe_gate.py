"""Probe-record acceptance (GATES.md §5, VERTICALS.md §3): self-test cases and targeted behaviour."""

from __future__ import annotations

import pytest

from pytest_typedmemeval.corpus.models import ProbeRecord, ProbeVerdict
from pytest_typedmemeval.gates import probes
from pytest_typedmemeval.gates.selftest import probes as probe_fixtures
from pytest_typedmemeval.gates.declarations import Declared, VerticalDeclarations

NONE = VerticalDeclarations()


@pytest.mark.parametrize("case", probes.self_test(), ids=lambda case: case.name)
def test_self_test_case(case):
    assert case.ok, case.detail


def _gold(n: int = 20, shape: str = "where"):
    questions = [probe_fixtures._question(i, shape) for i in range(1, n + 1)]
    return questions, [q.question_id for q in questions]


def _goldless(first: int = 21, n: int = 5, shape: str = "never-known"):
    questions = [probe_fixtures._question(i, shape, gold=False) for i in range(first, first + n)]
    return questions, [q.question_id for q in questions]


def _abstain(ids, shape="never-known", clean=None, samples=3):
    clean = len(ids) if clean is None else clean
    return [probe_fixtures._arm(arm, shape, ids, clean, samples=samples, good="abstain", bad="commit")
            for arm in probes.GOLDLESS_ARMS]


def _check(questions, records, **kwargs):
    kwargs.setdefault("declared", NONE)
    return probes.check(probe_fixtures._corpus("t", questions, records), **kwargs)


def test_figures_per_shape_are_shares_of_correct_verdicts():
    questions, ids = _gold()
    result = _check(questions, probe_fixtures._gold_arms("where", ids, 20, 19, 10))
    assert result.status == "passed", result.summary()
    row = result.measured["shapes"]["where"]
    assert (row["V1"], row["V8"], row["V9"]) == (1.0, 0.95, 0.5)
    assert row["headroom_perfect_selector"] == 0.5
    assert row["reachable_headroom"] == 0.45
    assert row["interference_cost"] == 0.05
    assert row["limited_by"] == "retrieval"
    assert row["accepted"] is True
    assert result.measured["worst_headroom"] == 0.5


def test_reasoning_limited_when_v1_minus_v8_reaches_the_cut():
    questions, ids = _gold()
    row = _check(questions, probe_fixtures._gold_arms("where", ids, 20, 17, 2)).measured["shapes"]["where"]
    assert row["interference_cost"] == 0.15
    assert row["limited_by"] == "reasoning"


def test_bars_are_inclusive_and_exact():
    questions, ids = _gold()
    # V1 = 18/20 = 0.90 exactly and V1 - V9 = 0.90 - 0.75 = 0.15 exactly: both bars hold.
    result = _check(questions, probe_fixtures._gold_arms("where", ids, 18, 18, 15))
    assert result.status == "passed", result.summary()
    result = _check(questions, probe_fixtures._gold_arms("where", ids, 18, 18, 16))
    assert result.refused_rules() == {"headroom"}


def test_every_sample_counts_in_the_share():
    questions, ids = _gold(10)
    verdicts = [ProbeVerdict(question_id=qid, sample=s, outcome="correct" if s < 2 or i else "wrong")
                for i, qid in enumerate(ids) for s in range(3)]
    v1 = ProbeRecord(arm="V1", shape="where", status="measured", verdicts=tuple(verdicts),
                     **probe_fixtures._PROVENANCE)
    records = [v1, probe_fixtures._arm("V8", "where", ids, 10), probe_fixtures._arm("V9", "where", ids, 5)]
    assert _check(questions, records).measured["shapes"]["where"]["V1"] == round(29 / 30, 4)


def test_records_split_per_question_are_pooled():
    questions, ids = _gold(10)
    records = [probe_fixtures._arm(arm, "where", [qid], 1 if arm != "V9" or i < 5 else 0)
               for arm in probes.GOLD_ARMS for i, qid in enumerate(ids)]
    result = _check(questions, records)
    assert result.status == "passed", result.summary()
    assert result.measured["shapes"]["where"]["V9"] == 0.5


def test_a_sample_recorded_twice_is_a_record_mismatch():
    questions, ids = _gold(10)
    records = probe_fixtures._gold_arms("where", ids, 10, 10, 5) + [probe_fixtures._arm("V1", "where", ids[:1], 1)]
    assert "record_mismatch" in _check(questions, records).refused_rules()


def test_a_record_for_a_shape_the_corpus_lacks_is_refused():
    questions, ids = _gold(10)
    records = probe_fixtures._gold_arms("where", ids, 10, 10, 5) + [probe_fixtures._arm("V1", "gone", ids, 10)]
    assert _check(questions, records).refused_rules() == {"record_mismatch"}


def test_arms_judged_elsewhere_are_ignored():
    questions, ids = _gold(10)
    records = probe_fixtures._gold_arms("where", ids, 10, 10, 5) + [probe_fixtures._arm("V3", "where", ids, 0)]
    assert _check(questions, records).status == "passed"


def test_missing_provenance_is_refused():
    questions, ids = _gold(10)
    records = probe_fixtures._gold_arms("where", ids, 10, 10, 5)
    records[2] = records[2].model_copy(update={"temperature": None})
    assert _check(questions, records).refused_rules() == {"provenance"}


def test_arms_from_different_models_are_refused():
    questions, ids = _gold(10)
    records = probe_fixtures._gold_arms("where", ids, 10, 10, 5)
    records[2] = records[2].model_copy(update={"model": "another-model"})
    assert _check(questions, records).refused_rules() == {"record_mismatch"}


def test_a_partial_arm_is_not_measured_and_lists_the_missing_ids():
    questions, ids = _gold(10)
    records = probe_fixtures._gold_arms("where", ids, 10, 10, 5)
    records[0] = probe_fixtures._arm("V1", "where", ids[:7], 7)
    result = _check(questions, records)
    assert result.status == "skipped"
    rows = result.measured["not_measured"]
    assert [(r["shape"], r["arm"]) for r in rows] == [("where", "V1")]
    assert rows[0]["question_ids"] == ids[7:]
    assert result.measured["shapes"]["where"]["V1"] is None
    assert result.measured["shapes"]["where"]["accepted"] is None


def test_applicability_comes_from_the_corpus_not_the_records():
    questions, _ = _goldless()
    result = _check(questions, [])
    assert result.status == "skipped"
    arms = {(r["shape"], r["arm"]) for r in result.measured["not_measured"]}
    assert arms == {("never-known", "V10"), ("never-known", "V11")}


def test_refusal_and_not_measured_together_are_refused_with_the_skip_as_a_note():
    questions, ids = _gold()
    records = probe_fixtures._gold_arms("where", ids, 16, 16, 2)
    gl_questions, _ = _goldless()
    result = _check(questions + gl_questions, records)
    assert result.status == "refused"
    assert result.refused_rules() == {"v1_floor"}
    assert any("not measured" in note for note in result.notes)
    assert result.skip_reason is None


def test_goldless_shapes_publish_discriminates_null_with_a_reason():
    questions, ids = _goldless()
    result = _check(questions, _abstain(ids))
    assert result.status == "passed", result.summary()
    row = result.measured["shapes"]["never-known"]
    assert row["discriminates"] is None
    assert "baseline" in row["discriminates_reason"]
    assert (row["V10"], row["V11"]) == (1.0, 1.0)
    assert row["abstention_sweep_clean"] is True


def test_fewer_than_three_abstention_draws_is_not_measured():
    questions, ids = _goldless()
    result = _check(questions, _abstain(ids, samples=2), require_probes=True)
    assert result.refused_rules() == {"not_measured"}


def test_typed_outcomes_are_not_read_as_commitment_grades():
    questions, ids = _goldless()
    records = _abstain(ids)
    records[0] = probe_fixtures._arm("V10", "never-known", ids, 5, samples=3, good="correct")
    assert _check(questions, records).status == "skipped"


def test_a_mixed_shape_keeps_both_parts():
    gold, ids = _gold(10, shape="mixed")
    goldless, gl_ids = _goldless(shape="mixed")
    records = probe_fixtures._gold_arms("mixed", ids, 10, 10, 5) + _abstain(gl_ids, shape="mixed")
    result = _check(gold + goldless, records)
    assert result.status == "passed", result.summary()
    row = result.measured["shapes"]["mixed"]
    assert row["discriminates"] is True
    assert row["no_gold"]["discriminates"] is None


def test_require_probes_turns_every_unmeasured_row_into_a_refusal():
    questions, _ = _gold()
    result = _check(questions, None, require_probes=True)
    assert result.status == "refused"
    assert [r.subject for r in result.refusals] == ["where/V1", "where/V8", "where/V9"]


def test_reader_chance_takes_the_stricter_of_candidates_and_declared_options():
    questions = [probe_fixtures._question(i, "attribution", candidates=3) for i in range(1, 11)]
    ids = [q.question_id for q in questions]
    exemption = Declared(probes.SCORED_ON_THE_READER, "reason specific to attribution shapes",
                         shapes=("attribution",))
    # ``Declared`` has no chance_options field yet; the gate reads it when present.
    object.__setattr__(exemption, probes.CHANCE_OPTIONS_ATTRIBUTE, 2)
    declared = VerticalDeclarations(probe_exemptions=(exemption,))
    # V8 0.8: against 1/3 the margin is 0.47, against 1/2 it is 0.30 -> holds exactly.
    result = _check(questions, probe_fixtures._gold_arms("attribution", ids, 7, 8, 6), declared=declared)
    assert result.status == "passed", result.summary()
    assert "chance_options=2" in result.measured["exemptions_applied"][0]["bar"]
    result = _check(questions, probe_fixtures._gold_arms("attribution", ids, 7, 7, 6), declared=declared)
    assert "exemption_bar" in result.refused_rules()


def test_exemption_for_a_shape_the_corpus_lacks_is_stale():
    questions, ids = _gold()
    declared = VerticalDeclarations(probe_exemptions=(Declared(
        probes.SCORED_ON_THE_READER, "reason specific to a removed shape", shapes=("gone",)),))
    result = _check(questions, probe_fixtures._gold_arms("where", ids, 20, 20, 5), declared=declared)
    assert result.refused_rules() == {"stale_exemption"}


def test_paired_control_holds_only_while_pairs_discriminate():
    paired = [probe_fixtures._question(n, "treatment" if n % 2 else "control",
                               pair=(f"tme-epi-p{(n + 1) // 2:02d}", "treatment" if n % 2 else "control"))
              for n in range(1, 21)]
    treat = [q.question_id for q in paired if q.shape == "treatment"]
    control = [q.question_id for q in paired if q.shape == "control"]
    declared = VerticalDeclarations(probe_exemptions=(Declared(
        probes.PAIRED_CONTROL, "still-valid twins are scored through the pair figure",
        shapes=("control",)),))
    records = (probe_fixtures._gold_arms("treatment", treat, 10, 10, 2)
               + probe_fixtures._gold_arms("control", control, 10, 10, 10))
    result = _check(paired, records, declared=declared)
    assert result.status == "passed", result.summary()
    assert result.measured["pairs"]["discriminates"] is True
    assert result.measured["exemptions_applied"][0]["exemption"] == probes.PAIRED_CONTROL
    flat = (probe_fixtures._gold_arms("treatment", treat, 10, 10, 9)
            + probe_fixtures._gold_arms("control", control, 10, 10, 10))
    result = _check(paired, flat, declared=declared)
    assert {"exemption_bar", "pair_discrimination"} <= result.refused_rules()


def test_pairs_whose_arms_never_met_are_reported():
    lone = [probe_fixtures._question(1, "due-later", pair=("tme-epi-p01", "before"))]
    ids = [lone[0].question_id]
    result = _check(lone, probe_fixtures._gold_arms("due-later", ids, 1, 1, 0), require_probes=True)
    assert result.measured["pairs"]["pairs_incomplete"] == ["tme-epi-p01"]
    assert "not_measured" in result.refused_rules()


def test_default_declarations_come_from_code(monkeypatch):
    questions, ids = _gold()
    seen = []

    def fake(vertical):
        seen.append(vertical)
        return NONE

    monkeypatch.setattr(probes, "declarations_for", fake)
    probes.check(probe_fixtures._corpus("t", questions, probe_fixtures._gold_arms("where", ids, 20, 20, 5)))
    assert seen == ["selftest"]


def test_no_pytest_import_in_the_gate_modules():
    import pathlib

    gates = pathlib.Path(probes.__file__).parent
    for name in ("leaks.py", "probes.py", "baseline.py", "registry.py"):
        assert "import pytest" not in (gates / name).read_text(encoding="utf-8"), name


def test_reader_chance_reads_the_choices_the_question_lists():
    from pytest_typedmemeval.corpus.models import AnswerKey

    questions = []
    for i in range(1, 11):
        q = probe_fixtures._question(i, "attribution")
        key = AnswerKey(accepted=("you",), choices=("me", "you", "both of us"))
        questions.append(q.model_copy(update={"typedmemeval": q.typedmemeval.model_copy(
            update={"answer_key": key})}))
    ids = [q.question_id for q in questions]
    declared = VerticalDeclarations(probe_exemptions=(Declared(
        probes.SCORED_ON_THE_READER, "reason specific to attribution shapes", shapes=("attribution",)),))
    result = _check(questions, probe_fixtures._gold_arms("attribution", ids, 7, 7, 6), declared=declared)
    assert result.status == "passed", result.summary()  # 0.7 - 1/3 = 0.37 >= 0.30
    assert "choices/candidates" in result.measured["exemptions_applied"][0]["bar"]
    result = _check(questions, probe_fixtures._gold_arms("attribution", ids, 7, 6, 6), declared=declared)
    assert "exemption_bar" in result.refused_rules()  # 0.6 - 1/3 = 0.27
