"""Each public dataset's own figures (issue 23): LoCoMo's token metric reproduced exactly, LoCoMo's
``recall_acc`` and LongMemEval's ``recall_any`` / ``recall_all`` / ``ndcg_any`` at 5 and 10, the
``--tme-dataset-scoring`` option, and ``Turn.timestamp``.

Expected figures are worked out by hand from upstream's definitions (the arithmetic is in the
comments), and ``tests/dataset_answers/locomo_upstream_answers.json`` holds 331 answers written for
these tests with the score upstream's own ``task_eval/evaluation.py`` gave each when run locally
(its ``about`` says how); only the answers and the numbers are stored. The upstream-mode tests need
the ``upstream`` extra (NLTK) and skip, saying so, without it; CI installs it.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from _dataset_shapes import (
    halumem_user, locomo_record, longmemeval_records, write_halumem, write_locomo, write_longmemeval,
)
from pytest_typedmemeval.adapter.protocol import Answer, Evidence, Session
from pytest_typedmemeval.datasets import (
    aggregate_results, load_halumem, load_locomo, load_longmemeval, locomo_recall_acc, longmemeval_at,
    metrics_document, run_dataset_question, token_f1,
)
from pytest_typedmemeval.datasets import upstream_scoring
from pytest_typedmemeval.datasets.upstream_retrieval import observe_upstream_ranks

ANSWERS = Path(__file__).resolve().parent / "dataset_answers" / "locomo_upstream_answers.json"
needs_nltk = pytest.mark.skipif(not upstream_scoring.upstream_available(),
                                reason="upstream scoring needs the 'upstream' extra (pip install '.[upstream]')")


class RankingAgent:
    """Answers ``text`` and reports as retrieved the sessions ``order`` picks from what it ingested."""

    def __init__(self, text: str, order: Any = None) -> None:
        self.text, self.order, self.sessions = text, order, []

    def reset(self) -> None:
        self.sessions = []

    def ingest(self, session: Session) -> None:
        self.sessions.append(session)

    def answer(self, question: str, *, query_time: datetime, instruction: str) -> Answer | str:
        if self.order is None:
            return self.text
        return Answer(self.text, Evidence(retrieved=tuple(self.order(self.sessions))))


# --- LoCoMo's token metric -----------------------------------------------------------------------


@needs_nltk
def test_upstream_normalisation_and_f1_by_hand() -> None:
    # commas deleted, ASCII punctuation removed, a/an/the/and dropped; typographic quotes and en
    # dashes are not ASCII punctuation, so they stay
    assert upstream_scoring.normalize_answer("The café, and “naïve” 2022–2023!") == "café “naïve” 2022–2023"
    # Porter: "swedens" -> "sweden": 1 of 1 tokens shared -> F1 1.0 (the typed reading has no stemmer: 0.0)
    assert upstream_scoring.f1_score("Swedens", "Sweden") == 1.0
    assert token_f1("Swedens", "Sweden", "locomo") == 0.0
    # "“sweden”" keeps its quotes upstream: no token shared -> 0.0 (typed strips them: 1.0)
    assert upstream_scoring.f1_score("\u201cSweden\u201d", "Sweden") == 0.0
    assert token_f1("\u201cSweden\u201d", "Sweden", "locomo") == 1.0
    # "she moved to sweden" vs "sweden": P 1/4, R 1 -> 2 * 1/4 / (5/4) = 0.4
    assert upstream_scoring.f1_score("She moved to Sweden", "Sweden") == pytest.approx(0.4, abs=1e-12)
    # EM is a token *set* comparison upstream: "sweden sweden" equals "sweden"
    assert upstream_scoring.exact_match_score("Sweden Sweden", "sweden")


@needs_nltk
def test_upstream_multi_hop_and_category_5_by_hand(tmp_path: Path) -> None:
    record = locomo_record()
    record["qa"] = [
        {"question": "Hobbies?", "answer": "pottery, camping, painting", "evidence": ["D1:1"], "category": 1},
        {"question": "Trap?", "evidence": ["D2:1"], "category": 5, "adversarial_answer": "a kettle"},
    ]
    multi, adversarial = load_locomo(write_locomo(tmp_path / "locomo10.json", [record])).questions
    # one prediction part "painting and camping" -> stems [paint, camp]; gold parts: pottery 0,
    # camping P 1/2 R 1 -> 2/3, painting 2/3; mean (0 + 2/3 + 2/3) / 3 = 4/9
    score = upstream_scoring.locomo_upstream_score(multi, "painting and camping")
    assert score.score == pytest.approx(4 / 9, abs=1e-12) and score.exact_match is False
    # two prediction parts: each gold part's best; pottery 1, camping 0, painting 1 -> 2/3
    assert upstream_scoring.locomo_upstream_score(multi, "painting, pottery").score == pytest.approx(2 / 3, abs=1e-12)
    # category 5: the phrase rule only, no F1, no EM
    assert upstream_scoring.locomo_upstream_score(adversarial, "Not mentioned in the conversation") \
        == upstream_scoring.UpstreamScore(1.0, None)
    assert upstream_scoring.locomo_upstream_score(adversarial, "I do not have that information.").score == 0.0


@needs_nltk
def test_upstream_mode_equals_upstreams_scorer_on_the_labelled_answer_set(tmp_path: Path) -> None:
    """331 answers (inflections, typographic quotes, dashes, multi-hop lists, category 5 and more),
    loaded through the LoCoMo loader as one file and scored: every score equals upstream's to 1e-9."""
    answers = json.loads(ANSWERS.read_text(encoding="utf-8"))["answers"]
    assert len(answers) >= 300
    families = Counter(row["family"] for row in answers)
    for family in ("inflection", "quotes", "dashes", "multi-hop", "category-5"):
        assert families[family] >= 20, families
    record = locomo_record()
    record["qa"] = [{"question": row["id"], "evidence": ["D1:1"], "category": row["category"],
                     **({"answer": row["gold"]} if row["category"] != 5 else {"adversarial_answer": "x"})}
                    for row in answers]
    questions = load_locomo(write_locomo(tmp_path / "locomo10.json", [record])).questions
    assert [q.question for q in questions] == [row["id"] for row in answers]
    mismatches = []
    for question, row in zip(questions, answers):
        got = upstream_scoring.locomo_upstream_score(question, row["answer"])
        if abs(got.score - row["upstream"]) > 1e-9 or got.exact_match != row["upstream_em"]:
            mismatches.append((row["id"], row["answer"], row["gold"], got, row["upstream"], row["upstream_em"]))
    assert not mismatches, mismatches[:5]
    # the set is not trivial: the two readings disagree on a good share of it
    differ = sum(abs(upstream_scoring.locomo_upstream_score(q, r["answer"]).score
                     - token_f1(r["answer"], r["gold"], "locomo")) > 1e-9
                 for q, r in zip(questions, answers) if r["category"] in (2, 3, 4))
    assert differ >= 40


