"""The gate registry: names, running the corpus gates, self-tests, the table and the JSON.

"""

from __future__ import annotations

import importlib
import json
import math
from types import ModuleType, SimpleNamespace

import pytest

from pytest_typedmemeval.gates.result import GateResult, Refusal

SIBLINGS = ("structure", "separability", "calibration", "leaks", "adversaries", "probes", "baseline")


@pytest.fixture(scope="module")
def registry() -> ModuleType:
    return importlib.import_module("pytest_typedmemeval.gates.registry")


def _result(gate, status, corpus_id="typedmemeval-arithmetic-v1", refusals=0, measured=None,
            skip_reason=None):
    return GateResult(gate, corpus_id, status,
                      refusals=tuple(Refusal("r", f"s{i}", i, "d", vertical="arithmetic")
                                     for i in range(refusals)),
                      measured=measured or {}, skip_reason=skip_reason)


def test_corpus_gates_in_report_order(registry):
    assert list(registry.GATES) == ["structure", "separability", "calibration", "leaks", "adversaries",
                                    "probes"]
    for name, module in registry.GATES.items():
        assert module.__name__ == f"pytest_typedmemeval.gates.{name}"
        assert callable(module.check) and callable(module.self_test)


def test_self_tests_run_for_every_gate(registry):
    outcomes = registry.run_self_tests()
    assert set(outcomes) == set(SIBLINGS)
    assert all(outcomes[name] for name in SIBLINGS)
    for name in SIBLINGS:
        failed = [case.name for case in outcomes[name] if not case.ok]
        assert not failed, (name, failed)


def test_a_crashing_self_test_is_a_failing_case(registry, monkeypatch):
    def boom():
        raise RuntimeError("self-test exploded")

    monkeypatch.setitem(registry.SELF_TESTED, "leaks", SimpleNamespace(self_test=boom))
    cases = registry.run_self_tests()["leaks"]
    assert len(cases) == 1 and not cases[0].ok
    assert "self-test exploded" in cases[0].detail


def test_run_corpus_gates_passes_require_probes_and_keeps_order(registry, monkeypatch):
    calls = []

    def fake(name):
        def check(corpus, **kwargs):
            calls.append((name, kwargs))
            return _result(name, "passed", corpus_id=corpus.corpus_id)
        return SimpleNamespace(check=check)

    monkeypatch.setattr(registry, "GATES", {name: fake(name) for name in registry.GATES})
    corpus = SimpleNamespace(corpus_id="c")
    results = registry.run_corpus_gates(corpus, require_probes=True)
    assert [r.gate for r in results] == list(registry.GATES)
    assert ("probes", {"require_probes": True}) in calls
    assert ("leaks", {}) in calls


def test_a_raising_gate_becomes_a_refusal_not_a_gap(registry, monkeypatch):
    def check(corpus, **kwargs):
        raise ValueError("bad bytes")

    monkeypatch.setattr(registry, "GATES", {"leaks": SimpleNamespace(check=check)})
    [result] = registry.run_corpus_gates(SimpleNamespace(corpus_id="c"))
    assert result.status == "refused"
    assert result.refused_rules() == {"gate_error"}
    assert "bad bytes" in result.refusals[0].detail


def test_run_corpus_gates_on_a_real_corpus(registry):
    from pytest_typedmemeval.gates.selftest import leaks as leak_fixtures

    corpus = leak_fixtures._corpus(leak_fixtures._clean_records(), "registry")
    results = registry.run_corpus_gates(corpus)
    assert [r.gate for r in results] == list(registry.GATES)
    by_gate = {r.gate: r for r in results}
    assert by_gate["leaks"].status == "passed"
    assert by_gate["probes"].status == "skipped"  # no sidecar: not measured, never passed
    assert by_gate["probes"].skip_reason
    assert by_gate["adversaries"].status == "skipped"  # no revision in the id: measured, not enforced
    assert "predates" in (by_gate["adversaries"].skip_reason or "")


def test_table_has_one_row_per_corpus_with_verdicts_and_worst_figures(registry):
    results = {
        "typedmemeval-arithmetic-v1": [
            _result("structure", "passed"),
            _result("separability", "refused", refusals=2, measured={"worst": {"auc": {"value": 0.812}}}),
            _result("calibration", "passed", measured={"coverage_by_shape": {
                "sum": {"mean": 0.84}, "delta": {"mean": 0.52}, "never": {"mean": None}}}),
            _result("leaks", "refused", refusals=3),
            _result("probes", "skipped", skip_reason="probe arms not measured: sum/V1"),
        ],
        "my-corpus": [_result("leaks", "passed", corpus_id="my-corpus")],
    }
    table = registry.render_table(results)
    lines = table.splitlines()
    assert lines[0].split() == ["corpus", "(vertical)", "structure", "separability", "calibration",
                                "leaks", "adversaries", "probes"]
    row = next(line for line in lines if line.startswith("typedmemeval-arithmetic-v1 (arithmetic)"))
    assert "REFUSED AUC 0.812" in row
    assert "passed cov 0.840" in row
    assert "REFUSED 3 refusals" in row
    assert "skipped" in row
    other = next(line for line in lines if line.startswith("my-corpus"))
    assert other.split()[1:] == ["-", "-", "-", "passed", "-", "-"]
    assert "typedmemeval-arithmetic-v1/probes skipped: probe arms not measured: sum/V1" in table
    assert "2 corpus/corpora, 2 gate(s) REFUSED, 1 skipped" in table


def test_probes_worst_figure_is_the_lowest_headroom(registry):
    result = _result("probes", "passed", measured={"worst_headroom": 0.17})
    assert registry.worst_figure(result) == "headroom 0.170"


def test_adversaries_worst_figure_is_the_learned_gold_at_1_even_when_skipped(registry):
    measured = {"worst": {"learned_gold_at_1": {"value": 1.0, "shape": "due-later"}}}
    result = _result("adversaries", "skipped", measured=measured, skip_reason="predates")
    assert registry.worst_figure(result) == "g@1 1.000"


def test_json_is_versioned_plain_data(registry):
    results = {"typedmemeval-arithmetic-v1": [
        _result("probes", "refused", refusals=1,
                measured={"pairs": {"separation_sd": math.inf}, "ids": ("a", "b"), "set": {"x"}}),
    ]}
    data = registry.results_to_json(results)
    text = json.dumps(data, allow_nan=False, sort_keys=True)
    assert data["version"] == registry.JSON_VERSION
    corpus = data["corpora"]["typedmemeval-arithmetic-v1"]
    assert corpus["vertical"] == "arithmetic"
    gate = corpus["gates"]["probes"]
    assert gate["status"] == "refused" and gate["refused_rules"] == ["r"]
    assert gate["measured"] == {"pairs": {"separation_sd": "inf"}, "ids": ["a", "b"], "set": ["x"]}
    assert data["summary"] == {"passed": 0, "refused": 1, "skipped": 0}
    assert "longmemeval" not in text.lower()


def test_real_gate_results_serialise(registry):
    from pytest_typedmemeval.gates import leaks, probes
    from pytest_typedmemeval.gates.selftest import probes as probe_fixtures

    corpus = probe_fixtures._corpus("json", [probe_fixtures._question(1, "where")], [])
    results = {corpus.corpus_id: [leaks.check(corpus), probes.check(corpus)]}
    json.dumps(registry.results_to_json(results), allow_nan=False)
    assert leaks.check_serialized_report(json.dumps(registry.results_to_json(results))).passed
