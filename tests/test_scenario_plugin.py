"""The scenario benchmark as a pytest user runs it (``--tme-scenarios``), through pytester.

What is proven here: the items (one per probe, one per scenario's formation) and their markers;
two runs give byte-identical ``--tme-scenario-report`` files equal to :func:`run_corpus`; a probe run
alone gives its full-run row; ``-n 2 --dist loadgroup`` gives the ``-n 0`` report; the syrupy
baseline records, passes, and names a changed behaviour as a regression; a run without a memory is
one usage error; a broken memory stops the run once.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_typedmemeval.scenarios import canonical_json, load_scenarios, run_corpus
from pytest_typedmemeval.scenarios.reference_memory import make_memory

MEMORY = ("--tme-scenario-memory", "reference-memory")
BASE = ("--tme-scenarios", *MEMORY, "-p", "no:cacheprovider")
SNAPSHOT = Path("typedmemeval", "scenarios", "__baseline__", "scenarios-v1.ambr")
NODE = "typedmemeval/scenarios/scenarios-v1::scenario"
NO_SUPERSEDE = """
from pytest_typedmemeval.scenarios.reference_memory import ReferenceMemory


def make():
    return ReferenceMemory(supersede=False)
"""


@pytest.fixture(scope="module")
def reference_bytes() -> str:
    return canonical_json(run_corpus(load_scenarios(), make_memory))


def _ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith(NODE)]


def test_items_markers_and_ids(pytester: pytest.Pytester) -> None:
    corpus = load_scenarios()
    result = pytester.runpytest(*BASE, "--co", "-q", "--strict-markers")
    ids = _ids(result)
    probes = [(s.id, p.id) for s in corpus.document.scenarios for p in s.probes]
    assert len(ids) == len(probes) + len(corpus.document.scenarios)
    assert f"{NODE}[mb-relocation-001/formation]" == ids[0]
    assert f"{NODE}[mb-relocation-001/p01]" in ids
    update = _ids(pytester.runpytest(*BASE, "--co", "-q", "--strict-markers", "-m", "scenario_update"))
    expected = sorted(f"{NODE}[{s.id}/{p.id}]" for s in corpus.document.scenarios for p in s.probes
                      if p.category == "update")
    assert sorted(update) == expected and expected
    # The vertical marker `temporal` and the scenario category marker do not clash.
    temporal = _ids(pytester.runpytest(*BASE, "--co", "-q", "--strict-markers", "-m", "scenario_temporal"))
    assert temporal and all("/p" in i for i in temporal)
    assert not _ids(pytester.runpytest(*BASE, "--co", "-q", "-m", "temporal"))


def test_two_runs_give_byte_identical_reports_equal_to_run_corpus(pytester: pytest.Pytester,
                                                                   reference_bytes: str) -> None:
    first = pytester.runpytest(*BASE, "--tme-scenario-report", "one.json")
    pytester.runpytest(*BASE, "--tme-scenario-report", "two.json")
    one, two = (pytester.path / "one.json").read_bytes(), (pytester.path / "two.json").read_bytes()
    assert one == two == reference_bytes.encode("ascii")
    # The reference memory renders one superseded statement (its own honest defect): that probe,
    # and only it, fails in the default mode, naming counters and never a statement.
    first.assert_outcomes(passed=79, failed=1)
    first.stdout.fnmatch_lines([
        "*mb-dietary-001/p01 (correction): forbidden statements reached the model: currency_violations=1 *",
        "*TypedMemEval scenarios*",
        "corpus scenarios-v1.json sha256 39998a91b3a6* (16 scenarios, 64 probes run)*",
        "category*probes*needed*e2e_rec*rec|form*noise_r",
        "all *64 *62 *54 *53 *0.855 *0.981 *0.568",
        "formation: expected 72 supported 58 *precision 0.537 recall 0.806",
    ])
    corpus = load_scenarios()
    dietary = next(s for s in corpus.document.scenarios if s.id == "mb-dietary-001")
    secrets = [*dietary.probes[0].forbidden_statements, *dietary.protected_statements]
    failure = "\n".join(line for line in first.outlines if "mb-dietary-001/p01 (correction)" in line)
    assert failure and not any(text.lower() in failure.lower() for text in secrets)


def test_one_probe_alone_gives_its_full_run_row(pytester: pytest.Pytester, reference_bytes: str) -> None:
    full = json.loads(reference_bytes)
    result = pytester.runpytest(*BASE, "-k", "mb-relocation-001/p03", "--tme-scenario-report", "alone.json")
    result.assert_outcomes(passed=1)
    alone = json.loads((pytester.path / "alone.json").read_text(encoding="ascii"))
    assert list(alone["probes"]) == ["mb-relocation-001/p03"]
    assert alone["probes"]["mb-relocation-001/p03"] == full["probes"]["mb-relocation-001/p03"]
    assert alone["formation"] == {"mb-relocation-001": full["formation"]["mb-relocation-001"]}
    # Issue 11's spelling of the memory option also works.
    spelled = pytester.runpytest("--tme-scenarios", "--tme-agent", "reference-memory", "-p", "no:cacheprovider",
                                 "-k", "mb-relocation-001/p03")
    spelled.assert_outcomes(passed=1)


def test_xdist_loadgroup_gives_the_serial_report(pytester: pytest.Pytester, reference_bytes: str) -> None:
    pytester.runpytest_subprocess(*BASE, "-n", "2", "--dist", "loadgroup", "--tme-scenario-report", "par.json")
    pytester.runpytest_subprocess(*BASE, "-n", "0", "--tme-scenario-report", "ser.json")
    assert (pytester.path / "par.json").read_bytes() == (pytester.path / "ser.json").read_bytes() \
        == reference_bytes.encode("ascii")


def test_baseline_records_passes_and_names_a_regression(pytester: pytest.Pytester) -> None:
    recorded = pytester.runpytest(*BASE, "--tme-baseline", "--snapshot-update")
    assert recorded.ret == pytest.ExitCode.OK
    text = (pytester.path / SNAPSHOT).read_text(encoding="utf-8")
    assert "# name: scenario[baseline]" in text and "# name: scenario[mb-relocation-001/p01]" in text
    assert "recorded_at" not in text and "time" not in text.split("# name: scenario[mb-")[0]

    again = pytester.runpytest(*BASE, "--tme-baseline")
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines(["baseline scenarios-v1.ambr:", "  identical to the recorded baseline"])

    # Issue 22, item 1: a run without --tme-baseline neither counts the baseline as unused nor
    # deletes it on --snapshot-update (the one known failing probe is deselected).
    plain = pytester.runpytest(*BASE, "-k", "not mb-dietary-001/p01", "--snapshot-update")
    assert plain.ret == pytest.ExitCode.OK
    assert not re.search(r"snapshots? unused|unused snapshots? deleted", plain.stdout.str())
    assert (pytester.path / SNAPSHOT).read_text(encoding="utf-8") == text

    pytester.makepyfile(no_supersede=NO_SUPERSEDE)
    pytester.syspathinsert()
    changed = pytester.runpytest("--tme-scenarios", "--tme-scenario-memory", "no_supersede:make",
                                 "-p", "no:cacheprovider", "--tme-baseline")
    assert changed.ret == pytest.ExitCode.TESTS_FAILED
    changed.stdout.fnmatch_lines([
        "*mb-relocation-001/p01 differs from its baseline row*",
        "regression: mb-relocation-001/p01 currency_violations: 0 -> 1",
        "*the scenario run differs from its baseline (no regression: FAIL; baseline current: FAIL;*",
    ])
    assert f"FAILED {NODE}[baseline]" in changed.stdout.str()
    assert f"{NODE}[mb-relocation-001/p02]" not in changed.stdout.str()  # unchanged rows pass
    assert (pytester.path / SNAPSHOT).read_text(encoding="utf-8") == text  # never re-recorded silently


def test_without_a_memory_the_run_is_one_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--tme-scenarios", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.str().count("TypedMemEval scenarios need a memory") == 1
    assert pytester.runpytest("--tme-scenarios", "--co", "-q").ret == pytest.ExitCode.OK
    bad = pytester.runpytest("--tme-scenarios", "--tme-scenario-memory", "no_such_module:make")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "cannot import module 'no_such_module'" in bad.stderr.str()


def test_without_a_memory_under_xdist_is_one_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--tme-scenarios", "-n", "2", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "TypedMemEval scenarios need a memory" in result.stderr.str()


def test_a_conftest_factory_fixture_is_the_memory(pytester: pytest.Pytester, reference_bytes: str) -> None:
    pytester.makeconftest("""
        import pytest
        from pytest_typedmemeval.scenarios.reference_memory import ReferenceMemory

        @pytest.fixture(scope="session")
        def typedmemeval_scenario_memory():
            return ReferenceMemory
    """)
    pytester.runpytest("--tme-scenarios", "-p", "no:cacheprovider", "--tme-scenario-report", "r.json")
    assert (pytester.path / "r.json").read_bytes() == reference_bytes.encode("ascii")


def test_a_memory_without_the_protocol_stops_the_run_once(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest

        class NotAMemory:
            def add_message(self, *args, **kwargs):
                pass

        @pytest.fixture(scope="session")
        def typedmemeval_scenario_memory():
            return NotAMemory
    """)
    result = pytester.runpytest("--tme-scenarios", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the scenario memory is not usable: the typedmemeval_scenario_memory fixture "
                                 "returned NotAMemory, which lacks form(), ask()*"])


