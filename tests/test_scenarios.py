"""The scenario benchmark's deterministic core: schema rules, the shipped corpus, the reference
memory, metrics with not-measured semantics, and the baseline comparison."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pydantic
import pytest

from pytest_typedmemeval.adapter.protocol import Session, Turn
from pytest_typedmemeval.adapter.factories import check_agent
from pytest_typedmemeval.scenarios import (CATEGORIES, ScenarioCorpusError, canonical_json, compare,
                                           load_scenarios, prepare_scenario, run_corpus, run_probe,
                                           run_scenario)
from pytest_typedmemeval.scenarios.extraction import clauses
from pytest_typedmemeval.scenarios.matching import contains, normalise
from pytest_typedmemeval.scenarios.reference_memory import ReferenceMemory, make_agent, make_memory
from pytest_typedmemeval.scenarios.rules import is_protected_abstention_scenario
from pytest_typedmemeval.scenarios.timeline import covered_days

from _scenario_support import (FailingMemory, Mutation, TextOnlyMemory, TracingChunkMemory, belief,
                                probe, scenario, write_mutated)

REL = "mb-relocation-001"
TWO = "mb-two-projects-001"


@pytest.fixture(scope="module")
def corpus() -> Any:
    return load_scenarios()


@pytest.fixture(scope="module")
def reference_run(corpus: Any) -> dict[str, Any]:
    return run_corpus(corpus, make_memory)


# --- schema and rules: one defect per rule, each refused with a one-line error -------------------

def _set(path: list[Any], value: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _probe_edit(scenario_id: str, probe_id: str, **changes: Any) -> Mutation:
    return lambda data: probe(data, scenario_id, probe_id).update(changes)


def _belief_edit(scenario_id: str, which: str, **changes: Any) -> Mutation:
    return lambda data: belief(data, scenario_id, which).update(changes)


def _scenario_edit(scenario_id: str, **changes: Any) -> Mutation:
    return lambda data: scenario(data, scenario_id).update(changes)


def _drop_protected_abstention(data: dict[str, Any]) -> None:
    for item in data["scenarios"][1:]:
        item["protected_statements"] = []


def _only_two_of_category(data: dict[str, Any]) -> None:
    # Abstention has 5 probes; removing 3 leaves 2 (the protected-scenario count stays at 4 or
    # more only if the corpus rule for categories is checked first, which it is).
    removed = 0
    for item in data["scenarios"]:
        for entry in list(item["probes"]):
            if entry["category"] == "abstention" and removed < 3 and len(item["probes"]) > 1:
                item["probes"].remove(entry)
                removed += 1


DEFECTS: list[tuple[str, Mutation, tuple[str, ...]]] = [
    ("unknown key", _probe_edit(REL, "p01", hint="x"), (REL, "probe p01", "field hint", "Extra inputs")),
    ("schema version", _set(["schema_version"], 2), ("field schema_version",)),
    ("blank abstain phrase", _set(["abstain_phrase"], " . "), ("field abstain_phrase", "normalisation")),
    ("too few scenarios", lambda d: d.update(scenarios=d["scenarios"][:11]), ("field scenarios", "12")),
    ("scenario id", _scenario_edit(REL, id="relocation-1"), ("scenario relocation-1", "field id")),
    ("naive start_at", _scenario_edit(REL, start_at="2025-01-06T09:15:00"), (REL, "field start_at")),
    ("one session", lambda d: scenario(d, REL).update(sessions=scenario(d, REL)["sessions"][:1]),
     (REL, "field sessions")),
    ("seven probes", lambda d: scenario(d, REL)["probes"].extend(
        [dict(probe(d, REL, "p01"), id=f"p{n}") for n in (11, 12, 13)]), (REL, "field probes")),
    ("session id", lambda d: scenario(d, REL)["sessions"][0].update(id="session1"),
     (REL, "field sessions[0].id")),
    ("scope pattern", lambda d: scenario(d, TWO)["sessions"][0].update(project_scope="Atlas API"),
     (TWO, "field sessions[0].project_scope")),
    ("negative advance", _probe_edit(REL, "p02", advance_seconds=-5), (REL, "probe p02", "field advance_seconds")),
    ("empty turn", lambda d: scenario(d, REL)["sessions"][1]["turns"][0].update(text=""),
     (REL, "field sessions[1].turns[0].text")),
    ("exact with two values", _probe_edit(REL, "p01", answer={"kind": "exact", "values": ["a", "b"]}),
     (REL, "probe p01", "field answer", "exactly one value")),
    ("abstain with a value", _probe_edit(TWO, "p04", answer={"kind": "abstain", "values": ["x"]}),
     (TWO, "probe p04", "field answer", "no values")),
    ("all_of with one value", _probe_edit(REL, "p02", answer={"kind": "all_of", "values": ["Jordan"]}),
     (REL, "probe p02", "field answer", "two or more")),
    ("belief type", _belief_edit(REL, "coffee", belief_type="taste"), (REL, "field beliefs[4].belief_type")),
    ("duplicate session id", lambda d: scenario(d, REL)["sessions"][1].update(id="s01"),
     (REL, "field sessions[].id", "duplicate 's01'")),
    ("duplicate label", _belief_edit(REL, "coffee", label="cat_name"), (REL, "field beliefs[].label")),
    ("duplicate probe id", _probe_edit(REL, "p02", id="p01"), (REL, "field probes[].id")),
    ("needed unresolved", _probe_edit(REL, "p03", needed=["tea"]), (REL, "probe p03", "field needed[0]")),
    ("supersedes unresolved", _belief_edit(REL, "home_portland", supersedes="home_boston"),
     (REL, "field beliefs[home_portland].supersedes", "no label")),
    ("belief session unresolved", _belief_edit(REL, "coffee", session="s09"),
     (REL, "field beliefs[coffee].session")),
    ("supersedes in same session", _belief_edit(REL, "home_portland", session="s01"),
     (REL, "field beliefs[home_portland].supersedes", "strictly later")),
    ("single_hop two labels", _probe_edit(REL, "p03", category="single_hop", needed=["coffee", "cat_name"]),
     (REL, "probe p03", "category single_hop", "field needed")),
    ("multi_hop kind", _probe_edit(REL, "p02", answer={"kind": "alternatives", "values": ["Jordan"]}),
     (REL, "probe p02", "category multi_hop", "field answer.kind")),
    ("temporal too soon", _probe_edit(REL, "p04", advance_seconds=0, needed=["home_portland"]),
     (REL, "probe p04", "category temporal", "field advance_seconds", "30")),
    ("update without supersedes", _probe_edit(REL, "p01", needed=["cat_name"]),
     (REL, "probe p01", "category update", "supersedes set")),
    ("update missing forbidden", _probe_edit(REL, "p01", forbidden_statements=[]),
     (REL, "probe p01", "category update", "field forbidden_statements", "home_seattle")),
    ("correction missing forbidden", _probe_edit(TWO, "p03", forbidden_statements=["Our release day is Friday"]),
     (TWO, "probe p03", "category correction", "field forbidden_statements")),
    ("preference of a fact", _probe_edit(REL, "p03", needed=["cat_name"]),
     (REL, "probe p03", "category preference", "'fact'")),
    ("transfer without scope", _probe_edit(TWO, "p01", project_scope=None),
     (TWO, "probe p01", "category transfer", "field project_scope")),
    ("transfer within its scope", _probe_edit(TWO, "p01", project_scope="atlas-api"),
     (TWO, "probe p01", "category transfer", "own scope")),
    ("transfer negative answered", _probe_edit(TWO, "p02", answer={"kind": "exact", "values": ["Postgres"]}),
     (TWO, "probe p02", "category transfer", "field answer.kind")),
    ("abstention with needed", _probe_edit(TWO, "p04", needed=["pr_size"]),
     (TWO, "probe p04", "category abstention", "field needed")),
    ("abstention without forbidden", _probe_edit(TWO, "p04", forbidden_statements=[]),
     (TWO, "probe p04", "category abstention", "field forbidden_statements")),
    ("duplicate scenario id", _scenario_edit(TWO, id=REL), (f"scenario {REL}", "field id", "duplicate")),
    ("category below three", _only_two_of_category, ("'abstention'", "at least 3")),
    ("too few protected scenarios", _drop_protected_abstention, ("protected_statements", "at least 4")),
]


@pytest.mark.parametrize(("mutate", "expected"), [pytest.param(m, e, id=name) for name, m, e in DEFECTS])
def test_each_schema_rule_refuses_its_defect_in_one_line(tmp_path: Path, mutate: Mutation,
                                                         expected: tuple[str, ...]) -> None:
    path = write_mutated(tmp_path, mutate)
    with pytest.raises(ScenarioCorpusError) as caught:
        load_scenarios(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    for fragment in expected:
        assert fragment in message, message


def test_clean_control_loads(tmp_path: Path) -> None:
    path = write_mutated(tmp_path, lambda data: None)
    assert len(load_scenarios(path).document.scenarios) == 16


def test_models_are_frozen(corpus: Any) -> None:
    with pytest.raises(pydantic.ValidationError):
        corpus.document.scenarios[0].title = "changed"


def test_unreadable_json_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{\n  \"schema_version\": 1,\n", encoding="utf-8")
    with pytest.raises(ScenarioCorpusError, match=r"invalid JSON at line \d+"):
        load_scenarios(path)


# --- the shipped corpus meets the v1 targets ---------------------------------------------------

def test_shipped_corpus_meets_v1_targets(corpus: Any) -> None:
    document = corpus.document
    scenarios = document.scenarios
    assert len(scenarios) == 16
    assert all(3 <= len(item.probes) <= 5 for item in scenarios)
    probes = [p for item in scenarios for p in item.probes]
    assert len(probes) <= 80
    counts = Counter(p.category for p in probes)
    assert set(counts) == set(CATEGORIES) and min(counts.values()) >= 3, counts
    two_scopes = [s for s in scenarios if len({x.project_scope for x in s.sessions if x.project_scope}) >= 2]
    assert len(two_scopes) >= 4
    assert sum(is_protected_abstention_scenario(s) for s in scenarios) >= 4
    days = [covered_days(s) for s in scenarios]
    assert sum(d >= 45 for d in days) >= 4 and max(days) > 90
    assert len({s.start_at for s in scenarios}) == len(scenarios)
    assert document.probe_instruction == ("Answer in one line using only what you already know about me. "
                                          "If you do not know, reply exactly: I do not have that information.")
    assert document.abstain_phrase == "I do not have that information."
    assert len(corpus.sha256) == 64


def test_every_label_is_a_short_clause_said_in_its_session(corpus: Any) -> None:
    for item in corpus.document.scenarios:
        texts = {s.id: [t.text for t in s.turns] for s in item.sessions}
        every = " ".join(text for turns in texts.values() for text in turns)
        for labelled in item.beliefs:
            units = [c for text in texts[labelled.session] for c in clauses(text)]
            for statement in labelled.statements:
                assert len(normalise(statement).split()) <= 14, (item.id, labelled.label)
                assert any(contains(unit, statement) for unit in units), (item.id, labelled.label, statement)
        for entry in item.probes:
            for forbidden in entry.forbidden_statements:
                assert contains(every, forbidden), (item.id, entry.id, forbidden)


# --- the deterministic arm with the reference memory -------------------------------------------

def _walk_numbers(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _walk_numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _walk_numbers(v)]
    return [value] if not isinstance(value, str) else []


def test_reference_memory_runs_byte_identically_twice(corpus: Any, reference_run: dict[str, Any]) -> None:
    again = run_corpus(corpus, make_memory)
    assert canonical_json(again) == canonical_json(reference_run)
    assert all(n is None or type(n) is int for n in _walk_numbers(reference_run))
    comparison = compare(again, reference_run)
    assert comparison.no_regression and comparison.baseline_current and comparison.lines() == []


def test_metrics_do_not_depend_on_the_process_hash_seed(reference_run: dict[str, Any]) -> None:
    script = ("from pytest_typedmemeval.scenarios import load_scenarios, run_corpus, canonical_json;"
              "from pytest_typedmemeval.scenarios.reference_memory import make_memory;"
              "print(canonical_json(run_corpus(load_scenarios(), make_memory)))")
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout.strip()
    assert output == canonical_json(reference_run)


def test_reference_memory_baseline_shape(reference_run: dict[str, Any]) -> None:
    totals = reference_run["aggregate"]["totals"]
    assert reference_run["structure"]["probes"] == 64 and reference_run["structure"]["scenarios"] == 16
    assert totals["run_completed"] == 64
    assert totals["policy_failures"] == 0 and totals["abstention_leaks"] == 0
    assert totals["false_transfers"] == 0 and totals["protected_rendered"] == 0
    assert totals["max_distinct_prefixes_per_probe"] == 1
    # The extractor leaves a gap to close (~70-80 % of labels form), reported, never gated.
    assert 0 < totals["unformed"] < totals["expected"] // 3
    assert set(reference_run["aggregate"]["by_category"]) == set(CATEGORIES)
    assert reference_run["aggregate"]["not_measured"] == {}


def test_one_probe_alone_equals_its_row_in_a_full_run(corpus: Any, reference_run: dict[str, Any]) -> None:
    target = next(s for s in corpus.document.scenarios if s.id == REL)
    prepared = prepare_scenario(target, make_memory)
    alone = run_probe(prepared, "p04")
    assert alone.to_row() == reference_run["probes"][f"{REL}/p04"]
    assert run_probe(prepared, "p04") is alone


@pytest.mark.parametrize(("switch", "expected"), [
    pytest.param({"supersede": False}, {f"{REL}/p01 currency_violations: 0 -> 1", f"{REL} stale_live: 0 -> 1"},
                 id="never-supersedes"),
    pytest.param({"protect": False}, {f"{TWO}/p04 abstention_leaks: 0 -> 1", f"{TWO} policy_failures: 0 -> 2",
                                      "mb-travel-japan-001/p01 protected_rendered: 0 -> 1"}, id="leaks-protected"),
    pytest.param({"scoped": False}, {f"{TWO}/p02 false_transfers: 0 -> 1"}, id="ignores-scope"),
])
def test_a_broken_memory_shows_as_named_regressions(corpus: Any, reference_run: dict[str, Any],
                                                    switch: dict[str, bool], expected: set[str]) -> None:
    broken = run_corpus(corpus, lambda: ReferenceMemory(**switch))
    comparison = compare(broken, reference_run)
    assert not comparison.drift
    assert not comparison.no_regression and not comparison.baseline_current
    assert expected <= {str(item) for item in comparison.regressions}


def test_drift_is_not_a_score(reference_run: dict[str, Any]) -> None:
    moved = dict(reference_run, corpus_sha256="0" * 64, versions={"extractor": "other"})
    comparison = compare(moved, reference_run)
    assert not comparison.no_regression
    assert any("corpus_sha256" in line for line in comparison.drift)
    assert any("version extractor" in line for line in comparison.drift)


# --- optional capabilities: missing means not measured, never zero ----------------------------

def test_missing_capabilities_are_not_measured(corpus: Any) -> None:
    target = next(s for s in corpus.document.scenarios if s.id == REL)
    run = run_scenario(target, TextOnlyMemory)
    assert run.formation.counts["supported"] is None and run.formation.counts["expected"] == 5
    assert "memories()" in run.formation.not_measured["supported"]
    row = run.probes[0]
    for name in ("needed_formed", "needed_recalled", "noise_total", "currency_violations", "distinct_prefixes"):
        assert row.counts[name] is None, name
        assert name in row.not_measured
    assert row.counts["run_completed"] == 1 and row.counts["needed_total"] == 1
    assert row.by_distance == {"1": {"needed": 1, "recalled": None}}


def test_traces_without_listing_measure_recall_only(corpus: Any) -> None:
    target = next(s for s in corpus.document.scenarios if s.id == REL)
    run = run_scenario(target, TracingChunkMemory)
    row = run.probes[0]
    assert row.counts["needed_formed"] is None
    assert isinstance(row.counts["needed_recalled"], int) and isinstance(row.counts["returned_total"], int)
    assert run.formation.counts["formed"] is None


def test_an_adapter_failure_is_a_result(corpus: Any) -> None:
    target = next(s for s in corpus.document.scenarios if s.id == REL)
    row = run_scenario(target, FailingMemory).probes[0]
    assert row.counts["run_completed"] == 0 and row.counts["needed_recalled"] is None
    assert row.not_measured["needed_recalled"] == "ask() raised RuntimeError"


def test_capability_vanishing_is_drift(corpus: Any) -> None:
    text_only = run_corpus(corpus, TextOnlyMemory)
    tracing = run_corpus(corpus, TracingChunkMemory)
    comparison = compare(text_only, tracing)
    assert any("measured in only one run" in line for line in comparison.drift)


# --- the reference memory through the vertical adapter protocol --------------------------------

def test_reference_memory_agent_answers_through_the_vertical_protocol() -> None:
    agent = make_agent()
    check_agent(agent, "make_agent()")
    moment = datetime(2025, 1, 1, tzinfo=timezone.utc)
    agent.reset()
    agent.ingest(Session("a1", moment, (Turn("user", "My sister is called Ana. The weather is grey."),
                                        Turn("assistant", "Noted."))))
    agent.ingest(Session("b2", moment, (Turn("user", "I like green tea in the afternoon."),)))
    answer = agent.answer("What is my sister called?", query_time=moment, instruction="")
    assert answer.text == "My sister is called Ana."
    assert answer.evidence is not None and answer.evidence.retrieved == ("a1",)
    assert agent.answer("Which car do I drive?", query_time=moment,
                        instruction="").text == "I do not have that information."
