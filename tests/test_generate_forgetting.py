"""The Forgetting generator (VERTICALS.md §2.5) and its shipped corpus, typedmemeval-forgetting-v1."""

from __future__ import annotations

import copy
import re
from collections import Counter
from pathlib import Path

import pytest

from pytest_typedmemeval import cli
from pytest_typedmemeval.corpus.loading import Corpus, load_corpus, normalised_bytes, sidecar_path_for
from pytest_typedmemeval.corpus.models import AnswerKey, Sidecar
from pytest_typedmemeval.gates import registry as gate_registry
from pytest_typedmemeval.gates import structure
from pytest_typedmemeval.gates.vertical_specs import VERTICAL_SPECS
from pytest_typedmemeval.generate import forgetting, registry
from pytest_typedmemeval.generate.machinery import GenerationError, person_problems, text_counts
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens

SHIPPED = registry.shipped_corpora_dir() / "typedmemeval-forgetting-v1.json"


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus(SHIPPED)


# --- reproducibility ---------------------------------------------------------------------------


def test_the_corpus_is_a_function_of_seed_and_echo() -> None:
    first = registry.corpus_text("forgetting", forgetting.SEED, forgetting.RECORDED_ECHO)
    second = registry.corpus_text("forgetting", forgetting.SEED, forgetting.RECORDED_ECHO)
    assert first == second
    other = registry.corpus_text("forgetting", forgetting.SEED + 1, forgetting.RECORDED_ECHO)
    assert other != first


def test_regenerating_from_the_sidecar_gives_the_shipped_bytes(corpus: Corpus) -> None:
    text = registry.regenerate_text(corpus)
    assert text is not None
    assert normalised_bytes(text.encode("utf-8")) == normalised_bytes(SHIPPED.read_bytes())
    assert corpus.sidecar is not None
    assert corpus.sidecar.echo_by_shape == forgetting.RECORDED_ECHO  # the code constant is the record


def test_generate_writes_the_shipped_corpus_and_sidecar_byte_for_byte(tmp_path: Path) -> None:
    report = registry.generate("forgetting", tmp_path)
    assert report.corpus_path.read_bytes() == SHIPPED.read_bytes()
    assert report.sidecar_path.read_bytes() == sidecar_path_for(SHIPPED).read_bytes()
    assert not report.searched and set(report.seconds) == {"build", "sidecar"}


def test_cli_check_rebuilds_and_compares(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["generate", "--vertical", "forgetting", "--check"]) == 0
    assert "identical" in capsys.readouterr().out
    assert cli.main(["generate", "--vertical", "nosuch", "--check"]) == 2


def _with_sidecar(corpus: Corpus, **update: object) -> Corpus:
    assert corpus.sidecar is not None
    return Corpus(corpus.corpus_id, corpus.path, corpus.sha256, corpus.records,
                  corpus.sidecar.model_copy(update=update), corpus.vertical)


def test_regenerate_declines_foreign_generators(corpus: Corpus) -> None:
    for update in ({"generator": "somebody.else"}, {"seed": None}):
        assert registry.regenerate_text(_with_sidecar(corpus, **update)) is None


def test_a_sidecar_the_installed_generator_cannot_rebuild_is_refused_not_skipped(corpus: Corpus) -> None:
    stale = _with_sidecar(corpus, generator_version="0", echo_by_shape={"invalidated": 0.5,
                                                                        "still-valid": 0.5})
    result = structure.check(stale, regenerate=registry.regenerate_text)
    assert result.status == "refused" and "reproducibility" in result.refused_rules()
    assert result.measured["reproducibility"] == "differs"


def test_the_registry_discovers_generator_modules() -> None:
    assert registry.GENERATORS["forgetting"] == forgetting.GENERATOR
    assert set(registry.GENERATORS) <= set(VERTICAL_SPECS)


def test_rerunning_the_search_reproduces_the_recorded_echo() -> None:
    # §4.11: the tool that reruns calibration through the real entry point and diffs the record.
    result = registry.search_echo("forgetting")
    assert result.echo_by_shape == forgetting.RECORDED_ECHO
    assert result.record() == forgetting.CALIBRATION_RECORD
    for shape, search in result.searches.items():
        assert search.coverage <= 0.90 and search.bracket is not None, shape


# --- acceptance: the gates as implemented ------------------------------------------------------


