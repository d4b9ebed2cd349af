"""``--tme-dataset`` as a pytest user sees it (pytester): items, markers, summary, metrics, xdist.

Every dataset file is a tiny synthetic one in the upstream layout (``tests/_dataset_shapes.py``);
no real dataset file is ever read.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from pathlib import Path

import pytest

from _dataset_shapes import longmemeval_records, write_locomo, write_longmemeval
from _loopback_openai import LoopbackOpenAI
from _support import fixture_corpus_files, total_questions
from pytest_typedmemeval.datasets import upstream_scoring
from pytest_typedmemeval.gates.leaks import check_serialized_report

SECTION = "public memory datasets"

# A scripted adapter: answers from a table keyed by question text (a real adapter never sees
# gold). LoCoMo's single-hop question is answered wrongly on purpose; everything else is right.
CONFTEST = '''
import pytest
from pytest_typedmemeval import Answer, Evidence

ANSWERS = {
    "In which year did Ada buy the kettle?": "2021",
    "Where did Ada go and what did she buy?": "Lisbon, kettle",
    "What does Ada collect?": "coins",
    "What did Bo buy in Lisbon?": "That was not mentioned in our conversations.",
    "Would Ada enjoy a museum?": "Yes",
    "What colour is Bo's bike?": "green",
    "What colour is my kettle?": "copper",
    "What colour is my toaster?": "I do not have that information.",
    "How many gears did you say my bike has?": "21",
}


class Scripted:
    def __init__(self):
        self.sessions = []

    def reset(self):
        self.sessions = []

    def ingest(self, session):
        self.sessions.append(session)

    def answer(self, question, *, query_time, instruction):
        ids = tuple(s.session_id for s in self.sessions)
        return Answer(ANSWERS.get(question, "no idea"), Evidence(retrieved=ids))


@pytest.fixture(scope="session")
def typedmemeval_agent():
    return Scripted()
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A consumer project with a LoCoMo and a LongMemEval file and the scripted adapter."""
    write_locomo(pytester.path / "locomo10.json")
    write_longmemeval(pytester.path / "longmemeval_s.json")
    pytester.makeconftest(CONFTEST)
    return pytester


LOCOMO = "--tme-dataset=locomo=locomo10.json"
LONGMEMEVAL = "--tme-dataset=longmemeval=longmemeval_s.json"


