"""The public-dataset loaders, scoring, runner and metrics file (VERTICALS.md §6.7).

Every dataset file here is a tiny synthetic one the tests write in the upstream layout
(``tests/_dataset_shapes.py``); no real dataset file is ever read or present in the repository.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from _dataset_shapes import (
    halumem_user, locomo_record, longmemeval_records, write_halumem, write_locomo, write_longmemeval,
)
from pytest_typedmemeval.adapter.protocol import Answer, Evidence, Session
from pytest_typedmemeval.datasets import (
    DatasetFormatError, DatasetOptionError, DatasetQuestion, DatasetResult, aggregate_results,
    dataset_item_id, exact_match, item_markers, load_dataset, load_halumem, load_locomo,
    load_longmemeval, metrics_document, parse_dataset_option, run_dataset_question, sample_dataset,
    score_answer, spec_markers, token_f1, write_metrics_file,
)
from pytest_typedmemeval.datasets.scoring import multi_answer_f1

REPO = Path(__file__).resolve().parent.parent
DECLINE = "I do not have that information."


class ScriptedAgent:
    """Answers from a table keyed by question text and records what it was given; optionally
    reports evidence as a fixed ranking built from the sessions it ingested."""

    def __init__(self, answers: dict[str, str], *, rank: Any = None) -> None:
        self.answers = answers
        self.rank = rank
        self.sessions: list[Session] = []
        self.asked: list[tuple[str, datetime, str]] = []

    def reset(self) -> None:
        self.sessions = []

    def ingest(self, session: Session) -> None:
        self.sessions.append(session)

    def answer(self, question: str, *, query_time: datetime, instruction: str) -> Answer | str:
        self.asked.append((question, query_time, instruction))
        text = self.answers.get(question, "no idea what that is")
        if self.rank is None:
            return text
        return Answer(text, Evidence(retrieved=tuple(self.rank(self.sessions))))


def by_id(questions: tuple[DatasetQuestion, ...]) -> dict[str, DatasetQuestion]:
    return {q.question_id: q for q in questions}


# --- LoCoMo -------------------------------------------------------------------------------------


def test_locomo_loads_sessions_in_order_with_roles_from_the_principal(tmp_path: Path) -> None:
    dataset = load_locomo(write_locomo(tmp_path / "locomo10.json"))
    question = by_id(dataset.questions)["conv-1/q000"]
    assert [s.timestamp for s in question.sessions] == [datetime(2023, 5, 8, 13, 56), datetime(2023, 6, 27, 10, 37)]
    assert question.query_time == datetime(2023, 6, 28, 10, 37)  # one day after the latest session
    first = question.sessions[0].turns
    assert [t.role for t in first] == ["user", "assistant", "user"]
    assert first[0].content == "Ada: I finally bought a copper kettle back in 2021."
    assert first[1].content.endswith("[shared an image: a photo of a green bike]")
    assert question.gold_answers == ("2021",)  # the file's int, as text
    assert question.evidence_session_ids == (question.sessions[0].session_id,)
    assert question.evidence[0].turn_index == 0
    assert all(re.fullmatch(r"s[0-9a-f]{12}", s.session_id) for s in question.sessions)
    assert question.source_session_ids == ("session_1", "session_2")
    assert dataset.report.defects["numeric_answer"] == 1
    assert dataset.report.defects["date_without_session"] == 1


def test_locomo_scores_every_question_and_the_principal_only_sets_roles(tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "locomo10.json")
    as_ada = load_locomo(path, principal="a")
    as_bo = load_locomo(path, principal="b")
    # all six questions of the file, under either principal (issue 23 item 1)
    every = [f"conv-1/q{i:03d}" for i in range(6)]
    assert [q.question_id for q in as_ada.questions] == every == [q.question_id for q in as_bo.questions]
    assert as_ada.report.excluded == {} and as_bo.report.excluded == {}
    for_ada, for_bo = by_id(as_ada.questions)["conv-1/q001"], by_id(as_bo.questions)["conv-1/q001"]
    assert [t.role for t in for_ada.sessions[0].turns] == ["user", "assistant", "user"]
    assert [t.role for t in for_bo.sessions[0].turns] == ["assistant", "user", "assistant"]
    assert for_ada.gold_answers == for_bo.gold_answers == ("green",)
    assert as_bo.options == {"principal": "b"}


def test_locomo_malformed_evidence_is_counted_never_fatal(tmp_path: Path) -> None:
    dataset = load_locomo(write_locomo(tmp_path / "locomo10.json"))
    report = dataset.report
    assert report.defects["evidence_several_in_one_string"] == 1
    assert report.defects["evidence_zero_padded"] == 1
    assert report.defects["evidence_malformed"] == 1
    assert report.defects["evidence_dangling"] == 1
    assert report.defects["evidence_repaired"] == 1
    assert report.defects["empty_evidence"] == 1
    assert report.defects["adversarial_without_answer"] == 1
    # a question without resolvable evidence is scored all the same, and has no retrieval gold
    assert report.defects["no_resolvable_evidence"] == 1
    assert report.defect_examples["no_resolvable_evidence"] == ("conv-1/q004",)
    questions = by_id(dataset.questions)
    assert questions["conv-1/q004"].evidence == () and questions["conv-1/q004"].upstream_evidence is None
    assert questions["conv-1/q004"].gold_answers == ("Yes",)  # open-domain gold cut at ';' as upstream
    # "D1:1; D2:01" resolves to both of Ada's turns; "D:1:3" is repaired to Ada's D1:3
    assert len(questions["conv-1/q002"].evidence) == 2 and questions["conv-1/q002"].multi_answer
    assert questions["conv-1/q003"].evidence[0].turn_index == 2
    assert questions["conv-1/q005"].abstention and questions["conv-1/q005"].trap_answers == ("a kettle",)
    assert report.questions_in_file == 6 and report.questions_loaded == len(dataset.questions) == 6
    # upstream's retrieval gold: one pair per resolved reference, in order
    q002 = questions["conv-1/q002"]
    assert q002.upstream_evidence == ((0, q002.sessions[0].session_id), (1, q002.sessions[1].session_id))
    assert [q.upstream_category for q in dataset.questions] == [2, 4, 1, 4, 3, 5]


def test_locomo_session_without_a_date_is_filled_and_counted(tmp_path: Path) -> None:
    record = locomo_record()
    record["conversation"]["session_2_date_time"] = "sometime in summer"
    dataset = load_locomo(write_locomo(tmp_path / "locomo10.json", [record]))
    sessions = dataset.questions[0].sessions
    assert sessions[1].timestamp == sessions[0].timestamp + timedelta(minutes=1)
    assert dataset.report.defects["session_without_date"] == 1


@pytest.mark.parametrize("content, field", [
    ({"not": "a list"}, "<top level>"),
    ([{"sample_id": "conv-1", "qa": []}], "conversation"),
    ([{"sample_id": "conv-1", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": []},
       "qa": [{"question": "Q?", "answer": "x", "evidence": [], "category": 9}]}], "qa[0].category"),
])
def test_a_file_that_is_not_locomo_is_one_line_naming_file_question_and_field(
        tmp_path: Path, content: Any, field: str) -> None:
    path = tmp_path / "not_locomo.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(DatasetFormatError) as raised:
        load_locomo(path)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(str(path)) and f"field {field}" in message
    assert raised.value.field == field


def test_a_longmemeval_record_missing_a_required_key_names_the_question(tmp_path: Path) -> None:
    records = longmemeval_records()
    del records[1]["question_date"]
    with pytest.raises(DatasetFormatError, match=r"question e47becba_abs: field question_date: missing"):
        load_longmemeval(write_longmemeval(tmp_path / "longmemeval_s.json", records))


def test_a_locomo_file_given_as_longmemeval_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(DatasetFormatError) as raised:
        load_longmemeval(write_locomo(tmp_path / "locomo10.json"))
    assert str(raised.value) == f"{tmp_path / 'locomo10.json'}: field [0].question_id: missing (required)"


def test_invalid_json_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "longmemeval_oracle.json"
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(DatasetFormatError, match=r"field <file>: not valid JSON") as raised:
        load_longmemeval(path)
    assert "\n" not in str(raised.value)


# --- LongMemEval --------------------------------------------------------------------------------


def test_longmemeval_loads_evidence_abstention_and_tolerates_its_defects(tmp_path: Path) -> None:
    dataset = load_longmemeval(write_longmemeval(tmp_path / "longmemeval_oracle.json"))
    questions = by_id(dataset.questions)
    clean = questions["e47becba"]
    assert clean.evidence_session_ids == (clean.sessions[1].session_id,)
    assert clean.evidence[0].turn_index == 0  # the turn marked has_answer
    assert clean.query_time == datetime(2023, 5, 30, 23, 40) and not clean.abstention
    assert questions["e47becba_abs"].abstention and questions["e47becba_abs"].gold_answers == ()
    messy = questions["gpt4_91c3"]
    assert [s.timestamp.day for s in messy.sessions] == [1, 2, 5, 12]  # sorted into date order
    assert messy.source_session_ids == ("answer_91c3_1", "dup_9", "answer_91c3_2", "dup_9")
    assert messy.gold_answers == ("21",)
    assert len({s.session_id for s in messy.sessions}) == 4  # duplicated upstream ids stay distinct
    assert [(ref.session_id, ref.turn_index) for ref in messy.evidence] == [
        (messy.sessions[0].session_id, None), (messy.sessions[2].session_id, 1)]
    assert dataset.report.defects == {
        "date_weekday_mismatch": 1, "duplicate_session_id": 1, "evidence_dangling": 1,
        "numeric_answer": 1, "session_after_question": 1}
    assert dataset.report.defect_examples["evidence_dangling"] == ("gpt4_91c3",)


def test_a_longmemeval_question_with_an_empty_answer_is_excluded_not_scored(tmp_path: Path) -> None:
    records = longmemeval_records()
    records[0]["answer"] = "  "
    dataset = load_longmemeval(write_longmemeval(tmp_path / "longmemeval_s.json", records))
    assert "e47becba" not in by_id(dataset.questions)
    assert dataset.report.excluded == {"missing_answer": 1}


def test_the_adapter_sees_no_upstream_ids_labels_or_gold(tmp_path: Path) -> None:
    dataset = load_longmemeval(write_longmemeval(tmp_path / "longmemeval_s.json"))
    for question in dataset.questions:
        agent = ScriptedAgent({})
        run_dataset_question(agent, question)
        seen = [s.session_id for s in agent.sessions] + [t.content for s in agent.sessions for t in s.turns]
        seen += [text for asked in agent.asked for text in (asked[0], asked[2])]
        assert not any("answer_" in text or "_abs" in text or "has_answer" in text for text in seen)
        assert "_abs" not in dataset_item_id(question)
        assert agent.asked[0][1] == question.query_time


# --- HaluMem ------------------------------------------------------------------------------------


def test_halumem_questions_ingest_their_session_prefix_and_resolve_memory_points(tmp_path: Path) -> None:
    dataset = load_halumem(write_halumem(tmp_path / "HaluMem-Medium.jsonl"))
    assert [q.category for q in dataset.questions] == ["Dynamic Update", "Memory Boundary", "Basic Fact Recall"]
    update, boundary, fact = dataset.questions
    assert len(update.sessions) == 2 and update.query_time == datetime(2026, 1, 3, 9, 20)
    assert update.evidence_session_ids == (update.sessions[1].session_id,)
    assert boundary.abstention and boundary.evidence == ()
    assert fact.evidence_session_ids == (fact.sessions[0].session_id,)
    assert dataset.report.defects == {"evidence_dangling": 1}
    assert dataset_item_id(fact) == "dataset/halumem/u00/q0002"


def test_halumem_user_without_sessions_is_one_line(tmp_path: Path) -> None:
    user = halumem_user()
    del user["sessions"]
    with pytest.raises(DatasetFormatError,
                       match=r"question 9f0c2d1e-0000-4000-8000-000000000001: field sessions: missing"):
        load_halumem(write_halumem(tmp_path / "HaluMem-Long.jsonl", [user]))


# --- scoring ------------------------------------------------------------------------------------


def test_token_f1_and_exact_match_match_hand_computed_values() -> None:
    # prediction tokens: cat sat on mat; gold: cat on mat -> P 3/4, R 1, F1 6/7
    assert token_f1("The cat sat on the mat.", "cat on mat") == pytest.approx(6 / 7)
    assert not exact_match("The cat sat on the mat.", "cat on mat")
    assert exact_match("  The   Cat! ", "cat")
    assert token_f1("Don\u2019t panic", "don't panic") == 1.0
    assert token_f1("nothing shared", "copper") == 0.0
    # SQuAD keeps "and"; LoCoMo drops it: P 2/3, R 1 -> 0.8 versus 1.0
    assert token_f1("salt and pepper", "salt pepper") == pytest.approx(0.8)
    assert token_f1("salt and pepper", "salt pepper", "locomo") == 1.0
    # LoCoMo multi-hop: mean over gold parts of the best prediction part
    assert multi_answer_f1("Paris, Rome", "Rome, Paris, Oslo") == pytest.approx(2 / 3)


def test_correct_at_f1_half_and_typed_outcomes_below_it(tmp_path: Path) -> None:
    question = by_id(load_longmemeval(write_longmemeval(tmp_path / "lme.json")).questions)["e47becba"]
    right = score_answer(question, "Copper.")
    assert (right.outcome.value, right.correct, right.f1, right.exact_match) == ("correct", True, 1.0, True)
    half = score_answer(question, "copper kettle")  # P 1/2, R 1 -> F1 2/3 >= 0.5
    assert half.correct and half.f1 == pytest.approx(2 / 3) and not half.exact_match
    wrong = score_answer(question, "It is a shiny steel one from the market")
    assert (wrong.outcome.value, wrong.correct, wrong.f1) == ("wrong", False, 0.0)
    declined = score_answer(question, DECLINE)
    assert (declined.outcome.value, declined.correct) == ("abstained", False)
    denied = score_answer(question, "You never told me about a kettle.")
    assert (denied.outcome.value, denied.correct) == ("missed", False)


def test_abstention_probes_are_correct_when_the_answer_declines(tmp_path: Path) -> None:
    lme = by_id(load_longmemeval(write_longmemeval(tmp_path / "lme.json")).questions)["e47becba_abs"]
    declined = score_answer(lme, DECLINE)
    assert (declined.outcome.value, declined.correct, declined.f1) == ("abstained", True, None)
    assert score_answer(lme, "You never mentioned a toaster.").correct
    answered = score_answer(lme, "It is red.")
    assert (answered.outcome.value, answered.correct) == ("wrong", False)
    adversarial = by_id(load_locomo(write_locomo(tmp_path / "locomo10.json")).questions)["conv-1/q005"]
    trapped = score_answer(adversarial, "Bo bought a kettle.")
    assert not trapped.correct and "adversarial answer" in trapped.reason
    assert score_answer(adversarial, "That was not mentioned in our conversations.").correct


# --- runner and provenance ----------------------------------------------------------------------


def test_runner_scores_and_measures_evidence_provenance(tmp_path: Path) -> None:
    questions = by_id(load_longmemeval(write_longmemeval(tmp_path / "lme.json")).questions)
    clean = questions["e47becba"]
    # the evidence session is ranked second of what the agent reports
    agent = ScriptedAgent({clean.question: "copper"}, rank=lambda sessions: [s.session_id for s in sessions])
    result = run_dataset_question(agent, clean)
    assert (result.outcome, result.correct, result.provenance) == ("correct", True, "observed")
    assert result.evidence_ranks == (2,)
    assert result.recall_at(1) is False and result.recall_at(5) is True
    unobserved = run_dataset_question(ScriptedAgent({clean.question: "copper"}), clean)
    assert unobserved.provenance == "unobserved" and unobserved.recall_at(5) is None
    # an abstention probe's listed sessions hold related facts, not an answer: not applicable
    abstention = run_dataset_question(ScriptedAgent({}, rank=lambda s: []), questions["e47becba_abs"])
    assert abstention.provenance == "not_applicable" and abstention.recall_at(5) is None
    figures = aggregate_results(load_longmemeval(tmp_path / "lme.json").spec, [result, unobserved])
    assert figures.overall.provenance_observed == 1 and figures.overall.provenance_hits == {1: 0, 5: 1, 10: 1}
    assert DatasetResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_an_adapter_exception_is_an_error_never_wrong(tmp_path: Path) -> None:
    class Broken(ScriptedAgent):
        def ingest(self, session: Session) -> None:
            raise RuntimeError("store offline")

    question = load_longmemeval(write_longmemeval(tmp_path / "lme.json")).questions[0]
    result = run_dataset_question(Broken({}), question)
    assert (result.outcome, result.correct, result.answer) == ("error", False, None)
    assert result.reason == "adapter raised RuntimeError: store offline"


def test_async_adapters_are_awaited(tmp_path: Path) -> None:
    class AsyncAgent(ScriptedAgent):
        async def answer(self, question: str, *, query_time: datetime, instruction: str) -> str:  # type: ignore[override]
            return "copper"

    question = load_longmemeval(write_longmemeval(tmp_path / "lme.json")).questions[0]
    assert run_dataset_question(AsyncAgent({}), question).correct


# --- sampling, items, registry ------------------------------------------------------------------


def test_sampling_is_deterministic_keeps_file_order_and_leaves_global_random_alone(tmp_path: Path) -> None:
    records = []
    for n in range(30):
        record = dict(longmemeval_records()[0], question_id=f"q{n:02d}")
        records.append(record)
    path = write_longmemeval(tmp_path / "longmemeval_s.json", records)
    random.seed(1234)
    state = random.getstate()
    first = load_dataset("longmemeval", path, sample=7, seed=3)
    second = load_dataset("longmemeval", path, sample=7, seed=3)
    assert random.getstate() == state
    ids = [q.question_id for q in first.questions]
    assert ids == [q.question_id for q in second.questions] and len(ids) == 7
    assert ids == sorted(ids)
    other = {tuple(q.question_id for q in load_dataset("longmemeval", path, sample=7, seed=s).questions)
             for s in range(5)}
    assert len(other) > 1
    assert first.sample is not None and (first.sample.available, first.sample.size, first.sample.seed) == (30, 7, 3)
    everything = sample_dataset(load_longmemeval(path), None)
    assert len(everything.questions) == 30 and everything.sample is not None and everything.sample.size is None


def test_item_ids_and_markers(tmp_path: Path) -> None:
    question = by_id(load_locomo(write_locomo(tmp_path / "locomo10.json")).questions)["conv-1/q005"]
    assert dataset_item_id(question) == "dataset/locomo/conv-1/q005"
    assert item_markers(question) == ("dataset", "locomo", "locomo_adversarial", "locomo_abstention")
    spec = load_longmemeval(write_longmemeval(tmp_path / "lme.json")).spec
    assert ("longmemeval_single_session_assistant",) == tuple(
        name for name, _ in spec_markers(spec) if name.endswith("assistant"))


def test_dataset_option_parsing_and_principal_scope(tmp_path: Path) -> None:
    assert parse_dataset_option("LoCoMo=~/data/locomo10.json")[0] == "locomo"
    for bad in ("locomo", "nope=/x.json", "locomo="):
        with pytest.raises(DatasetOptionError):
            parse_dataset_option(bad)
    with pytest.raises(DatasetOptionError, match="LoCoMo only"):
        load_dataset("longmemeval", write_longmemeval(tmp_path / "lme.json"), principal="b")


# --- metrics file -------------------------------------------------------------------------------


def test_metrics_file_names_dataset_licence_sample_and_digest_but_no_path_or_answer(tmp_path: Path) -> None:
    path = write_longmemeval(tmp_path / "longmemeval_s.json")
    dataset = load_dataset("longmemeval", path, sample=3, seed=11)
    questions = by_id(dataset.questions)
    secret_answer = "copper zebra-quokka"
    agent = ScriptedAgent({questions["e47becba"].question: secret_answer,
                           questions["e47becba_abs"].question: DECLINE,
                           questions["gpt4_91c3"].question: "21 gears"})
    results = [run_dataset_question(agent, q) for q in dataset.questions]
    out = write_metrics_file(tmp_path / "metrics.json", dataset, results)
    text = out.read_text(encoding="utf-8")
    document = json.loads(text)
    assert document["dataset"] == "longmemeval" and document["licence"] == "MIT"
    assert document["file_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert document["sample"] == {"available": 3, "size": 3, "seed": 11}
    assert str(tmp_path) not in text and "longmemeval_s.json" not in text
    assert "zebra-quokka" not in text and DECLINE not in text
    assert questions["e47becba"].question not in text
    assert any("no model judge" in caveat.casefold() for caveat in document["caveats"])
    # single-session-assistant is on its own line and out of the overall line
    assert document["reported_apart"] == ["single-session-assistant"]
    assert document["overall"]["n"] == 2 and document["overall"]["correct"] == 2
    assert document["abstention"]["n"] == 1 and document["abstention"]["correct"] == 1
    lines = {line["category"]: line for line in document["categories"]}
    assert lines["single-session-assistant"]["correct"] == 1 and lines["single-session-user"]["n"] == 2
    assert document["load"]["defects"]["evidence_dangling"] == 1
    # same run, same bytes
    write_metrics_file(tmp_path / "again.json", dataset, results)
    assert (tmp_path / "again.json").read_text(encoding="utf-8") == text


def test_metrics_refuse_a_path_smuggled_into_an_option(tmp_path: Path) -> None:
    dataset = load_locomo(write_locomo(tmp_path / "locomo10.json"))
    leaky = type(dataset)(spec=dataset.spec, sha256=dataset.sha256, questions=dataset.questions,
                          report=dataset.report, options={"source": str(tmp_path / "locomo10.json")})
    with pytest.raises(ValueError, match="local path"):
        metrics_document(leaky, [])


# --- the repository holds no dataset ------------------------------------------------------------

DATASET_FILE_NAMES = re.compile(
    r"^(?:locomo\d*\.(?:json|zip)|locomo10_v\d+|longmemeval_.*\.json|halumem.*\.jsonl?|"
    r"stage\d_\d_.*\.jsonl)$", re.IGNORECASE)
SKIPPED_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache",
                ".ruff_cache", ".tox", "build", "dist"}


def test_no_dataset_file_is_present_in_the_repository() -> None:
    found = []
    for path in REPO.rglob("*"):
        if any(part in SKIPPED_DIRS or part.endswith(".egg-info") for part in path.relative_to(REPO).parts[:-1]):
            continue
        if path.is_file() and DATASET_FILE_NAMES.match(path.name):
            found.append(str(path.relative_to(REPO)))
    assert found == [], f"public dataset files must never be in the repository: {found}"


@pytest.mark.parametrize(("trap", "answer"), [
    ("No", "No, I don't have that information."),
    ("That", "That isn't something you told me."),
    ("No", "No idea, sorry."),
])
def test_a_function_word_trap_is_not_found_inside_a_decline(tmp_path: Path, trap: str,
                                                            answer: str) -> None:
    """Issue 21, item 6: LoCoMo category-5 traps "No" and "That" were read inside declines."""
    import dataclasses

    adversarial = by_id(load_locomo(write_locomo(tmp_path / "locomo10.json")).questions)["conv-1/q005"]
    trapped = dataclasses.replace(adversarial, trap_answers=(trap,))
    scored = score_answer(trapped, answer)
    assert (scored.outcome.value, scored.correct) == ("abstained", True), scored.reason
    assert not score_answer(trapped, f"{trap}.").correct


def test_longmemevals_own_abstention_wording_is_a_decline(tmp_path: Path) -> None:
    """"The information provided is not enough" opens LongMemEval's abstention golds (issue 23)."""
    lme = by_id(load_longmemeval(write_longmemeval(tmp_path / "lme.json")).questions)["e47becba_abs"]
    scored = score_answer(lme, "The information provided is not enough to tell which toaster.")
    assert (scored.outcome.value, scored.correct) == ("abstained", True), scored.reason


