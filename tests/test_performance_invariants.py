"""Cheap invariants behind the performance work of issue 13 (never wall-clock assertions: the
figures themselves are printed by ``benchmarks/bench_plugin_overhead.py``).

- Installed but not enabled, the plugin imports none of the heavy modules (P4).
- Freezing the collector's view of the loaded corpora and items changes nothing in the report, and
  the session thaws it when it ends.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest
from _support import fixture_corpus_files

HEAVY = ("pydantic", "pydantic_core", "numpy", "rank_bm25", "openai", "httpx",
         "pytest_typedmemeval.corpus.models", "pytest_typedmemeval.results", "pytest_typedmemeval.calls.budget",
         "pytest_typedmemeval.calls.caller")


def _imported_after(code: str) -> list[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def test_importing_the_plugin_imports_no_heavy_module() -> None:
    loaded = set(_imported_after("import pytest_typedmemeval.plugin"))
    assert "pytest_typedmemeval.plugin" in loaded
    assert sorted(loaded & set(HEAVY)) == []


def test_the_public_names_still_resolve_on_first_use() -> None:
    import pytest_typedmemeval

    for name in pytest_typedmemeval.__all__:
        assert getattr(pytest_typedmemeval, name) is not None, name
    with pytest.raises(AttributeError):
        pytest_typedmemeval.no_such_name  # noqa: B018


PROBE_CONFTEST = '''
import json, sys

def pytest_sessionfinish(session):
    heavy = HEAVY_NAMES
    with open("modules.json", "w") as handle:
        json.dump({"plugin": "pytest_typedmemeval.plugin" in sys.modules,
                   "heavy": sorted(name for name in heavy if name in sys.modules),
                   "scenarios": "pytest_typedmemeval.scenarios.models" in sys.modules}, handle)
'''


def test_an_unrelated_run_with_the_plugin_installed_imports_no_heavy_module(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PROBE_CONFTEST.replace("HEAVY_NAMES", repr(HEAVY)))
    pytester.makepyfile(test_unrelated="def test_one():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:syrupy")
    result.assert_outcomes(passed=1)
    seen = json.loads((pytester.path / "modules.json").read_text())
    assert seen["plugin"] is True
    assert seen["heavy"] == [] and seen["scenarios"] is False


def test_the_scenario_marker_categories_are_the_schemas() -> None:
    from pytest_typedmemeval.plugin.scenario_items import MARKER_CATEGORIES
    from pytest_typedmemeval.scenarios.models import CATEGORIES

    assert MARKER_CATEGORIES == CATEGORIES


def test_help_text_defaults_match_the_model_call_layer() -> None:
    from pytest_typedmemeval.calls import settings
    from pytest_typedmemeval.plugin import options

    assert options.DEFAULT_MAX_USD == settings.DEFAULT_MAX_USD
    assert options.DEFAULT_CONCURRENCY == settings.DEFAULT_CONCURRENCY


NO_FREEZE_CONFTEST = '''
from pytest_typedmemeval.plugin.session import TypedMemEvalSession

TypedMemEvalSession.freeze_gc = lambda self: None  # the run as it was before freezing
'''

AGENT_CONFTEST = '''
import pytest

class Echo:
    def reset(self): self.last = ""
    def ingest(self, session): self.last = session.turns[-1].content if session.turns else ""
    def answer(self, question, *, query_time, instruction): return self.last

@pytest.fixture(scope="session")
def typedmemeval_agent():
    return Echo()
'''


def _report_without_timing(pytester: pytest.Pytester, name: str, *args: str) -> str:
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, "--tme-fail-under", "0",
                                           f"--tme-report={name}")
    assert result.ret == 0, result.stdout.str()
    report = json.loads((pytester.path / name).read_text(encoding="utf-8"))
    report.pop("timing")
    return json.dumps(report, indent=2, sort_keys=True)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_report_is_the_same_with_and_without_freezing_the_collector(pytester: pytest.Pytester,
                                                                         workers: str) -> None:
    for path in fixture_corpus_files():
        pytester.path.joinpath(f"corpus_{path.name}").write_bytes(path.read_bytes())
    corpora = [f"--tme-corpus=corpus_{path.name}" for path in fixture_corpus_files()]
    pytester.makeconftest(AGENT_CONFTEST)
    frozen = _report_without_timing(pytester, "frozen.json", *corpora, "-n", workers)
    pytester.makeconftest(AGENT_CONFTEST + NO_FREEZE_CONFTEST)
    plain = _report_without_timing(pytester, "plain.json", *corpora, "-n", workers)
    assert frozen == plain
    assert json.loads(frozen)["questions"]


def test_the_session_thaws_what_it_froze(pytester: pytest.Pytester) -> None:
    if gc.get_freeze_count():
        pytest.skip("something else froze objects in this process")
    path = fixture_corpus_files()[0]
    pytester.path.joinpath(path.name).write_bytes(path.read_bytes())
    pytester.makeconftest(AGENT_CONFTEST)
    result = pytester.runpytest_inprocess(f"--tme-corpus={Path(path.name)}", "--tme-fail-under", "0",
                                          "-p", "no:xdist")
    assert result.ret == 0
    assert gc.get_freeze_count() == 0