def test_shipped_forgetting_passes_every_corpus_gate(corpus: Corpus) -> None:
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
    assert (sidecar.corpus_id, sidecar.revision, sidecar.vertical) == ("typedmemeval-forgetting-v1", 1,
                                                                      "forgetting")
    assert sidecar.generator == forgetting.GENERATOR and sidecar.seed == forgetting.SEED
    assert sidecar.echo_by_shape["never-known"] == 0.0
    assert sidecar.shape_counts == {"invalidated": 20, "still-valid": 15, "never-known": 15}
    assert sidecar.ceiling_by_shape == {"invalidated": 1.0, "still-valid": 1.0}
    assert all(sidecar.coverage_by_question[r.question_id] is None
               for r in corpus.records if r.shape == "never-known")
    rows = {(row.shape, row.arm) for row in sidecar.probe_records}
    assert rows == {(s, a) for s in ("invalidated", "still-valid") for a in ("V1", "V8", "V9")} | \
        {("never-known", "V10"), ("never-known", "V11")}
    assert all(row.status == "not_measured" and row.reason for row in sidecar.probe_records)
    assert sidecar.separability and not any(row.refused for row in sidecar.separability)
    assert sidecar.exemptions == () and not sidecar.difficulty_validated


# --- the design, read back from the bytes -------------------------------------------------------


def test_shapes_ids_and_pairs_follow_the_spec(corpus: Corpus) -> None:
    by_id = {r.question_id: r for r in corpus.records}
    assert [r.question_id for r in corpus.records] == sorted(by_id)
    for number in range(1, 51):
        suffix = "_abs" if number > 35 else ""
        record = by_id[f"tme-for-{number:03d}{suffix}"]
        assert record.shape == ("invalidated" if number <= 20 else
                                "still-valid" if number <= 35 else "never-known")
        assert record.question.endswith(forgetting.CURRENCY_CLAUSE)
    for number in range(1, 16):
        treated, control = by_id[f"tme-for-{number:03d}"], by_id[f"tme-for-{number + 20:03d}"]
        assert treated.typedmemeval.pair_id == control.typedmemeval.pair_id == f"tme-for-p{number:02d}"
        assert (treated.typedmemeval.arm, control.typedmemeval.arm) == ("treatment", "control")
        strip = lambda r: [[(t.role, t.content) for t in s] for s in r.haystack_sessions]  # noqa: E731
        assert strip(treated) == strip(control) and treated.haystack_dates == control.haystack_dates
    for number in range(16, 21):
        assert by_id[f"tme-for-{number:03d}"].typedmemeval.pair_id is None


def test_gold_components_and_gaps(corpus: Corpus) -> None:
    gaps = []
    for record in corpus.records:
        block = record.typedmemeval
        if record.shape == "never-known":
            assert not record.answer_session_ids and block.gold_components is None
            assert 15 <= len(record.haystack_sessions) <= 25
            continue
        assert len(record.gold_session_indices) == 2
        assert 15 <= len(record.haystack_sessions) - 2 <= 25
        first, second = block.gold_components or ()
        second_kind = "invalidation" if record.shape == "invalidated" else "reaffirmation"
        assert (first.kind, second.kind) == ("statement", second_kind)
        assert first.session_index < second.session_index
        assert record.session_times[first.session_index] < record.session_times[second.session_index]
        gap = second.session_index - first.session_index
        assert 4 <= gap <= 15 and block.dial is not None and block.dial.value == gap
        gaps.append(gap)
        assert block.gold_components_load_bearing is (True if record.shape == "invalidated" else None)
        assert block.gold_components_redundant is (True if record.shape == "still-valid" else None)
    assert len(set(gaps)) == 12  # evenly spread over 4..15


def test_the_mechanical_judge_grades_every_gold_answer_correct(corpus: Corpus) -> None:
    for record in corpus.records:
        verdict = judge_answer(record.answer, record.typedmemeval.answer_key)
        assert verdict.outcome is Outcome.CORRECT, (record.question_id, verdict)