def _section(result: pytest.RunResult) -> list[str]:
    """The dataset section of the terminal summary."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if SECTION in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("=")), len(lines))
    return lines[start + 1:end]


def _ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::dataset_question[" in line]


def test_locomo_one_item_per_scored_question_with_per_category_figures(project: pytest.Pytester) -> None:
    result = project.runpytest(LOCOMO, "-p", "no:cacheprovider", "-rf")
    # 6 QA in the file, 6 items: q001 (Bo's evidence) and q004 (no evidence) are scored too
    assert result.parseoutcomes() == {"passed": 5, "failed": 1}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED dataset/locomo::dataset_question[[]conv-1/q003[]]*"])
    section = _section(result)
    assert section[0].startswith("LoCoMo (licence CC BY-NC 4.0; file sha256 ")
    for line in ("  multi-hop: 1/1 correct*", "  temporal: 1/1 correct*", "  open-domain: 1/1 correct*",
                 "  single-hop: 1/2 correct*", "  adversarial: 1/1 correct*", "  abstention probes: 1/1 correct*",
                 "  overall: 5/6 correct*"):
        assert any(_match(text, line) for text in section), (line, section)
    # malformed evidence rows are counted in the summary, not fatal: q003 (malformed, dangling and
    # repaired references) still ran
    assert "  load: 6 of 6 questions loaded" in section
    assert any(text.startswith("  load: defect evidence_malformed: 1 (e.g. conv-1/q003)") for text in section)
    assert any(text.startswith("  load: defect no_resolvable_evidence: 1 (e.g. conv-1/q004)") for text in section)
    assert not any(text.startswith("  load: excluded") for text in section)
    assert any(text.startswith("  caveat: No model judge is used") for text in section)
    # the failure shows question, gold and answer
    result.stdout.fnmatch_lines(["*locomo conv-1/q003 (single-hop): wrong*", "*gold:     stamps*",
                                 "*answer:   coins*"])


def _match(text: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(text, pattern)


def test_longmemeval_assistant_category_on_its_own_line_and_abstention_items(project: pytest.Pytester) -> None:
    result = project.runpytest(LONGMEMEVAL, "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 3}
    assert result.ret == pytest.ExitCode.OK
    section = _section(result)
    assert section[0].startswith("LongMemEval (licence MIT; ")
    assert any(_match(t, "  single-session-user: 2/2 correct*") for t in section)
    assert any(_match(t, "  single-session-assistant: 1/1 correct*") for t in section)
    assert any(_match(t, "  abstention probes: 1/1 correct*") for t in section)
    assert any(_match(t, "  overall: 2/2 correct*(excluding single-session-assistant)") for t in section)
    assert any(t.startswith("  load: defect duplicate_session_id: 1") for t in section)
    # the abstention question is its own item, selected by its marker; its id carries no "_abs"
    abstention = project.runpytest(LONGMEMEVAL, "--co", "-q", "-m", "longmemeval_abstention", "--strict-markers")
    assert _ids(abstention) == ["dataset/longmemeval::dataset_question[q0001]"]
    everything = _ids(project.runpytest(LONGMEMEVAL, "--co", "-q"))
    assert len(everything) == 3 and not any("_abs" in i or "e47becba" in i for i in everything)


def test_markers_and_upstream_ids_select(project: pytest.Pytester) -> None:
    by_category = project.runpytest(LOCOMO, LONGMEMEVAL, "--co", "-q", "--strict-markers", "-m", "locomo_multi_hop")
    assert _ids(by_category) == ["dataset/locomo::dataset_question[conv-1/q002]"]
    assert by_category.ret == pytest.ExitCode.OK
    by_upstream_id = project.runpytest(LOCOMO, LONGMEMEVAL, "--co", "-q", "-k", "e47becba_abs")
    assert _ids(by_upstream_id) == ["dataset/longmemeval::dataset_question[q0001]"]
    by_dataset = project.runpytest(LOCOMO, LONGMEMEVAL, "--co", "-q", "--strict-markers", "-m", "locomo")
    assert len(_ids(by_dataset)) == 6
    as_bo = project.runpytest(LOCOMO, "--tme-dataset-principal", "b", "--co", "-q")
    assert _ids(as_bo) == _ids(by_dataset)  # the principal sets roles only: every question is collected
    sampled = project.runpytest(LOCOMO, "--tme-dataset-sample", "2", "--tme-dataset-seed", "3", "--co", "-q")
    assert len(_ids(sampled)) == 2
    # a run limited by -m reports only what it selected
    run = project.runpytest(LOCOMO, LONGMEMEVAL, "-m", "locomo_single_hop", "-p", "no:cacheprovider")
    section = _section(run)
    assert section[0].startswith("LoCoMo ") and not any(t.startswith("LongMemEval") for t in section)
    assert any(_match(t, "  overall: 1/2 correct*") for t in section)


def test_a_file_that_is_not_the_dataset_is_one_usage_error(project: pytest.Pytester) -> None:
    records = longmemeval_records()
    del records[1]["question_date"]
    write_longmemeval(project.path / "broken.json", records)
    result = project.runpytest("--tme-dataset=longmemeval=broken.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert "broken.json" in errors[0] and "question e47becba_abs" in errors[0]
    assert "field question_date" in errors[0]
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    # a LoCoMo file named as LongMemEval: the same, naming the field it lacks
    wrong_kind = project.runpytest("--tme-dataset=longmemeval=locomo10.json")
    assert wrong_kind.ret == pytest.ExitCode.USAGE_ERROR
    wrong_kind.stderr.fnmatch_lines(["ERROR: --tme-dataset longmemeval: *locomo10.json: field [[]0[]].question_id: *"])
    unknown = project.runpytest("--tme-dataset=nope=x.json")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(["*unknown dataset 'nope'*"])


def test_no_adapter_is_one_usage_error(pytester: pytest.Pytester) -> None:
    write_locomo(pytester.path / "locomo10.json")
    result = pytester.runpytest(LOCOMO)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.str().count("override the `typedmemeval_agent` fixture") == 1
    assert SECTION not in result.stdout.str()
    result.stdout.no_fnmatch_line("*passed*")
    result.stdout.no_fnmatch_line("*failed*")
    assert pytester.runpytest(LOCOMO, "--co", "-q").ret == pytest.ExitCode.OK  # collecting needs none
    parallel = pytester.runpytest_subprocess(LOCOMO, "-n", "2")
    assert parallel.ret == pytest.ExitCode.USAGE_ERROR
    assert parallel.stderr.str().count("override the `typedmemeval_agent` fixture") == 1


def test_reference_agent_runs_a_dataset_alone(pytester: pytest.Pytester) -> None:
    write_locomo(pytester.path / "locomo10.json")
    result = pytester.runpytest(LOCOMO, "--tme-agent", "reference", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 6
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    assert any(_match(t, "  overall: */6 correct*") for t in _section(result))


def test_xdist_gives_the_same_summary_and_metrics_and_no_path_in_the_metrics(project: pytest.Pytester) -> None:
    args = (LOCOMO, LONGMEMEVAL, "--tme-dataset-metrics", "metrics", "-p", "no:cacheprovider")
    serial = project.runpytest_subprocess(*args, "-n", "0")
    metrics = project.path / "metrics"
    serial_files = {p.name: p.read_bytes() for p in sorted(metrics.iterdir())}
    parallel = project.runpytest_subprocess(*args, "-n", "2")
    parallel_files = {p.name: p.read_bytes() for p in sorted(metrics.iterdir())}
    assert sorted(serial_files) == ["locomo-metrics.json", "longmemeval-metrics.json"]
    assert serial_files == parallel_files
    assert _section(serial) == _section(parallel)
    assert serial.parseoutcomes() == parallel.parseoutcomes() == {"passed": 8, "failed": 1}

    for name, source in (("locomo", "locomo10.json"), ("longmemeval", "longmemeval_s.json")):
        text = serial_files[f"{name}-metrics.json"].decode("utf-8")
        document = json.loads(text)
        assert document["dataset"] == name
        assert document["file_sha256"] == hashlib.sha256((project.path / source).read_bytes()).hexdigest()
        assert str(project.path) not in text and source not in text and "/tmp" not in text
        assert "What colour is my kettle?" not in text and "coins" not in text  # no questions, no answers
    locomo = json.loads(serial_files["locomo-metrics.json"])
    assert locomo["results"] == 6 and locomo["overall"]["correct"] == 5
    assert locomo["load"]["defects"]["evidence_malformed"] == 1


def test_combined_run_keeps_dataset_results_out_of_the_typedmemeval_report(project: pytest.Pytester) -> None:
    corpus = fixture_corpus_files()[0]
    project.path.joinpath("c.json").write_bytes(corpus.read_bytes())
    report_path = project.path / "report.json"
    result = project.runpytest("--tme-corpus=c.json", LONGMEMEVAL, LOCOMO, "--tme-report", str(report_path),
                               "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    n_corpus = total_questions([corpus])
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == n_corpus + 9  # both sets ran
    text = report_path.read_text(encoding="utf-8")
    assert "longmemeval" not in text.casefold() and "locomo" not in text.casefold()
    assert check_serialized_report(text).passed
    report = json.loads(text)
    assert len(report["questions"]) == report["selected"] == n_corpus
    assert not any(q["question_id"].startswith(("conv-", "e47becba", "gpt4_")) for q in report["questions"])
    # the TypedMemEval summary and the dataset section both appear, apart
    result.stdout.fnmatch_lines(["*= TypedMemEval =*", "*= public memory datasets*"])
    # with the shipped corpora too, both sets are collected
    shipped = project.runpytest("--typedmemeval", LONGMEMEVAL, "--co", "-q")
    ids = [line for line in shipped.outlines if "::question[" in line]
    assert ids and len(_ids(shipped)) == 3


def test_llm_reference_agent_answers_dataset_questions_under_xdist(
        pytester: pytest.Pytester, loopback_openai: LoopbackOpenAI) -> None:
    """A dataset-only run reads the model options itself: every worker shares one spend ledger."""
    loopback_openai.script = lambda body: "copper"
    write_longmemeval(pytester.path / "longmemeval_s.json")
    result = pytester.runpytest_subprocess(
        LONGMEMEVAL, "--tme-agent", "llm-full-context", "--tme-model", "m", "--tme-base-url",
        loopback_openai.base_url, "--tme-allow-unpriced", "--tme-no-cache", "-n", "2", "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 1, "failed": 2}, result.stderr.str()
    section = _section(result)
    assert any(_match(t, "  single-session-user: 1/2 correct*") for t in section)
    assert any(_match(t, "model: llm-full-context asked m at *3 call(s)*") for t in section)
    assert len(loopback_openai.requests) == 3


needs_nltk = pytest.mark.skipif(not upstream_scoring.upstream_available(),
                                reason="upstream scoring needs the 'upstream' extra (pip install '.[upstream]')")


@needs_nltk
def test_scoring_modes_in_the_summary_and_the_metrics(project: pytest.Pytester) -> None:
    both = project.runpytest(LOCOMO, "--tme-dataset-metrics", "m", "-p", "no:cacheprovider")
    section = _section(both)
    # the default prints both readings side by side; the typed one decides pass/fail
    assert any(_match(t, "  multi-hop: 1/1 correct, mean F1 1.000, EM 1, * | upstream F1 1.000 over 1 (1 >= 0.5), "
                         "EM 1 | recall_acc 1.000 over 1") for t in section), section
    assert any(_match(t, "  * correct means token F1 >= 0.5 *; beside it, upstream F1 is the dataset's own scorer*")
               for t in section)
    assert any(t.startswith("  published metric: token F1 of task_eval/evaluation.py") for t in section)
    metrics = json.loads((project.path / "m" / "locomo-metrics.json").read_text(encoding="utf-8"))
    assert metrics["scoring"] == "both" and metrics["overall"]["upstream_n"] == 6
    assert metrics["scorer"]["upstream"]["nltk"]

    upstream = project.runpytest(LOCOMO, "--tme-dataset-scoring", "upstream", "-p", "no:cacheprovider")
    assert upstream.parseoutcomes() == {"passed": 5, "failed": 1}
    section = _section(upstream)
    assert any(_match(t, "  multi-hop: upstream F1 1.000 over 1 (1 >= 0.5), EM 1 | recall_acc 1.000 over 1")
               for t in section), section
    assert any(_match(t, "  * correct means upstream score >= 0.5*") for t in section)

    typed = project.runpytest(LOCOMO, LONGMEMEVAL, "--tme-dataset-scoring", "typed", "-p", "no:cacheprovider")
    section = _section(typed)
    assert not any("upstream F1" in t for t in section)
    # LongMemEval's own retrieval figures are there in every mode, beside TypedMemEval's
    assert any(_match(t, "  single-session-user: 2/2 correct, *evidence-session R@1*| recall_any@5 1.000, "
                         "recall_all@5 1.000, ndcg_any@5 *over 1") for t in section), section
    assert any(t.startswith("  published metric: QA accuracy by a GPT-4o judge") for t in section)


def test_without_the_upstream_extra(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upstream_scoring, "upstream_available", lambda: False)
    refused = project.runpytest(LOCOMO, "--tme-dataset-scoring", "upstream")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in refused.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and "pip install 'pytest-typedmemeval[upstream]'" in errors[0]
    # the default (both) runs as typed and says so once, in LoCoMo's section
    fallback = project.runpytest(LOCOMO, "-p", "no:cacheprovider")
    assert fallback.parseoutcomes() == {"passed": 5, "failed": 1}
    section = _section(fallback)
    notices = [t for t in section if t.startswith("  notice: ")]
    assert notices == ["  notice: --tme-dataset-scoring both: typed reading only; the upstream figures need "
                       "NLTK's Porter stemmer (pip install 'pytest-typedmemeval[upstream]')"]
    assert not any("upstream F1" in t for t in section)
    # a dataset with no upstream token metric needs no extra, whatever the mode
    assert project.runpytest(LONGMEMEVAL, "--tme-dataset-scoring", "upstream",
                             "-p", "no:cacheprovider").parseoutcomes() == {"passed": 3}
    alone = project.runpytest("--tme-dataset-scoring", "typed")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(["ERROR: --tme-dataset-scoring applies to the datasets named by --tme-dataset*"])