DATASET_ABSTENTION_WORDINGS = (
    # LongMemEval's own abstention golds open with this; its variants
    "The information provided is not enough.",
    "The information provided is not sufficient to determine that.",
    "Not enough information.",
    "There is not enough information to answer.",
    "Insufficient information.",
    # LoCoMo category 5's upstream substring rule: "not mentioned" / "no information available"
    "Not mentioned.",
    "Not mentioned in the conversation.",
    "That is not mentioned in the conversation.",
    "No information available.",
    "No information available about that.",
    # the record as subject, in the datasets' own nouns
    "The conversation does not mention this.",
    "The conversations do not mention what was bought.",
    "The conversation does not provide that information.",
    "The text does not say.",
    "The dialogue does not mention it.",
    "The given context doesn't specify.",
    "Cannot be determined from the conversation.",
    # a third person's telling negated (LongMemEval "the user", LoCoMo's named speakers)
    "The user did not mention it.",
    "Bo never mentioned buying anything in Lisbon.",
)


@pytest.mark.parametrize("trap", ["No", "That", "a kettle"])
@pytest.mark.parametrize("answer", DATASET_ABSTENTION_WORDINGS)
def test_the_datasets_own_abstention_wordings_abstain_on_a_locomo_probe(
        tmp_path: Path, answer: str, trap: str) -> None:
    """Issue 23 item 6 (judge revision 8, J20.7): the decline reading shared with the judge covers
    the public datasets' own abstention wordings, and a function-word trap ("No", "That") is never
    found inside them."""
    import dataclasses

    adversarial = by_id(load_locomo(write_locomo(tmp_path / "locomo10.json")).questions)["conv-1/q005"]
    scored = score_answer(dataclasses.replace(adversarial, trap_answers=(trap,)), answer)
    assert (scored.outcome.value, scored.correct) == ("abstained", True), scored.reason


@pytest.mark.parametrize("answer", DATASET_ABSTENTION_WORDINGS)
def test_the_datasets_own_abstention_wordings_abstain_on_a_longmemeval_probe(
        tmp_path: Path, answer: str) -> None:
    """Issue 23 item 6: LongMemEval ``_abs`` questions grade these wordings ``abstained``, not
    ``wrong``."""
    lme = by_id(load_longmemeval(write_longmemeval(tmp_path / "lme.json")).questions)["e47becba_abs"]
    scored = score_answer(lme, answer)
    assert (scored.outcome.value, scored.correct) == ("abstained", True), scored.reason


@pytest.mark.parametrize("answer", ["Not enough information.", "No information available.",
                                    "The text does not say.", "Not mentioned."])
def test_a_dataset_abstention_wording_on_an_answerable_question_is_abstained_not_wrong(
        tmp_path: Path, answer: str) -> None:
    """Below the F1 threshold, the same wordings are ``abstained`` (not ``wrong``) where the gold
    has an answer."""
    question = by_id(load_locomo(write_locomo(tmp_path / "locomo10.json")).questions)["conv-1/q000"]
    scored = score_answer(question, answer)
    assert (scored.outcome.value, scored.correct) == ("abstained", False), scored.reason