def test_upstream_scoring_without_nltk_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upstream_scoring, "upstream_available", lambda: False)
    with pytest.raises(upstream_scoring.UpstreamUnavailable) as caught:
        upstream_scoring.require_upstream()
    message = str(caught.value)
    assert "\n" not in message and "pip install 'pytest-typedmemeval[upstream]'" in message


def test_porter_needs_no_nltk_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("nltk", reason="the 'upstream' extra is not installed")
    import subprocess
    import sys

    # an empty NLTK_DATA and HOME: nothing to find, and the stemmer still stems
    env = {"NLTK_DATA": str(tmp_path), "HOME": str(tmp_path), "PATH": ""}
    code = "from nltk.stem.porter import PorterStemmer; print(PorterStemmer().stem('swedens'))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "sweden", done.stderr


# --- retrieval -----------------------------------------------------------------------------------


def test_locomo_recall_acc_by_hand(tmp_path: Path) -> None:
    record = locomo_record()
    record["qa"] = [{"question": "Q?", "answer": "x", "evidence": ["D1:1", "D1:3", "D2:1"], "category": 4}]
    question = load_locomo(write_locomo(tmp_path / "locomo10.json", [record])).questions[0]
    first = question.sessions[0].session_id
    # only session 1 retrieved: D1:1 and D1:3 are in it, D2:1 is not -> 2/3 (no k: the whole context)
    status, ranks = observe_upstream_ranks(question, [first])
    assert status == "observed" and ranks == ((0, 1), (1, 1), (2, None))
    assert locomo_recall_acc(ranks) == pytest.approx(2 / 3)
    result = run_dataset_question(RankingAgent("x", lambda sessions: [sessions[1].session_id]), question)
    # only session 2: 1/3
    assert result.retrieval("locomo_recall_acc") == {"recall_acc": pytest.approx(1 / 3)}
    assert observe_upstream_ranks(question, None) == ("unobserved", ())