def test_answer_keys_separate_the_three_states(corpus: Corpus) -> None:
    for record in corpus.records:
        key = record.typedmemeval.answer_key
        if record.shape == "invalidated":
            value = key.must_name[0]
            assert key.expected_negative == "no_longer" and key.stale == (value,)
            assert judge_answer(f"{value}.", key).outcome is Outcome.WRONG  # stale recall
            assert "stale_recall" in judge_answer(f"{value}.", key).subcounts
            assert judge_answer("You never mentioned one.", key).outcome is not Outcome.CORRECT
        elif record.shape == "still-valid":
            value = key.accepted[0]
            assert key.expected_negative == "still"
            assert "over_forgetting" in judge_answer(f"{value}, but you cancelled it.", key).subcounts
        else:
            assert key.expected_negative == "abstain"
            assert judge_answer(f"{key.wrong[0]}.", key).outcome is Outcome.WRONG


def test_never_known_haystacks_lack_the_asked_noun_but_hold_a_near_miss(corpus: Corpus) -> None:
    for record in corpus.records:
        if record.shape != "never-known":
            continue
        noun = re.match(r"Which (.+?) do I have (for the .+?)\?", record.question)
        assert noun is not None
        asked, purpose = noun.groups()
        text = "\n".join(t.content for s in record.haystack_sessions for t in s).lower()
        assert asked not in text and asked.split()[-1] not in text
        assert re.search(rf"the [a-z ]+ {re.escape(purpose)}\.", text)  # the near-miss neighbour


def test_every_turn_that_states_a_value_names_its_subject(corpus: Corpus) -> None:
    # Independent of the generator's own check: any value of any answer key, wherever it occurs,
    # sits in a turn that names "the <noun> for the <purpose>." before it.
    for record in corpus.records:
        key = record.typedmemeval.answer_key
        values = set(key.accepted + key.must_name + key.wrong + key.stale)
        for session in record.haystack_sessions:
            for turn in session:
                for value in values:
                    if value in turn.content:
                        before = turn.content[: turn.content.index(value)]
                        assert re.search(r"the [a-z ]+ for the [a-z ]+\. I ", before), turn.content


def test_no_currency_words_digits_or_dashes_in_any_haystack(corpus: Corpus) -> None:
    for record in corpus.records:
        text = "\n".join(t.content for s in record.haystack_sessions for t in s)
        assert not set(raw_tokens(text)) & forgetting.CURRENCY_WORDS
        assert not re.search(r"[\d\u2013\u2014]", text)


# --- gold-blindness: the plan's distributions, gold against filler ------------------------------

_CHI2_001 = {1: 10.83, 2: 13.82, 3: 16.27, 5: 20.52}
"""Chi-square critical values at p = 0.001 (a homogeneity test that only refuses a real skew)."""


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


def _session_plan(session: tuple[object, ...]) -> dict[str, str]:
    turns = list(session)
    user = [t for t in turns if t.role == "user"]  # type: ignore[attr-defined]
    statements = [i for i, t in enumerate(user)
                  if re.search(r"the [a-z ]+ for the [a-z ]+\. I ", t.content)]  # type: ignore[attr-defined]
    assert len(statements) == 1
    text = user[statements[0]].content  # type: ignore[attr-defined]
    lead = next(i for i, template in enumerate(forgetting.LEAD_INS)
                if text.startswith(template.split("{subject}")[0] + ""))
    echo = [t.role for t in turns if "(Also on my mind:" in t.content]  # type: ignore[attr-defined]
    assert len(echo) == 1
    return {"slot": str(statements[0]), "lead": str(lead), "echo_role": echo[0]}


def test_plan_distributions_are_the_same_for_gold_and_filler(corpus: Corpus) -> None:
    gold: dict[str, Counter[str]] = {"slot": Counter(), "lead": Counter(), "echo_role": Counter()}
    filler: dict[str, Counter[str]] = {"slot": Counter(), "lead": Counter(), "echo_role": Counter()}
    for record in corpus.records:
        if not record.answer_session_ids:
            continue
        golden = set(record.gold_session_indices)
        for index, session in enumerate(record.haystack_sessions):
            plan = _session_plan(session)
            for name, value in plan.items():
                (gold if index in golden else filler)[name][value] += 1
    for name in gold:
        statistic, df = _chi2(gold[name], filler[name])
        assert statistic < _CHI2_001[df], (name, gold[name], filler[name])


def test_every_turn_slot_has_identical_counts_across_a_haystack(corpus: Corpus) -> None:
    for record in corpus.records[:: 7]:
        slots = list(zip(*record.haystack_sessions))
        for slot in slots:
            assert len({text_counts(turn.content) for turn in slot}) == 1


