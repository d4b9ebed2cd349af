"""Dataset items are collected under the rootdir (issue 23, item 4): the hooks of the rootdir
``conftest.py`` reach them as they reach the user's own tests, and a ``conftest.py`` elsewhere
does not.

Every dataset file is a tiny synthetic one in the upstream layout (``tests/_dataset_shapes.py``).
"""

from __future__ import annotations

import pytest

from _dataset_shapes import write_locomo, write_longmemeval

LOCOMO = "--tme-dataset=locomo=locomo10.json"
LONGMEMEVAL = "--tme-dataset=longmemeval=longmemeval_s.json"

RECORDING_HOOKS = '''
from pathlib import Path

LOG = Path(__file__).resolve().parent / {log!r}


def _record(line):
    with LOG.open("a", encoding="utf-8") as handle:
        handle.write(line + "\\n")


def pytest_runtest_setup(item):
    _record(f"setup {{item.nodeid}}")


def pytest_runtest_logreport(report):
    _record(f"logreport {{report.when}} {{report.outcome}} {{report.nodeid}}")
'''

ADAPTER = '''
import pytest
from pytest_typedmemeval import Answer, Evidence


class AlwaysCoins:
    """Answers every question "coins": wrong for every question of the LoCoMo file."""

    def reset(self):
        pass

    def ingest(self, session):
        pass

    def answer(self, question, *, query_time, instruction):
        return Answer("coins", Evidence())


@pytest.fixture(scope="session")
def typedmemeval_agent():
    return AlwaysCoins()
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A consumer project: a LoCoMo and a LongMemEval file, a rootdir conftest with the adapter and
    recording hooks, a conftest in a test directory with recording hooks of its own, one test."""
    write_locomo(pytester.path / "locomo10.json")
    write_longmemeval(pytester.path / "longmemeval_s.json")
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(ADAPTER + RECORDING_HOOKS.format(log="root-hooks.log"))
    tests = pytester.mkdir("tests")
    tests.joinpath("conftest.py").write_text(RECORDING_HOOKS.format(log="tests-hooks.log"), encoding="utf-8")
    tests.joinpath("test_own.py").write_text("def test_own():\n    pass\n", encoding="utf-8")
    return pytester


def _log(project: pytest.Pytester, name: str) -> list[str]:
    path = project.path / name
    if name.startswith("tests-"):
        path = project.path / "tests" / name
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _dataset_ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::dataset_question[" in line]


@pytest.mark.parametrize("where", ["rootdir", "a test directory"])
def test_rootdir_conftest_hooks_see_every_dataset_item(project: pytest.Pytester, where: str) -> None:
    args = [LOCOMO, LONGMEMEVAL, "-p", "no:cacheprovider"]
    if where != "rootdir":
        args.append("tests")  # the rootdir is then reached only as the parent of the argument
    result = project.runpytest(*args)
    ids = _dataset_ids(project.runpytest(LOCOMO, LONGMEMEVAL, "--co", "-q", "-p", "no:cacheprovider"))
    assert len(ids) == 9
    root = _log(project, "root-hooks.log")
    for nodeid in ids:
        assert f"setup {nodeid}" in root
        assert any(line.startswith("logreport call ") and line.endswith(f" {nodeid}") for line in root), nodeid
    # the failures the hooks saw are the run's
    failed = [line.rsplit(" ", 1)[1] for line in root if line.startswith("logreport call failed ")]
    assert len(failed) == result.parseoutcomes()["failed"]
    # the user's own test is seen by both conftests; the dataset items only by the rootdir one
    assert "setup tests/test_own.py::test_own" in root
    assert _log(project, "tests-hooks.log") == [
        "setup tests/test_own.py::test_own", "logreport setup passed tests/test_own.py::test_own",
        "logreport call passed tests/test_own.py::test_own", "logreport teardown passed tests/test_own.py::test_own"]


def test_node_ids_and_selection_are_unchanged(project: pytest.Pytester) -> None:
    ids = _dataset_ids(project.runpytest(LOCOMO, "--co", "-q", "-p", "no:cacheprovider"))
    assert ids[:2] == ["dataset/locomo::dataset_question[conv-1/q000]", "dataset/locomo::dataset_question[conv-1/q001]"]
    # --lf finds the failed dataset items again (and only them: the LongMemEval ones passed or
    # were not run)
    first = project.runpytest(LOCOMO, "-q")
    assert first.parseoutcomes() == {"passed": 1, "failed": 6}
    again = project.runpytest(LOCOMO, LONGMEMEVAL, "--lf", "-q")
    assert again.parseoutcomes() == {"failed": 6, "deselected": 4}
    tree = project.runpytest(LOCOMO, LONGMEMEVAL, "--co", "-p", "no:cacheprovider")
    tree.stdout.fnmatch_lines(["*<DatasetDirectory dataset>", "*<DatasetModule locomo>",
                               "*<Function dataset_question[[]conv-1/q000[]]>", "*<DatasetModule longmemeval>"])


def test_xdist_workers_and_controller_run_the_rootdir_hooks(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(LOCOMO, "-n", "2", "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 1, "failed": 6}  # tests/test_own.py passes
    root = _log(project, "root-hooks.log")
    ids = {line.split(" ", 1)[1] for line in root if line.startswith("setup dataset/")}
    assert len(ids) == 6  # setup on the workers
    # logreport on the workers and on the controller: every item's call report at least twice
    for nodeid in ids:
        assert sum(line.startswith("logreport call ") and line.endswith(f" {nodeid}") for line in root) >= 2