def _lme_record() -> dict[str, Any]:
    """Six haystack sessions in date order: upstream labels answer_x_1 (twice: the haystack repeats
    it) and answer_x_2 relevant; answer_x_3 is not (its has_answer turn is the assistant's)."""
    def session(text: str, user_answer: bool, assistant_answer: bool = False) -> list[dict[str, Any]]:
        return [{"role": "user", "content": text, "has_answer": user_answer},
                {"role": "assistant", "content": "Noted.", "has_answer": assistant_answer}]

    ids = ["noise_1", "answer_x_1", "noise_2", "answer_x_2", "answer_x_1", "answer_x_3"]
    return {
        "question_id": "x", "question_type": "multi-session", "question": "Which two cities?",
        "answer": "Porto and Oslo", "question_date": "2023/06/30 (Fri) 10:00",
        "haystack_session_ids": ids,
        "haystack_dates": [f"2023/06/0{day} (Fri) 10:00" for day in range(1, 7)],
        "haystack_sessions": [session("Filler.", False), session("I went to Porto.", True), session("More.", False),
                              session("I went to Oslo.", True), session("I went to Porto.", True),
                              session("Tell me a joke.", False, assistant_answer=True)],
        "answer_session_ids": ["answer_x_1", "answer_x_2"],
    }


def test_longmemeval_upstream_labels_and_metrics_by_hand(tmp_path: Path) -> None:
    question = load_longmemeval(write_longmemeval(tmp_path / "lme.json", [_lme_record()])).questions[0]
    s = [session.session_id for session in question.sessions]
    # relevant positions 1, 3, 4; positions 1 and 4 are the same upstream document (answer_x_1)
    assert question.upstream_evidence == ((0, s[1]), (1, s[3]), (0, s[4]))
    # the adapter ranks answer_x_2, noise_1, noise_2, the repeat of answer_x_1, answer_x_3, answer_x_1
    order = [s[3], s[0], s[2], s[4], s[5], s[1]]
    result = run_dataset_question(RankingAgent("Porto and Oslo", lambda _: order), question)
    figures = result.retrieval("longmemeval")
    assert figures is not None
    ideal = 1 + 1 / math.log2(2) + 1 / math.log2(3)  # three relevant positions: ranks 1, 2, 3
    # k=5: relevant at ranks 1 (answer_x_2) and 4 (answer_x_1's repeat): both documents recalled;
    # DCG 1 + 1/log2(4) = 1.5 -> 1.5 / 2.63093 = 0.570141 (upstream eval_utils gives 0.5701406500739014)
    assert (figures["recall_any@5"], figures["recall_all@5"]) == (1.0, 1.0)
    assert figures["ndcg_any@5"] == pytest.approx(1.5 / ideal, abs=1e-12)
    # k=10: rank 6 too: DCG 1.5 + 1/log2(6) -> 0.717181 (upstream: 0.7171809907403115)
    assert figures["ndcg_any@10"] == pytest.approx((1.5 + 1 / math.log2(6)) / ideal, abs=1e-12)
    # TypedMemEval's own figure stays: answer_session_ids -> sessions 1, 3 and the repeat 4
    assert result.provenance == "observed" and result.evidence_ranks == (6, 1, 4)