# --- validity rules are hard errors --------------------------------------------------------------


def _stay(key: str = "pair-01") -> forgetting.Haystack:
    entries = forgetting.FACTS[0], forgetting.FACTS[1]
    stay = forgetting._plan_haystack(7, key, entries, ("invalidation", "reaffirmation"), (6, 9),
                                     (entries[0].words, entries[1].words), (0.8, 0.8), has_gold=True)
    forgetting._render(7, stay)
    forgetting._check_haystack(stay)
    return stay


def test_a_clean_haystack_passes_its_checks() -> None:
    stay = _stay()
    answer, gold, kind = forgetting._gold_answer(stay, 0)
    assert kind == "invalidation" and "no longer holds" in answer and gold[1] - gold[0] == 6


def test_a_value_stated_without_its_subject_is_refused() -> None:
    stay = _stay()
    position = stay.facts[0].positions[0]
    turn = stay.sessions[position][stay.statement_turns[position]]
    turn.text = re.sub(r"^.*? for the [a-z ]+\. ", "", turn.text)  # drop the setup naming the noun
    with pytest.raises(GenerationError, match="without its subject|cannot read|reads back"):
        forgetting._check_haystack(stay)


def test_a_stray_value_word_is_refused() -> None:
    stay = _stay()
    word = stay.facts[0].value.split()[0]
    stay.sessions[0][1].text += f" {word} again."
    with pytest.raises(GenerationError, match="value word"):
        forgetting._check_values_named(stay)


def test_an_invalidation_before_its_statement_is_refused() -> None:
    stay = _stay()
    first, second = stay.facts[0].positions
    stay.sessions[first], stay.sessions[second] = stay.sessions[second], stay.sessions[first]
    stay.statement_turns[first], stay.statement_turns[second] = \
        stay.statement_turns[second], stay.statement_turns[first]
    with pytest.raises(GenerationError, match="before its follow-up|reads back"):
        forgetting._gold_answer(stay, 0)


def test_a_later_revalidation_is_refused() -> None:
    stay = _stay()
    entry = stay.facts[0].entry
    later = max(p for p in range(stay.n) if p not in stay.facts[0].positions)
    last = stay.sessions[later][0]
    last.text += f" About the {entry.noun} {entry.purpose}. I stuck with {stay.facts[0].value} for it."
    with pytest.raises(GenerationError):
        forgetting._gold_answer(stay, 0)


def test_currency_words_in_a_haystack_are_refused() -> None:
    stay = _stay()
    stay.sessions[2][1].text += " Is it still current?"
    with pytest.raises(GenerationError, match="currency"):
        forgetting._check_haystack(stay)


def test_the_asked_noun_in_a_never_known_haystack_is_refused() -> None:
    near = forgetting.FACTS[24]  # paddleboard; the never-known question asks about its sibling
    other = forgetting.FACTS[0]
    asked_words = frozenset(w for w in near.words if w not in raw_tokens(near.sibling))
    stay = forgetting._plan_haystack(7, "never-01", (near, other), ("invalidation", "reaffirmation"),
                                     (5, 7), (asked_words, other.words), (0.8, 0.8), has_gold=False)
    forgetting._render(7, stay)
    assert forgetting._never_record(stay, near, "tme-for-036_abs")["answer"].startswith("You never")
    stay.sessions[3][1].text += f" My {near.sibling}s are drying."
    with pytest.raises(GenerationError, match="never-known noun"):
        forgetting._never_record(stay, near, "tme-for-036_abs")


def test_a_gold_answer_the_judge_would_not_accept_is_refused() -> None:
    stay = _stay()
    record = forgetting._gold_record(stay, 0, "tme-for-001", "invalidated", None, None)
    forgetting._judge_gold(record)
    broken = copy.deepcopy(record)
    broken["answer"] = stay.facts[0].value + "."
    with pytest.raises(GenerationError, match="judge"):
        forgetting._judge_gold(broken)
    assert AnswerKey.model_validate(record["typedmemeval"]["answer_key"]).must_name


def test_invalidation_events_read_in_both_persons() -> None:
    for events in forgetting.EVENTS.values():
        for event in events:
            assert person_problems(event) == [], event