def test_report_without_scenarios_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--tme-scenario-report", "r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_a_test_path_taken_by_the_optional_path_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest("--tme-scenarios", "test_x.py", "--tme-scenario-memory", "reference-memory")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*took 'test_x.py' as the scenario corpus: if it is a test path, put it "
                                 "before --tme-scenarios*"])


def test_memory_sources_follow_one_precedence_command_line_fixture_ini(pytester: pytest.Pytester) -> None:
    """Issue 22, item 2 (as for --tme-agent): --tme-scenario-memory over the fixture, the fixture
    over the ini key. The fixture here is a memory without the protocol, so which source answered
    shows in the outcome."""
    pytester.makeconftest("""
        import pytest

        class NotAMemory:
            pass

        @pytest.fixture(scope="session")
        def typedmemeval_scenario_memory():
            return NotAMemory
    """)
    flag = pytester.runpytest(*BASE, "-k", "mb-relocation-001/p03")
    flag.assert_outcomes(passed=1)
    ini = pytester.runpytest("--tme-scenarios", "-p", "no:cacheprovider", "-k", "mb-relocation-001/p03",
                             "-o", "typedmemeval_scenario_memory=reference-memory")
    ini.assert_outcomes(failed=1)
    ini.stdout.fnmatch_lines(["*the typedmemeval_scenario_memory fixture returned NotAMemory*"])