def test_longmemeval_at_by_hand_and_upstreams_edge_cases() -> None:
    # relevant documents at ranks 2 and 7: k=5 recall_any 1, recall_all 0, NDCG (1/log2 2) / (1 + 1/log2 2) = 0.5
    assert longmemeval_at(((0, 2), (1, 7)), 5) == (1.0, 0.0, 0.5)
    # k=10: both in; DCG 1 + 1/log2(7) over ideal 2 -> 0.678104 (upstream: 0.6781035935540111)
    assert longmemeval_at(((0, 2), (1, 7)), 10) == pytest.approx((1.0, 1.0, (1 + 1 / math.log2(7)) / 2), abs=1e-12)
    # no relevant session (single-session-assistant upstream): any 0, all 1 (all of none), NDCG 0
    assert longmemeval_at((), 5) == (0.0, 1.0, 0.0)
    # nothing retrieved
    assert longmemeval_at(((0, None),), 10) == (0.0, 0.0, 0.0)


def test_single_session_assistant_and_abstention_retrieval_as_upstream(tmp_path: Path) -> None:
    questions = {q.question_id: q for q in load_longmemeval(write_longmemeval(tmp_path / "lme.json")).questions}
    # gpt4_91c3: its has_answer turn is the assistant's -> no upstream-relevant session
    assert questions["gpt4_91c3"].upstream_evidence == ()
    assert questions["e47becba_abs"].upstream_evidence is None  # upstream leaves _abs out
    every = lambda sessions: [x.session_id for x in sessions]  # noqa: E731
    assistant = run_dataset_question(RankingAgent("21", every), questions["gpt4_91c3"])
    assert assistant.retrieval("longmemeval") == {
        "recall_any@5": 0.0, "recall_all@5": 1.0, "ndcg_any@5": 0.0,
        "recall_any@10": 0.0, "recall_all@10": 1.0, "ndcg_any@10": 0.0}
    abstention = run_dataset_question(RankingAgent("I do not know.", every), questions["e47becba_abs"])
    assert abstention.upstream_retrieval == "not_applicable" and abstention.retrieval("longmemeval") is None
    clean = run_dataset_question(RankingAgent("copper", every), questions["e47becba"])
    unobserved = run_dataset_question(RankingAgent("copper"), questions["e47becba"])
    assert unobserved.upstream_retrieval == "unobserved"
    spec = load_longmemeval(tmp_path / "lme.json").spec
    figures = aggregate_results(spec, [clean, unobserved, assistant, abstention])
    # single-session-user line: one observed question, its evidence second of two -> any@5 1,
    # NDCG 1/log2(2) / 1 = 1.0
    line = next(f for f in figures.categories if f.category == "single-session-user")
    assert line.retrieval_n == 1 and line.retrieval_unobserved == 1
    assert line.retrieval["recall_any@5"] == 1.0 and line.retrieval["ndcg_any@5"] == 1.0


# --- scoring modes through the runner and the metrics file -----------------------------------------


@needs_nltk
def test_scoring_modes_decide_pass_and_travel_into_the_metrics(tmp_path: Path) -> None:
    record = locomo_record()
    record["qa"] = [{"question": "Where?", "answer": "Sweden", "evidence": ["D1:1"], "category": 4}]
    dataset = load_locomo(write_locomo(tmp_path / "locomo10.json", [record]))
    question = dataset.questions[0]
    agent = RankingAgent("Swedens")
    typed = run_dataset_question(agent, question, scoring="typed")
    assert (typed.correct, typed.f1, typed.upstream_score, typed.scored_by) == (False, 0.0, None, "typed")
    both = run_dataset_question(agent, question, scoring="both")
    assert (both.correct, both.upstream_score, both.upstream_exact_match, both.scored_by) \
        == (False, 1.0, False, "typed")
    upstream = run_dataset_question(agent, question, scoring="upstream")
    assert (upstream.correct, upstream.outcome, upstream.scored_by) == (True, "wrong", "upstream")
    assert "upstream score: 1.0000" in both.failure_text()
    document = metrics_document(dataset, [both], "both")
    assert document.scoring == "both" and document.schema_version == 2
    assert document.overall.upstream_mean == 1.0 and document.overall.f1_mean == 0.0
    assert document.scorer["upstream"]["reproduces"].startswith("snap-research/locomo task_eval/evaluation.py")
    assert "published_metric" in document.model_dump() and document.published_metric.startswith("token F1")


