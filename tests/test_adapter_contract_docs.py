"""What an adapter is given and may give back, as the README documents it (issue 22, item 9).

Each documented fact is checked twice: the behaviour itself, and that the README's "Your adapter"
section states it — the full instruction texts are compared with what the shipped corpora give, so
the documentation cannot drift from the corpora.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _support import ORACLE_CONFTEST, fixture_corpus_files

from pytest_typedmemeval import shipped_corpora
from pytest_typedmemeval.adapter.projection import adapter_view, instruction_for

README = Path(__file__).resolve().parents[1] / "README.md"


def _adapter_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## Your adapter", 1)[1].split("\n## ", 1)[0]


def test_the_readme_gives_every_shipped_instruction_in_full() -> None:
    section = _adapter_section()
    given = {instruction_for(record) for corpus in shipped_corpora() for record in corpus.records}
    assert given and all(f"`{text}`" in section for text in given), sorted(given)


def test_times_are_naive_as_the_readme_says() -> None:
    record = shipped_corpora()[0].records[0]
    view = adapter_view(record)
    assert view.query_time.tzinfo is None and all(s.timestamp.tzinfo is None for s in view.sessions)
    assert "**Times are naive.**" in _adapter_section() and "tzinfo is None" in _adapter_section()


FUNCTION_SCOPED = ORACLE_CONFTEST.replace('@pytest.fixture(scope="session")', "@pytest.fixture") + '''

BUILT = []

_make = ScriptedAgent.__init__
def _init(self):
    BUILT.append(self)
    _make(self)
ScriptedAgent.__init__ = _init

def pytest_sessionfinish(session):
    import json
    with open("built.json", "w") as handle:
        json.dump({"built": len(BUILT), "resets": [a.resets for a in BUILT]}, handle)
'''

LIST_EVIDENCE = ORACLE_CONFTEST.replace("Evidence(retrieved=ids, context=ids)",
                                        "Evidence(retrieved=list(ids), context=list(ids))")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    for path in fixture_corpus_files()[:2]:
        shutil.copy(path, pytester.path / f"corpus_{path.name}")
    return pytester


def _run(project: pytest.Pytester, conftest: str, report: str) -> dict:
    project.makeconftest(conftest)
    files = [f"--tme-corpus={p.name}" for p in sorted(project.path.glob("corpus_*.json"))]
    result = project.runpytest_subprocess(*files, "--tme-report", report, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    return json.loads((project.path / report).read_text(encoding="utf-8"))


def test_a_function_scoped_adapter_fixture_gets_a_fresh_adapter_per_question(project: pytest.Pytester) -> None:
    report = _run(project, FUNCTION_SCOPED, "r.json")
    built = json.loads((project.path / "built.json").read_text(encoding="utf-8"))
    assert built["built"] == len(report["questions"]) > 1
    assert all(resets >= 1 for resets in built["resets"])  # reset() is still called
    assert "function-scoped `typedmemeval_agent`" in _adapter_section()


def test_list_valued_evidence_gives_the_same_coverage_as_tuples(project: pytest.Pytester) -> None:
    tuples = _run(project, ORACLE_CONFTEST, "tuples.json")
    lists = _run(project, LIST_EVIDENCE, "lists.json")

    def coverage(report: dict) -> list[tuple]:
        return [(q["question_id"], q["coverage"], q["attribution"]) for q in report["questions"]]

    assert coverage(lists) == coverage(tuples)
    assert any(q["coverage"] is not None for q in lists["questions"])
    assert "**Evidence lists.**" in _adapter_section()