def test_per_category_counts_equal_the_files(tmp_path: Path) -> None:
    record, second = locomo_record(), locomo_record()
    second["sample_id"] = "conv-2"
    second["qa"] = second["qa"] + [dict(q, question=q["question"] + " (again)") for q in second["qa"]]
    path = write_locomo(tmp_path / "locomo10.json", [record, second])
    in_file = Counter(q["category"] for r in (record, second) for q in r["qa"])
    for principal in ("a", "b"):
        loaded = load_locomo(path, principal=principal)  # type: ignore[arg-type]
        assert Counter(q.upstream_category for q in loaded.questions) == in_file  # {4: 6, 2: 3, 1: 3, 3: 3, 5: 3}
        assert len(loaded.questions) == loaded.report.questions_in_file == 18


# --- Turn.timestamp ------------------------------------------------------------------------------


def test_turn_timestamps_where_the_dataset_has_them(tmp_path: Path) -> None:
    user = halumem_user()
    user["sessions"][1]["dialogue"][1]["timestamp"] = "whenever"
    halumem = load_halumem(write_halumem(tmp_path / "halumem.jsonl", [user]))
    question = halumem.questions[0]
    first, second = question.sessions
    assert [t.timestamp for t in first.turns] == [datetime(2025, 12, 15, 6, 11, 23)] * 2
    assert [t.timestamp for t in second.turns] == [datetime(2025, 12, 15, 6, 11, 23), None]
    assert halumem.report.defects["turn_without_timestamp"] == 1
    locomo = load_locomo(write_locomo(tmp_path / "locomo10.json"))
    longmemeval = load_longmemeval(write_longmemeval(tmp_path / "lme.json", longmemeval_records()))
    for loaded in (locomo, longmemeval):
        assert all(t.timestamp is None for q in loaded.questions for s in q.sessions for t in s.turns)


@needs_nltk
def test_the_readmes_side_by_side_figures_are_what_the_scorers_give() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("**Two readings, side by side**", 1)[1].split("**Retrieval, as each paper", 1)[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| gold")]
    numeric = [row for row in rows if not row[0].startswith("(")]
    assert len(numeric) == 5
    for gold, answer, upstream, typed, _ in numeric:
        assert f"{upstream_scoring.f1_score(answer, gold):.2f}" == upstream, (gold, answer)
        assert f"{token_f1(answer, gold, 'locomo'):.2f}" == typed, (gold, answer)
    answers = json.loads(ANSWERS.read_text(encoding="utf-8"))["answers"]
    from pytest_typedmemeval.datasets.scoring import multi_answer_f1

    def gold(row: dict[str, Any]) -> str:
        return row["gold"].split(";")[0].strip() if row["category"] == 3 else row["gold"]

    single = [r for r in answers if r["category"] in (2, 3, 4)]
    multi = [r for r in answers if r["category"] == 1]
    figures = (len(single), sum(r["upstream"] for r in single) / len(single),
               sum(token_f1(r["answer"], gold(r), "locomo") for r in single) / len(single),
               len(multi), sum(r["upstream"] for r in multi) / len(multi),
               sum(multi_answer_f1(r["answer"], r["gold"]) for r in multi) / len(multi))
    stated = (f"Over that set's {figures[0]} single-answer LoCoMo answers the upstream mean F1 is "
              f"{figures[1]:.3f} against {figures[2]:.3f} typed;\nover its {figures[3]} multi-hop answers, "
              f"{figures[4]:.3f} against {figures[5]:.3f}.")
    assert stated in section
